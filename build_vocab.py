"""Learns a vocabulary from a text corpus (one sentence per line) for the
family `--model` names, in its released layout, written atomically: BERT's
WordPiece `vocab.txt` (the default), XLNet's SentencePiece `spiece.model`,
OpenAI GPT's BPE `encoder_bpe_<n>.json` + `vocab_<n>.bpe`, ELMo's word
vocabulary. Each family's flags are its own
(`families/<name>/commands/build_vocab.py`).

Example:
  python build_vocab.py --input_file='corpus/*.txt' --output_file=vocab.txt \\
    --vocab_size=30522 --do_lower_case=true
  python build_vocab.py --model=xlnet --input_file='corpus/*.txt' --model_file=spiece.model \\
    --vocab_size=32000
"""

from data import family_commands

if __name__ == "__main__":
    family_commands.run("build_vocab")
