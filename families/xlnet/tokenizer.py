"""XLNet's Python tokenizer: the original's `preprocess_text`, then
SentencePiece with its `encode_pieces` rule for a piece that ends in a digit
and a comma ("9," -> "9" ","), so numbers are split the same way before a
comma as elsewhere.
"""

import unicodedata

import sentencepiece as spm

from data.text.sentencepiece_vocab import check_special_symbols

SPIECE_UNDERLINE = "\u2581"


def preprocess_text(text, lower=False, remove_space=True, keep_accents=False):
    """The original's normalisation: whitespace runs (str.split's) collapse to
    one space and the ends are stripped, `` and '' become ", accents go
    (NFKD, then characters with a combining class dropped), then str.lower."""
    if remove_space:
        text = " ".join(text.split())
    text = text.replace("``", '"').replace("''", '"')
    if not keep_accents:
        text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    if lower:
        text = text.lower()
    return text


def is_digit_comma_piece(piece):
    """The original's test: more than one character, a comma after a str.isdigit character."""
    return len(piece) > 1 and piece[-1] == "," and piece[-2].isdigit()


class XLNetTokenizer:
    """Text -> SentencePiece pieces and ids as the original XLNet.

    >>> tok = XLNetTokenizer("spiece.model", lower=False)
    >>> tok.encode_ids("In 2019, we")
    """

    def __init__(self, model_file, lower=False, remove_space=True, keep_accents=False):
        self.model_file = model_file
        self.lower = lower
        self.remove_space = remove_space
        self.keep_accents = keep_accents
        try:
            self.sp = spm.SentencePieceProcessor(model_file=model_file)
        except (RuntimeError, OSError) as e:  # missing, truncated, not a model
            raise ValueError(f"{model_file}: cannot load the SentencePiece model ({e})") from None
        check_special_symbols(self.sp, model_file)

    def preprocess(self, text):
        return preprocess_text(text, self.lower, self.remove_space, self.keep_accents)

    def encode_pieces(self, text):
        """Pieces of already preprocessed `text`, digit-comma pieces re-split."""
        pieces = []
        for piece in self.sp.encode_as_pieces(text):
            if not is_digit_comma_piece(piece):
                pieces.append(piece)
                continue
            number = self.sp.encode_as_pieces(piece[:-1].replace(SPIECE_UNDERLINE, ""))
            if piece[0] != SPIECE_UNDERLINE and number[0][0] == SPIECE_UNDERLINE:
                # The re-encoding added a word-start marker the piece did not have.
                number = number[1:] if len(number[0]) == 1 else [number[0][1:]] + number[1:]
            pieces.extend(number + [piece[-1]])
        return pieces

    def encode_ids(self, text):
        """Ids of raw `text`: preprocess, encode_pieces, piece -> id."""
        return [self.sp.piece_to_id(p) for p in self.encode_pieces(self.preprocess(text))]

    def tokenize(self, text):
        return self.encode_pieces(self.preprocess(text))
