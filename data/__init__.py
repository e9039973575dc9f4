"""Text -> features: tokenizers, readers and tf.data input pipelines."""
