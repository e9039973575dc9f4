"""BERT's text side: WordPiece as the original `FullTokenizer` (in the graph:
`GraphTokenizer`), `[CLS] A [SEP] (B [SEP])` padded on the right, segment ids
0 and 1, from a `vocab.txt`."""

from data.text.graph_segments import pack_segments, special_ids
from data.text.graph_tokenizer import GraphTokenizer
from data.text.segments import named_inputs, pack_ids
from data.text.text_side import TextSide
from data.text.tokenization import FullTokenizer


class WordPieceText(TextSide):
    """Example:
    >>> text = WordPieceText.from_file("vocab.txt", do_lower_case=True)
    >>> text.pack(text.encode("Hello!"), None, 8)["input_word_ids"]
    array([ 101, 7592,  999,  102,    0,    0,    0,    0], dtype=int32)
    """

    family = "bert"
    model_file_name = "vocab.txt"

    def __init__(self, tokenizer, model_file):
        super().__init__(model_file, tokenizer.do_lower_case)
        self.tokenizer = tokenizer
        self.vocab = tokenizer.vocab

    @classmethod
    def from_file(cls, model_file, do_lower_case):
        return cls(FullTokenizer(model_file, do_lower_case), model_file)

    @classmethod
    def wrap(cls, tokenizer):
        return cls(tokenizer, tokenizer.vocab.path) if isinstance(tokenizer, FullTokenizer) else None

    @property
    def special_ids(self):
        return special_ids(self.vocab)

    @property
    def unk_id(self):
        return self.vocab.unk_id

    def encode(self, text):
        return self.tokenizer.encode(text)

    def to_tokens(self, ids):
        return self.vocab.to_tokens(ids)

    def num_specials(self, ids_b):
        return 2 if ids_b is None else 3

    def pack(self, ids_a, ids_b, max_seq_length):
        vocab = self.vocab
        return named_inputs(*pack_ids(ids_a, ids_b, max_seq_length, vocab.cls_id, vocab.sep_id,
                                      vocab.pad_id))

    def segment_a_start(self, length_a, seq_length):
        return 1  # after [CLS]; the padding is on the right

    def graph_tokenizer(self):
        return GraphTokenizer(self.vocab, self.do_lower_case)

    def pack_graph(self, segments, seq_length):
        return pack_segments(segments, seq_length, self.special_ids)
