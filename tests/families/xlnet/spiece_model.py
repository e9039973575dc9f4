"""A small SentencePiece model learned here (no released spiece.model can be
downloaded): sentences with dates, numbers and punctuation, ~120 pieces."""

from data.text.sentencepiece_vocab import train_sentencepiece

LINES = [f"On May {i % 28 + 1}, {1900 + 7 * i} the {['red', 'old', 'tall'][i % 3]} house "
         f"counted {i * 37} rooms and {i % 9} doors." for i in range(200)]


def learn_spiece_model(directory):
    """Writes `spiece.model` into `directory` (a pathlib.Path); returns its path."""
    corpus = directory / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    model = str(directory / "spiece.model")
    train_sentencepiece([str(corpus)], model, 120, character_coverage=1.0, hard_vocab_limit=False)
    return model
