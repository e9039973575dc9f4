"""A model family's text side: what tasks and serving modules need to turn text
into encoder inputs, so that none of them names a tokenizer.

A family's `TextSide` holds its vocabulary file (`model_file`, copied beside
`export_meta.json` as `model_file_name`), tokenizes in Python (`encode`) and
in the graph (`graph_tokenizer`), names its tokens (`to_tokens`), knows its
special ids, and packs one or two segments into the family's encoder inputs
(`input_shapes`: BERT's and XLNet's `input_word_ids`, `input_mask` (1 on
real tokens, the encoder interface's convention), `input_type_ids`) in Python
(`pack`) and in the graph (`pack_graph`), padding on `padding_side`. Both
halves give the same ids. A family whose vocabulary is several files lists
them in `model_file_names`; `model_file` is the first, the others lie beside it.
`contracts.registry.text_side_for` picks the implementation by family name
(each family's record names its `TextSide`); `as_text_side` takes a family's
own tokenizer object as its text side.
"""

import abc
import os

import numpy as np
import tensorflow as tf

from contracts import registry
from data.text.segments import stack_inputs


class TextSide(abc.ABC):
    """One family's tokenizer, special tokens and segment packing, Python and in-graph."""

    family = None  # the encoder family's name, as `export_meta.json` records it
    model_file_name = None  # the vocabulary file's name beside export_meta.json
    model_file_names = None  # all of them, when several (the first is `model_file_name`)
    padding_side = "right"  # or "left": where packing puts the padding
    ids_input = "input_word_ids"  # the packed input holding the tokens `to_tokens` names
    do_lower_case_default = True  # what the family's original runners do unless told
    # Whether a pair whose order carries no meaning (a similarity task) is
    # encoded in both orders, each alone, and the two pooled vectors summed
    # before the classifier: GPT's input transformation for similarity (a
    # left-to-right encoder reads the second text in the light of the first only).
    similarity_in_both_orders = False

    def __init__(self, model_file, do_lower_case):
        self.model_file = model_file
        self.do_lower_case = do_lower_case

    @classmethod
    @abc.abstractmethod
    def from_file(cls, model_file, do_lower_case):
        """The text side over its vocabulary file."""

    @classmethod
    def wrap(cls, tokenizer):
        """The text side over the family's own Python tokenizer object, or None
        when `tokenizer` is not one."""
        return None

    @property
    @abc.abstractmethod
    def special_ids(self):
        """`data.text.graph_segments.SpecialIds` (cls, sep, pad, mask, vocab_size)."""

    @property
    @abc.abstractmethod
    def unk_id(self):
        """The unknown token's id: what a word-level task gives a word without pieces."""

    @abc.abstractmethod
    def encode(self, text):
        """Token ids of one raw text, as the family's original tokenizer."""

    def encode_word(self, word):
        """Token ids of one word a word-level task already has (a CoNLL word):
        its pieces, as `encode` gives them; a family whose tokens are words
        (ELMo) gives it as one token."""
        return self.encode(word)

    def encode_batch(self, texts):
        """`encode` of each of `texts`; a family whose tokenizer is cheaper on a
        batch than text by text (GPT's in-graph one) overrides it."""
        return [self.encode(text) for text in texts]

    def encode_words(self, words):
        """`encode_word` of each of `words`; a family whose tokenizer is
        cheaper on a batch than word by word (GPT's in-graph one) overrides it."""
        return [self.encode_word(word) for word in words]

    @classmethod
    def needs_vocabulary(cls, config):
        """Whether a model of `config` needs the vocabulary file to run tasks
        (ELMo's character biLM does not: `model_file` may then be None)."""
        return True

    @abc.abstractmethod
    def to_tokens(self, ids):
        """The vocabulary's strings of `ids` (word pieces, SentencePiece pieces),
        for outputs that show tokens."""

    @abc.abstractmethod
    def num_specials(self, ids_b):
        """Special tokens `pack` adds to a segment A and `ids_b`."""

    @classmethod
    def vocabulary_file_names(cls):
        """Every file of the vocabulary, first the one `model_file` names."""
        return tuple(cls.model_file_names or (cls.model_file_name,))

    @classmethod
    def vocabulary_files(cls, model_file):
        """Paths of every file of the vocabulary whose first file is
        `model_file`, in the order of `vocabulary_file_names` (the others lie
        beside it under those names, unless the family finds them otherwise)."""
        directory = os.path.dirname(model_file)
        return (model_file,) + tuple(os.path.join(directory, name)
                                     for name in cls.vocabulary_file_names()[1:])

    def input_shapes(self, seq_length):
        """{encoder input name: shape of one packed row}: what `pack` returns
        and the family's encoder declares (`encoder.input`)."""
        return {name: (seq_length,) for name in ("input_word_ids", "input_mask", "input_type_ids")}

    @abc.abstractmethod
    def pack(self, ids_a, ids_b, max_seq_length):
        """{name: int32 array} of `input_shapes(max_seq_length)`, the encoder's
        inputs; `ids_b` None packs one segment. A pair that does not fit is cut
        longest first, as the original."""

    def piece_indexes(self, num_a, num_b, seq_length):
        """Object array [seq_length]: at each position of a row `pack` packs from
        `num_a` pieces of A (and `num_b` of B, or None), the index of the piece
        of A then B there, None at special tokens and padding. Packing the
        pieces' indexes (negated, so that none reads as a special id) shows
        where the family puts each."""
        marks = -1 - np.arange(num_a + (num_b or 0))
        marks_b = None if num_b is None else marks[num_a:].tolist()
        packed = self.pack(marks[:num_a].tolist(), marks_b, seq_length)
        marks = np.where(packed["input_mask"] > 0, packed[self.ids_input], 0)
        return np.array([int(-1 - m) if m < 0 else None for m in marks], dtype=object)

    @abc.abstractmethod
    def segment_a_start(self, length_a, seq_length):
        """Index of A's first token when `pack` (or `pack_graph`) packs `length_a`
        tokens of A alone into `seq_length`: where the leading specials and the
        padding side put it. Ints or integer tensors."""

    @abc.abstractmethod
    def graph_tokenizer(self):
        """A `tf.Module` whose `tokenize(texts)` maps tf.string [batch] to ragged
        int32 ids ([batch, (pieces)], or [batch, (words), (pieces)]), equal to
        `encode`, whose `tokenize_with_offsets(texts)` gives ids [batch, (words),
        (pieces)] with each piece's [begin, end) byte offsets (the words the
        word-level tasks align), and whose `resources` a SavedModel calling it
        must hold."""

    def graph_detokenize(self, ids):
        """Ragged int32 ids [batch, (ids)] -> string [batch], the text they
        spell, in the graph (what a generation SavedModel answers). A family
        whose pieces do not keep their spacing has none."""
        raise NotImplementedError(f"the {self.family} text side does not turn ids back into text")

    @abc.abstractmethod
    def pack_graph(self, segments, seq_length):
        """Ragged id segments (one or two) -> dict of int32 [batch, seq_length]
        encoder inputs, exactly as `pack` packs them."""

    def segment_specs(self):
        """The `tf.RaggedTensorSpec`s of one segment `pack_graph` takes (what a
        SavedModel traces it for): pieces [batch, (pieces)] or words then pieces
        [batch, (words), (pieces)]; ELMo's [batch, (words), characters]."""
        return [tf.RaggedTensorSpec([None] * rank, tf.int32) for rank in (2, 3)]

    def encode_texts(self, texts_a, texts_b=None, max_seq_length=128):
        """Batch of encoder inputs (numpy dict) from raw texts."""
        return stack_inputs([
            self.pack(self.encode(text_a), None if texts_b is None else self.encode(texts_b[i]),
                      max_seq_length)
            for i, text_a in enumerate(texts_a)])

    def trim_padding(self, features):
        """Encoder inputs (a batch, [batch, seq] or [batch, choices, seq], and
        per-position values beside them) cut to their longest sequence on the
        axis of `input_mask`'s positions (ELMo's characters [..., seq, chars]
        keep theirs): the padding beyond it is masked anyway, so outputs are
        unchanged and a batch of short texts costs what its tokens cost.
        (Shapes then vary by batch: not for TPUs or XLA.)"""
        mask = features["input_mask"]
        longest = tf.reduce_max(tf.reduce_sum(mask, axis=-1))
        start = self.cut_before(tf.shape(mask)[-1], longest)
        axis = mask.shape.rank - 1
        return {name: value[(slice(None),) * axis + (slice(start, start + longest),)]
                for name, value in features.items()}

    def cut_before(self, seq_length, width):
        """Positions `trim_padding` cuts before those it keeps when it cuts
        `seq_length` to `width`: all of the cut on the left padding side, none
        on the right. Int32 tensors."""
        cut = seq_length - width
        return cut if self.padding_side == "left" else tf.zeros_like(cut)

    def restore_padding(self, values, seq_length):
        """Per-position values ([batch, width, ...]) of inputs cut by
        `trim_padding`, padded back with zeros to `seq_length` on the padding
        side: each position where it was, and batches of any width concatenate."""
        def pad(value):
            before = self.cut_before(seq_length, tf.shape(value)[1])
            after = seq_length - tf.shape(value)[1] - before
            padded = tf.pad(value, [[0, 0], [before, after]] + [[0, 0]] * (value.shape.rank - 2))
            padded.set_shape(value.shape[:1].concatenate([seq_length]).concatenate(value.shape[2:]))
            return padded
        return tf.nest.map_structure(pad, values)


