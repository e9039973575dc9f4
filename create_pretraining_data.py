"""Writes pretraining TFRecords from raw text, in parallel and streaming, for
the family `--model` names (default BERT; `xlnet`, `gpt`, `elmo`).

BERT: the input format, flags and record features of google-research/bert's
`create_pretraining_data.py`, plus `--output_shards`, `--num_workers`,
`--objective`, `--mask_token_rate` / `--random_token_rate` and
`--max_ngram_size`. XLNet: the original `data_utils.py`'s records and flag
names. Each family's flags and records are its own
(`families/<name>/commands/create_pretraining_data.py`); `run_pretraining.py
--model=<name>` trains on them. With `--runner`, an Apache Beam pipeline
writes the same records on that runner (docs/scaling-out.md).

Example:
  python create_pretraining_data.py --input_file=corpus/*.txt \\
    --output_file=out/pretrain.tfrecord --output_shards=8 \\
    --vocab_file=vocab.txt --num_workers=2 --dupe_factor=5
  python create_pretraining_data.py --model=xlnet --input_file=corpus/*.txt \\
    --output_file=out/xlnet.tfrecord --sp_path=spiece.model --seq_len=512 --reuse_len=256
"""

from data import family_commands

if __name__ == "__main__":
    family_commands.run("create_pretraining_data")
