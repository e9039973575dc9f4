"""WordPiece vocabulary files: one token per line, id = line order."""

import os

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


class VocabError(ValueError):
    """A vocabulary file that cannot be used; the message names the file and line."""


class Vocab:
    """Token <-> id maps read from a `vocab.txt`, as the original `load_vocab`.

    Lines are stripped; a repeated token keeps its first id and later copies
    are skipped, so ids stay dense exactly as in the original code.

    Example:
    >>> vocab = Vocab.from_file("vocab.txt")
    >>> vocab.token_to_id["[CLS]"]
    101
    """

    def __init__(self, tokens, path="<memory>"):
        self.path = path
        self.token_to_id = {}
        for token in tokens:
            if token not in self.token_to_id:
                self.token_to_id[token] = len(self.token_to_id)
        self.id_to_token = list(self.token_to_id)
        missing = [t for t in SPECIAL_TOKENS if t not in self.token_to_id]
        if missing:
            raise VocabError(f"{path}: vocabulary lacks special token(s) {missing}")

    @classmethod
    def from_file(cls, path):
        if not path or not os.path.isfile(path):
            raise VocabError(f"vocab file not found: {path!r}")
        tokens = []
        with open(path, "rb") as f:
            for line_no, raw in enumerate(f, start=1):
                try:
                    tokens.append(raw.decode("utf-8").strip())
                except UnicodeDecodeError as e:
                    raise VocabError(f"{path}:{line_no}: not valid UTF-8 ({e.reason})") from None
        if not tokens:
            raise VocabError(f"{path}: vocabulary file is empty")
        return cls(tokens, path)

    def __len__(self):
        return len(self.id_to_token)

    def __contains__(self, token):
        return token in self.token_to_id

    @property
    def tokens(self):
        return list(self.id_to_token)

    def ids(self, tokens):
        return [self.token_to_id[t] for t in tokens]

    def to_tokens(self, ids):
        return [self.id_to_token[i] for i in ids]

    def special_id(self, token):
        return self.token_to_id[token]

    @property
    def pad_id(self):
        return self.token_to_id["[PAD]"]

    @property
    def unk_id(self):
        return self.token_to_id["[UNK]"]

    @property
    def cls_id(self):
        return self.token_to_id["[CLS]"]

    @property
    def sep_id(self):
        return self.token_to_id["[SEP]"]

    @property
    def mask_id(self):
        return self.token_to_id["[MASK]"]