class TextPacker:
    """Raw text -> packed encoder inputs in the graph: the text side's graph
    tokenizer (exactly its Python ids), then its `pack_graph`.

    Example:
    >>> packer = TextPacker(registry.text_side_for("bert", "vocab.txt", True), seq_length=128)
    >>> packer.pack(tf.constant(["A question?"]), tf.constant(["A context."]))["input_word_ids"]
    """

    def __init__(self, text, seq_length):
        self.text = text
        self.tokenizer = text.graph_tokenizer()
        self.seq_length = seq_length

    def pack(self, *texts):
        """One string tensor [batch] per segment -> dict of int32 [batch, seq_length]."""
        return self.text.pack_graph([self.tokenizer.tokenize(t) for t in texts], self.seq_length)

    def pack_both_orders(self, text_a, text_b):
        """A pair as (A, B) and as (B, A), each text tokenized once: dict of
        int32 [batch, 2, seq_length] (`TextSide.similarity_in_both_orders`)."""
        a, b = self.tokenizer.tokenize(text_a), self.tokenizer.tokenize(text_b)
        orders = [self.text.pack_graph(pair, self.seq_length) for pair in ([a, b], [b, a])]
        return {name: tf.stack([order[name] for order in orders], axis=1) for name in orders[0]}


def as_text_side(text):
    """A `TextSide` as is; a family's own tokenizer (BERT's `FullTokenizer`, as
    the original code passes it) as that family's text side."""
    if isinstance(text, TextSide):
        return text
    for family in registry.families():
        wrapped = family.text_side.wrap(text)
        if wrapped is not None:
            return wrapped
    raise TypeError(f"expected a TextSide or a family's tokenizer, got {type(text).__name__}")


def text_side_of(config):
    """The `TextSide` of a task config's encoder family (`config.encoder_config`)
    over its vocabulary file (`config.vocab_file`), lower-cased as `config.do_lower_case` says."""
    return registry.text_side_for(registry.family_of(config.encoder_config).name, config.vocab_file,
                                  config.do_lower_case)
