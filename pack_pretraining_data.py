"""Packs pretraining TFRecords (from `create_pretraining_data.py`, ours or the
original's) into rows that hold several instances each, for
`run_pretraining.py --max_sequences_per_pack` (BERT's records:
`families/bert/commands/pack_pretraining_data.py`).

    python pack_pretraining_data.py --input_file=data/seq512-*.tfrecord \\
        --output_file=data/packed512.tfrecord --max_seq_length=512 \\
        --max_predictions_per_seq=80 --max_sequences_per_pack=3
"""

from data import family_commands

if __name__ == "__main__":
    family_commands.run("pack_pretraining_data")
