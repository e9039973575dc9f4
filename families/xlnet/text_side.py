"""XLNet's text side: SentencePiece as the original (`XLNetTokenizer`, in the
graph `GraphXLNetTokenizer`) from a `spiece.model`, `A <sep> (B <sep>) <cls>`
padded on the left, segment ids 0/1/2. `do_lower_case` is the original's
`uncased` (lower-casing); accents are removed as in the original's default."""

import numpy as np

from data.text.graph_segments import SpecialIds
from data.text.segments import named_inputs
from families.xlnet.graph_segments import pack_xlnet_segments
from families.xlnet.graph_tokenizer import GraphXLNetTokenizer
from data.text.sentencepiece_vocab import SPECIAL_SYMBOLS
from data.text.text_side import TextSide
from families.xlnet.segments import pack_xlnet_ids
from families.xlnet.tokenizer import XLNetTokenizer

PAD_ID = 0  # what the original's classifier inputs pad with (not <pad>)


class XLNetText(TextSide):
    """Example:
    >>> text = XLNetText.from_file("spiece.model", do_lower_case=False)
    >>> text.pack(text.encode("Hello!"), None, 6)["input_mask"]  # 1 on real tokens
    array([0, 1, 1, 1, 1, 1], dtype=int32)
    """

    family = "xlnet"
    model_file_name = "spiece.model"
    padding_side = "left"
    do_lower_case_default = False  # the original's --uncased: the released models are cased

    def __init__(self, tokenizer):
        super().__init__(tokenizer.model_file, tokenizer.lower)
        self.tokenizer = tokenizer

    @classmethod
    def from_file(cls, model_file, do_lower_case):
        return cls(XLNetTokenizer(model_file, lower=do_lower_case))

    @property
    def special_ids(self):
        return SpecialIds(SPECIAL_SYMBOLS["<cls>"], SPECIAL_SYMBOLS["<sep>"], PAD_ID,
                          SPECIAL_SYMBOLS["<mask>"], self.tokenizer.sp.get_piece_size())

    @property
    def unk_id(self):
        return SPECIAL_SYMBOLS["<unk>"]

    def encode(self, text):
        return self.tokenizer.encode_ids(text)

    def to_tokens(self, ids):
        return [self.tokenizer.sp.id_to_piece(int(i)) for i in ids]

    def num_specials(self, ids_b):
        return 3 if ids_b else 2  # an empty B packs A alone

    def pack(self, ids_a, ids_b, max_seq_length):
        special = self.special_ids
        word_ids, padding, type_ids = pack_xlnet_ids(ids_a, ids_b, max_seq_length, special.sep,
                                                     special.cls, special.pad)
        return named_inputs(word_ids, (1 - padding).astype(np.int32), type_ids)

    def segment_a_start(self, length_a, seq_length):
        return seq_length - length_a - 2  # after the left padding; <sep> <cls> follow A

    def graph_tokenizer(self):
        return GraphXLNetTokenizer(self.model_file, lower=self.do_lower_case)

    def pack_graph(self, segments, seq_length):
        special = self.special_ids
        return pack_xlnet_segments(segments, seq_length, special.sep, special.cls, special.pad)
