"""Text -> word-piece ids: the vocabulary, the Python and in-graph tokenizers (one
behaviour, two implementations) and the packing of segments into encoder inputs."""
