"""A small, learnable corpus for XLNet tests, and its SentencePiece model:
template sentences whose words depend on each other (an animal decides its
sound and food), so context predicts targets better than word counts do."""

import random

from data.text.sentencepiece_vocab import train_sentencepiece

ANIMALS = {"dog": ("barks", "bones"), "cat": ("meows", "fish"), "cow": ("moos", "grass"),
           "bird": ("sings", "seeds"), "horse": ("neighs", "hay"), "sheep": ("bleats", "clover")}
COLOURS = ("red", "green", "blue", "black", "white", "brown")


def sentences(rng):
    animal = rng.choice(sorted(ANIMALS))
    sound, food = ANIMALS[animal]
    colour = rng.choice(COLOURS)
    return [f"The {colour} {animal} {sound} at night.", f"Every {animal} eats {food} in the morning.",
            f"My {colour} {animal} likes {food}, so it {sound}."]


def write_corpus(path, documents, seed=0):
    """`documents` documents of 3-9 sentences, a blank line between them."""
    rng = random.Random(seed)
    lines = []
    for _ in range(documents):
        for _ in range(rng.randint(1, 3)):
            lines += sentences(rng)
        lines.append("")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return str(path)


def build_spiece(directory, vocab_size=120):
    """spiece.model learned from a corpus of the same sentences."""
    corpus = write_corpus(directory / "spm_corpus.txt", 200, seed=99)
    model = str(directory / "spiece.model")
    train_sentencepiece(corpus, model, vocab_size, character_coverage=1.0, hard_vocab_limit=False)
    return model
