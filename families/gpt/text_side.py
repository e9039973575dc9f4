"""OpenAI GPT's text side: the original's BPE (`encoder_bpe_40000.json` with
`vocab_40000.bpe` beside it), lower-cased always, packed as the original's
input transformation (`families.gpt.text_packing`), padded on the right.

One definition for training, evaluation and serving: `encode` runs the
in-graph tokenizer (`graph_tokenizer`), the one a SavedModel holds, so no
model is trained on ids its export would not produce. The original Python
pipeline (ftfy, spaCy) stays available as `encode_original`: the graph
tokenizer gives its ids on 99.9% of real sentences
(docs/families/gpt-text.md); `GPTText(..., graph_equivalent=False)` makes
`encode` the original instead, for reproducing the original's ids exactly
(and then exports may differ on the rest).
"""

import numpy as np
import tensorflow as tf

from data.text.graph_segments import SpecialIds
from data.text.text_side import TextSide
from families.gpt.bpe import SPECIAL_TOKENS, UNK_ID
from families.gpt.graph_tokenizer import GraphGPTTokenizer
from families.gpt.piece_text import graph_piece_text
from families.gpt.text_packing import pack_ids, pack_segments
from families.gpt.tokenizer import GPTTokenizer, merges_file_beside

PAD_ID = 0  # the original's inputs are zeros past the end (masked)


class GPTText(TextSide):
    """Example:
    >>> text = GPTText.from_file("encoder_bpe_40000.json", do_lower_case=True)
    >>> text.pack(text.encode("Hello!"), None, 6)["input_word_ids"]
    array([40478,  3570,   267, 40480,     0,     0], dtype=int32)
    """

    family = "gpt"
    model_file_name = "encoder_bpe_40000.json"
    model_file_names = ("encoder_bpe_40000.json", "vocab_40000.bpe")  # the merges beside the encoder
    padding_side = "right"
    do_lower_case_default = True  # the original lower-cases always
    similarity_in_both_orders = True  # the paper's similarity transformation (STS-B, MRPC, QQP)

    def __init__(self, tokenizer, graph_equivalent=True):
        # `do_lower_case` is always true: the BPE vocabulary has no capitals,
        # and a False passed to `from_file` is not honoured (see from_file).
        super().__init__(tokenizer.encoder_file, True)
        self.tokenizer = tokenizer
        self.graph_equivalent = graph_equivalent
        self._graph = None

    @classmethod
    def from_file(cls, model_file, do_lower_case):
        """`do_lower_case` is accepted and ignored: GPT's pipeline lower-cases
        every word, and its vocabulary holds no capitals."""
        return cls(GPTTokenizer.from_file(model_file))

    @classmethod
    def vocabulary_files(cls, model_file):
        """The encoder file and the merges beside it (`vocab_<n>.bpe` beside
        `encoder_bpe_<n>.json`)."""
        return model_file, merges_file_beside(model_file)

    def input_shapes(self, seq_length):
        return {"input_word_ids": (seq_length,), "input_mask": (seq_length,)}

    @classmethod
    def wrap(cls, tokenizer):
        return cls(tokenizer) if isinstance(tokenizer, GPTTokenizer) else None

    @property
    def specials(self):
        """(_start_, _delimiter_, _classify_) ids: just past the BPE vocabulary."""
        return tuple(self.tokenizer.bpe.special_id(t) for t in SPECIAL_TOKENS)

    @property
    def special_ids(self):
        """cls = `_classify_`, sep = `_delimiter_`, pad = 0, no mask token;
        vocab_size counts the three specials (ids below it are valid inputs)."""
        start, delimiter, classify = self.specials
        return SpecialIds(classify, delimiter, PAD_ID, None, self.tokenizer.bpe.n_vocab + len(SPECIAL_TOKENS))

    @property
    def unk_id(self):
        """0 (`<unk>` in the release): the original's id for a piece outside the
        encoder; BPE over characters rarely needs it (characters it never saw)."""
        return UNK_ID

    def encode(self, text):
        if not self.graph_equivalent:
            return self.encode_original(text)
        return self.graph_tokenizer().tokenize(tf.constant([text])).to_list()[0]

    def encode_original(self, text):
        """Ids of the original Python pipeline (ftfy, spaCy, BPE)."""
        return self.tokenizer.encode(text)

    def encode_batch(self, texts):
        """`encode` of each text, the graph tokenizer running once for all."""
        if not self.graph_equivalent or not texts:
            return [self.encode(t) for t in texts]
        return self.graph_tokenizer().tokenize(tf.constant(list(texts))).to_list()

    def encode_words(self, words):
        return self.encode_batch(words)

    def encode_texts(self, texts_a, texts_b=None, max_seq_length=128):
        ids_a = self.encode_batch(texts_a)
        ids_b = [None] * len(ids_a) if texts_b is None else self.encode_batch(texts_b)
        rows = [self.pack(a, b, max_seq_length) for a, b in zip(ids_a, ids_b)]
        return {name: np.stack([row[name] for row in rows]) for name in ("input_word_ids", "input_mask")}

    def to_tokens(self, ids):
        return self.tokenizer.bpe.to_tokens(ids)

    def num_specials(self, ids_b):
        return 2 if ids_b is None else 3

    def pack(self, ids_a, ids_b, max_seq_length):
        return pack_ids(ids_a, ids_b, max_seq_length, self.specials, PAD_ID)

    def segment_a_start(self, length_a, seq_length):
        return 1  # after _start_; the padding is on the right

    def graph_tokenizer(self):
        if self._graph is None:
            self._graph = GraphGPTTokenizer(self.tokenizer.bpe)
        return self._graph

    def pack_graph(self, segments, seq_length):
        return pack_segments(segments, seq_length, self.specials, PAD_ID)

    def graph_detokenize(self, ids):
        """The pieces' text (`families.gpt.piece_text`): lower-cased words, one
        space between them, as Hugging Face's tokenizer decodes."""
        table = tf.constant(self.to_tokens(range(self.special_ids.vocab_size)))
        return graph_piece_text(tf.gather(table, ids))
