"""ELMo's home: its options.json config and presets, the character ids, the
biLM (character CNN, LSTMP stacks) behind the encoder interface, the scalar mix
and the original `lm_weights.hdf5` checkpoints."""
