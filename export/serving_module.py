"""The root every task SavedModel shares: the model's variables, the vocabulary
file (the text side's `model_file`, where it has one) as an asset, the in-graph tokenizer's
resources, the serving functions
(as attributes and as signatures) and the TF Serving warmup requests."""

import tensorflow as tf

from export.saved_model_io import save_atomically
from export.warmup import write_warmup_requests
from modeling.encoder_interface import input_specs


def text_spec(name):
    """A batch of strings [batch] named `name` in the signature."""
    return tf.TensorSpec([None], tf.string, name=name)


def ids_specs(model):
    """{name: spec} of the inputs an encoder (or a task model over one)
    declares, [batch, seq, ...]."""
    return {name: tf.TensorSpec([None, *shape], dtype, name=name)
            for name, (shape, dtype) in input_specs(model).items()}


@tf.autograph.experimental.do_not_convert  # no tensor-dependent Python control flow
def checked_ids(model, inputs):
    """`inputs` {name: ids} of `model` (an encoder, or a task model over one),
    each input its encoder config's `input_vocab_sizes` names checked first to
    hold only ids in [0, its size): outside it an embedding lookup may answer
    instead of failing, with another row (Keras' `take` counts negative ids
    from the end, GPT's embedding clips ids into its tables) or zeros (a GPU
    gather). A model without an encoder config (a test's stand-in) is served
    unchecked."""
    config = getattr(getattr(model, "encoder", model), "config", None)
    checks = []
    for name, size in (config.input_vocab_sizes.items() if config is not None else ()):
        if name in inputs:
            ids = inputs[name]
            checks.append(tf.debugging.Assert(
                tf.reduce_all((ids >= 0) & (ids < size)),
                [f"{name} holds ids outside the valid range [0, {size}): smallest", tf.reduce_min(ids),
                 "largest", tf.reduce_max(ids)]))
    with tf.control_dependencies(checks):
        return {name: tf.identity(value) for name, value in inputs.items()}


def computed_in(model):
    """`bfloat16` or `float32`: what the encoder of `model` (a task model, or an
    encoder; a test's stand-in without a dtype policy: float32) computes in."""
    policy = getattr(getattr(model, "encoder", model), "dtype_policy", None)
    return "bfloat16" if policy is not None and policy.compute_dtype == "bfloat16" else "float32"


def add_vocabulary_assets(root, text_side):
    """The text side's vocabulary files as assets of `root` (`vocab_file` and
    the others in `vocabulary_files`); none for a model without a vocabulary."""
    if text_side.model_file:
        root.vocab_file = tf.saved_model.Asset(text_side.model_file)
        root.vocabulary_files = [tf.saved_model.Asset(path)
                                 for path in text_side.vocabulary_files(text_side.model_file)[1:]]


class ServingModule(tf.__internal__.tracking.AutoTrackable):
    """Holds what a task SavedModel saves.

    Example:
    >>> text_side = text_side_for("bert", "vocab.txt", True)
    >>> module = ServingModule(model, text_side, text_side.graph_tokenizer())
    >>> serve = tf.function(fn, input_signature=[text_spec("text")])
    >>> module.save("/tmp/export", {"serving_default": serve},
    ...             warmup_requests=[("serving_default", {"text": np.array([b"Hi."])})])
    """

    def __init__(self, model, text_side, tokenizer):
        super().__init__()
        add_vocabulary_assets(self, text_side)
        if tokenizer.resources:  # e.g. SentencePiece's model; WordPiece's tables are constants
            self.tokenizer_resources = list(tokenizer.resources)
        self.variables = [v.value for v in model.variables]
        self._facts = {"export_precision": computed_in(model)}

    def save(self, export_dir, signatures, warmup_requests):
        """Saves with `signatures` {name: tf.function with an input_signature},
        each also an attribute of the loaded object."""
        for name, function in signatures.items():
            setattr(self, name, function)
        return save_atomically(self, export_dir, signatures,
                               write_extras=lambda d: write_warmup_requests(d, warmup_requests),
                               facts=self._facts)
