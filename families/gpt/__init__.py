"""OpenAI GPT's home (Radford et al. 2018): config and presets, the left-to-right
Transformer encoder with its tied language-model head, the checkpoint layouts
(the original release, Hugging Face) and the text side."""
