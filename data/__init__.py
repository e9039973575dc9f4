"""Text -> features, in parts: `text` (vocabulary, tokenizers, segments),
`pretraining` (corpus to records and tf.data input) and one folder per
fine-tuning task's reader and features."""
