"""Tasks: each builds its model, inputs, loss and metrics; runners only parse flags."""
