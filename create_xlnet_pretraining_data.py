"""Writes XLNet pretraining TFRecords: `python create_pretraining_data.py --model=xlnet` under the name
earlier versions documented, with the same flags."""

from data import family_commands

if __name__ == "__main__":
    family_commands.run("create_pretraining_data", family="xlnet")
