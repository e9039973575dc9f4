"""Pretraining's shared part: the per-example losses (`losses.py`). Each
family's pretraining task, model and data writer live in its home
(`families/<name>/pretraining/`), named by its record's `pretraining`, and
`run_pretraining.py --model=<name>` runs it; the records' reading and
writing every family shares is `data/pretraining/`."""
