"""The TF Hub preprocessor SavedModel: strings -> encoder inputs, in the graph,
for any encoder family through its text side (`data/text/text_side.py`).

Follows the published `bert_*_preprocess` modules, so app code written for
them runs unchanged:

    preprocessor = hub.KerasLayer(path)                 # strings [batch] ->
    encoder_inputs = preprocessor(sentences)            # input_word_ids, input_mask,
                                                        # input_type_ids: int32 [batch, 128]
    module = hub.load(path)                             # sentence pairs:
    tokenize = hub.KerasLayer(module.tokenize)          # -> ragged [batch, (words), (pieces)]
    pack = hub.KerasLayer(module.bert_pack_inputs, arguments=dict(seq_length=64))
    encoder_inputs = pack([tokenize(premises), tokenize(hypotheses)])

Also `module.tokenize.get_special_tokens_dict()`, `module.vocab_file` (the
family's vocabulary file as an asset: BERT's `vocab.txt`, XLNet's
`spiece.model`), a `serve` endpoint for `keras.layers.TFSMLayer(path)` and a
`serving_default` signature (`sentences` -> the three inputs).

Tokenization and packing are the family's: for BERT `GraphTokenizer` (exactly
the original `FullTokenizer`'s ids; `tokenize` gives [batch, (words), (pieces)])
and `[CLS] A [SEP] (B [SEP])` padded on the right; for XLNet the original's
SentencePiece encoding (`tokenize` gives [batch, (pieces)]) and
`A <sep> (B <sep>) <cls>` padded on the left with segment ids 0/1/2, where the
special tokens dict's `start_of_sequence_id` is `<cls>`, which XLNet puts
last. Either is built from TensorFlow and tensorflow_text ops only, so the
SavedModel loads in a process that imports just those two.
"""

import tensorflow as tf

from data.text import graph_segments
from export.saved_model_io import save_atomically
from export.serving_module import add_vocabulary_assets

DEFAULT_SEQ_LENGTH = 128
_SENTENCES = tf.TensorSpec([None], tf.string, name="sentences")


class _Tokenize(tf.__internal__.tracking.AutoTrackable):
    """The `tokenize` sub-object: a call plus the special ids."""

    def __init__(self, call, special):
        super().__init__()
        self.__call__ = call
        self.get_special_tokens_dict = tf.function(
            lambda: graph_segments.special_tokens_dict(special), input_signature=[])


class _PackInputs(tf.__internal__.tracking.AutoTrackable):
    """`bert_pack_inputs(segments, seq_length=default)`: traced for one and two
    segments of each spec the text side packs (`segment_specs`: pieces, or
    words then pieces)."""

    def __init__(self, text_side, default_seq_length):
        super().__init__()

        @tf.function(autograph=False)
        def call(inputs, seq_length=default_seq_length):
            return text_side.pack_graph(inputs, seq_length)

        for segment in text_side.segment_specs():
            for num_segments in (1, 2):
                call.get_concrete_function([segment] * num_segments,
                                           seq_length=tf.TensorSpec([], tf.int32))
        self.__call__ = call


class HubPreprocessor(tf.__internal__.tracking.AutoTrackable):
    """The preprocessor object `save_preprocessor` writes; callable in process too.

    Example:
    >>> preprocessor = HubPreprocessor(text_side_for("bert", "vocab.txt", True), seq_length=64)
    >>> preprocessor(tf.constant(["Hello world!"]))["input_word_ids"].shape
    TensorShape([1, 64])
    """

    def __init__(self, text_side, seq_length=DEFAULT_SEQ_LENGTH):
        super().__init__()
        special = text_side.special_ids
        add_vocabulary_assets(self, text_side)
        # Only `tokenize` is saved, not the tokenizer module and its other functions,
        # and what it reads from (SentencePiece's model; WordPiece's tables are constants).
        tokenizer = text_side.graph_tokenizer()
        if tokenizer.resources:
            self.tokenizer_resources = list(tokenizer.resources)
        self.tokenize = _Tokenize(tokenizer.tokenize, special)
        self.bert_pack_inputs = _PackInputs(text_side, seq_length)

        @tf.function(input_signature=[_SENTENCES])
        def preprocess(sentences):
            return text_side.pack_graph([tokenizer.tokenize(sentences)], seq_length)

        self.__call__ = preprocess
        self.serve = preprocess

    def __call__(self, sentences):
        # `obj(...)` looks `__call__` up on the class; the one saved is the instance's.
        return self.__dict__["__call__"](sentences)


def save_preprocessor(export_dir, text_side, seq_length=DEFAULT_SEQ_LENGTH):
    """Writes the preprocessor SavedModel of `text_side` to `export_dir`; returns
    the object saved."""
    preprocessor = HubPreprocessor(text_side, seq_length)
    save_atomically(preprocessor, export_dir, signatures={"serving_default": preprocessor.serve})
    return preprocessor
