"""The TF Hub encoder SavedModel: a reusable, fine-tunable encoder of any family
(`modeling/encoder_interface.py`).

Follows the published `bert_*_L-*_H-*_A-*` encoders, so app code written for
them runs unchanged:

    encoder = hub.KerasLayer(path, trainable=True)     # tf-keras
    outputs = encoder(preprocessor(sentences))          # pooled_output [batch, H],
                                                        # sequence_output [batch, seq, H],
                                                        # default (= pooled_output),
                                                        # encoder_outputs: list of L [batch, seq, H]
    masked = hub.load(path).mlm({**encoder_inputs, "masked_lm_positions": positions})
    masked["mlm_logits"]                                # [batch, positions, vocab]

`mlm` is BERT's (its masked-LM head; for the left-to-right ablation, whose
config has `causal_attention`, the logits at a position predict the next
token); XLNet's language model predicts
permutation-LM targets from a query stream, not masked positions, so an XLNet
encoder has no `mlm`. Its `pooled_output` is the sequence summary of `<cls>`,
which the original creates in fine-tuning: from a pretrained checkpoint it is
the summary's initial weights (a warning says so).

The root is a `tf.__internal__.tracking.AutoTrackable` (a `tf.Module` root
cannot be fine-tuned through `hub.KerasLayer`) with `__call__(inputs,
training)`, `variables`, `trainable_variables` and `regularization_losses`;
`mlm` has the same. For Keras 3, `keras.layers.TFSMLayer(path)` uses the
`serve` endpoint (inference) and, with `call_training_endpoint="call_training"`,
the dropout-on endpoint while fitting. Keras 3.15's TFSMLayer names its weights
after TensorFlow's ("...kernel:0"); optimizers that make slot variables from
those names (Adam, AdamW, SGD with momentum) then fail with "not a valid scope
name". The README's `TrainableHubEncoder` (a `keras.layers.Layer` holding
`tf.saved_model.load(path)` and its variables wrapped as `keras.Variable`s
named without ":0") fine-tunes with any optimizer. Inputs longer than
`max_position_embeddings`, and ids outside their tables (`input_vocab_sizes`
of the config), are an error that says so. Signatures for serving:
`serving_default` (the three inputs -> `default`, `pooled_output`,
`sequence_output`, and `encoder_outputs` stacked [L, batch, seq, H]) and `mlm`.
With a vocabulary, `vocab_file` (asset: `vocab.txt`, XLNet's `spiece.model`)
and `do_lower_case` ride along as in the published encoders.
"""

import tensorflow as tf
from absl import logging

from checkpoints.pretrained import load_pretrained
from export.saved_model_io import save_atomically
from families import registry
from export.serving_module import checked_ids, ids_specs

# The masked-LM signature's extra input: [batch, predictions] positions.
_MLM_POSITIONS = {"masked_lm_positions": tf.TensorSpec([None, None], tf.int32,
                                                       name="masked_lm_positions")}


def _tf_variables(variables):
    return [v.value for v in variables]


class _Callable(tf.__internal__.tracking.AutoTrackable):
    """A reusable SavedModel object: `__call__(inputs, training)`, its variables,
    `serve` and `call_training` endpoints, and (no) regularization losses."""

    def __init__(self, model, fn, spec):
        super().__init__()
        self.variables = _tf_variables(model.variables)
        self.trainable_variables = _tf_variables(model.trainable_variables)
        self.regularization_losses = []
        call = tf.function(fn)
        for training in (False, True):
            call.get_concrete_function(spec, training)
        self.__call__ = call
        self.serve = call  # called with `inputs` only: training=False
        self.call_training = tf.function(lambda inputs: call(inputs, True), input_signature=[spec])

    def __call__(self, inputs, training=False):
        # `obj(...)` looks `__call__` up on the class; the one saved is the instance's.
        return self.__dict__["__call__"](inputs, training)


def _within_positions(inputs, names, max_positions):
    """The encoder's inputs (`names`) of `inputs`, checked first to be at most
    `max_positions` tokens long (None: no limit): past that the
    position-embedding lookup fails with a bare gather error on CPU and
    silently reads zeros on GPU."""
    if max_positions is None:
        return {k: inputs[k] for k in names}
    length = tf.shape(inputs["input_mask"])[1]
    check = tf.debugging.assert_less_equal(
        length, max_positions,
        message=f"the encoder takes at most max_position_embeddings={max_positions} tokens "
                "per row; the inputs have more (truncate, or preprocess with a smaller seq_length)")
    with tf.control_dependencies([check]):
        return {k: tf.identity(inputs[k]) for k in names}


