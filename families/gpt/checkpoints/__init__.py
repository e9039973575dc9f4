"""GPT's checkpoint layouts: the original release's shards, Hugging Face
`openai-gpt` directories, and the name table that joins them to our model."""
