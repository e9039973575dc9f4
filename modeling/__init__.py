"""Layers and task models every family shares: keras and keras.ops only."""