def _encoder_outputs(encoded):
    return {"default": encoded["pooled_output"],
            "pooled_output": encoded["pooled_output"],
            "sequence_output": encoded["sequence_output"],
            "encoder_outputs": list(encoded["encoder_outputs"])}


class HubEncoder(_Callable):
    """The encoder object `save_hub_encoder` writes, from an encoder or a model
    holding one as `encoder` and a masked-LM head as `masked_lm` (BERT's
    pretrainer: the head serves `mlm`); callable in process too.

    Example:
    >>> hub_encoder = HubEncoder(BertPretrainer(BertEncoder(config), objective="mlm"))
    >>> hub_encoder(inputs)["pooled_output"].shape
    TensorShape([batch, hidden])
    """

    def __init__(self, model, vocab_file=None, do_lower_case=None):
        pretrainer = model if hasattr(model, "masked_lm") else None
        encoder = model.encoder if pretrainer else model
        max_positions = encoder.config.max_position_embeddings
        self.input_specs = ids_specs(encoder)

        def checked(inputs):
            return checked_ids(encoder, _within_positions(inputs, self.input_specs, max_positions))

        def encode(inputs, training=False):
            return _encoder_outputs(encoder(checked(inputs), training=training))

        def masked_lm(inputs, training=False):
            encoded = encoder(checked(inputs), training=training)
            logits = pretrainer.masked_lm(encoded["sequence_output"], inputs["masked_lm_positions"])
            return {**_encoder_outputs(encoded), "mlm_logits": logits}

        super().__init__(encoder, encode, self.input_specs)
        if pretrainer:
            self.mlm = _Callable(pretrainer, masked_lm, {**self.input_specs, **_MLM_POSITIONS})
        if vocab_file:
            self.vocab_file = tf.saved_model.Asset(vocab_file)
            self.do_lower_case = tf.Variable(bool(do_lower_case), trainable=False, name="do_lower_case")

    def serving_signatures(self):
        """Flat, named serving signatures (lists are stacked along a new axis 0)."""
        def flat(fn):
            def signature(inputs):
                outputs = fn(inputs)
                outputs["encoder_outputs"] = tf.stack(outputs["encoder_outputs"])
                return outputs
            return signature

        signatures = {"serving_default": tf.function(
            flat(self.serve), input_signature=[self.input_specs])}
        if hasattr(self, "mlm"):
            signatures["mlm"] = tf.function(
                flat(self.mlm.serve), input_signature=[{**self.input_specs, **_MLM_POSITIONS}])
        return signatures


def _load(model, encoder, init_checkpoint):
    """The load report of `init_checkpoint` in `model` (None without one): the
    encoder must come whole from it; a missing masked-LM head or sequence
    summary is only a warning."""
    if not init_checkpoint:
        return None
    report = load_pretrained(model, encoder, init_checkpoint)
    if report.missing:
        logging.warning("%s has no value for %s: the export computes with their initial, "
                        "untrained values (BERT's `mlm_logits`, XLNet's `pooled_output`)",
                        init_checkpoint, ", ".join(report.missing))
    return report


def build_hub_model(config, init_checkpoint=None):
    """What the encoder SavedModel is made of, float32, `init_checkpoint` loaded if
    given: the family's hub model (BERT's masked-LM pretrainer), else its encoder
    alone; returns (model, load report or None)."""
    family = registry.family_of(config)
    model = family.hub_model(config) if family.hub_model else family.build_encoder(config)
    encoder = getattr(model, "encoder", model)
    return model, _load(model, encoder, init_checkpoint)


def save_hub_encoder(export_dir, model, vocab_file=None, do_lower_case=None):
    """Writes the encoder SavedModel of `model` (see `HubEncoder`) to `export_dir`;
    returns the object saved."""
    hub_encoder = HubEncoder(model, vocab_file, do_lower_case)
    save_atomically(hub_encoder, export_dir, signatures=hub_encoder.serving_signatures())
    return hub_encoder
