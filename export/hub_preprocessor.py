"""The TF Hub BERT preprocessor SavedModel: strings -> encoder inputs, in the graph.

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
vocab as an asset), a `serve` endpoint for `keras.layers.TFSMLayer(path)` and a
`serving_default` signature (`sentences` -> the three inputs).

Tokenization is `data.text.graph_tokenizer.GraphTokenizer`: exactly the original
`FullTokenizer`'s ids, built from TensorFlow and tensorflow_text ops only, so
the SavedModel loads in a process that imports just those two.
"""

import tensorflow as tf

from data.text import graph_segments
from data.text.graph_tokenizer import GraphTokenizer
from data.text.vocab import Vocab
from export.saved_model_io import save_atomically

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
    segments of ragged rank 1 or 2 (pieces, or words then pieces)."""

    def __init__(self, special, default_seq_length):
        super().__init__()

        @tf.function(autograph=False)
        def call(inputs, seq_length=default_seq_length):
            return graph_segments.pack_segments(inputs, seq_length, special)

        for rank in (2, 3):
            for num_segments in (1, 2):
                segment = tf.RaggedTensorSpec([None] * rank, tf.int32)
                call.get_concrete_function([segment] * num_segments,
                                           seq_length=tf.TensorSpec([], tf.int32))
        self.__call__ = call


class BertPreprocessor(tf.__internal__.tracking.AutoTrackable):
    """The preprocessor object `save_preprocessor` writes; callable in process too.

    Example:
    >>> preprocessor = BertPreprocessor("vocab.txt", do_lower_case=True, seq_length=64)
    >>> preprocessor(tf.constant(["Hello world!"]))["input_word_ids"].shape
    TensorShape([1, 64])
    """

    def __init__(self, vocab_file, do_lower_case=True, seq_length=DEFAULT_SEQ_LENGTH):
        super().__init__()
        vocab = Vocab.from_file(vocab_file)
        special = graph_segments.special_ids(vocab)
        self.vocab_file = tf.saved_model.Asset(vocab_file)
        # Only `tokenize` is saved, not the tokenizer module and its other functions.
        tokenizer = GraphTokenizer(vocab, do_lower_case)
        self.tokenize = _Tokenize(tokenizer.tokenize, special)
        self.bert_pack_inputs = _PackInputs(special, seq_length)

        @tf.function(input_signature=[_SENTENCES])
        def preprocess(sentences):
            return graph_segments.pack_segments(
                [tokenizer.tokenize(sentences)], seq_length, special)

        self.__call__ = preprocess
        self.serve = preprocess

    def __call__(self, sentences):
        # `obj(...)` looks `__call__` up on the class; the one saved is the instance's.
        return self.__dict__["__call__"](sentences)


def save_preprocessor(export_dir, vocab_file, do_lower_case=True, seq_length=DEFAULT_SEQ_LENGTH):
    """Writes the preprocessor SavedModel to `export_dir`; returns the object saved."""
    preprocessor = BertPreprocessor(vocab_file, do_lower_case, seq_length)
    save_atomically(preprocessor, export_dir, signatures={"serving_default": preprocessor.serve})
    return preprocessor
