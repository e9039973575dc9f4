"""Learns an OpenAI GPT BPE vocabulary: `python build_vocab.py --model=gpt` under the name
earlier versions documented, with the same flags."""

from data import family_commands

if __name__ == "__main__":
    family_commands.run("build_vocab", family="gpt")
