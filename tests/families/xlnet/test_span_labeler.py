"""`XLNetSpanLabeler`: the same window padded on the left (our XLNet text side) or
on the right (the original's SQuAD windows) gives the same outputs on its real
tokens, since attention is relative and padding is masked; it rebuilds from its
config."""

import keras
import numpy as np

from families.xlnet.encoder import XLNetEncoder
from families.xlnet.span_labeler import XLNetSpanLabeler
from modeling.encoder_interface import build_encoder
from tasks.question_answering.model import SpanLabeler
from tests.families.xlnet.cases import TINY
from tests.families.xlnet.tolerance import UNIT_ROUNDOFF, dense_bound, float32_bound
from tests.tiny_config import TINY_CONFIG

REAL, PADDING = 9, 5  # paragraph 0..4, <sep>, question 6..7, <sep>, <cls> 8


def window(left):
    """One window and its real positions, padded on the chosen side."""
    rng = np.random.default_rng(0)
    ids = rng.integers(10, TINY.n_token, REAL).astype(np.int32)
    types = np.array([0] * 6 + [1] * 2 + [2], np.int32)
    p_mask = np.array([0.0] * 5 + [1.0] * 3 + [0.0], np.float32)
    start = PADDING if left else 0
    real = np.arange(start, start + REAL)
    full = REAL + PADDING
    inputs = {"input_word_ids": np.zeros(full, np.int32), "input_mask": np.zeros(full, np.int32),
              "input_type_ids": np.full(full, 4, np.int32), "p_mask": np.ones(full, np.float32)}
    for name, values in zip(inputs, (ids, np.ones(REAL, np.int32), types, p_mask)):
        inputs[name][real] = values
    inputs = {k: v[None] for k, v in inputs.items()}
    inputs["cls_index"] = np.array([real[-1]], np.int32)
    return inputs, real


def test_left_and_right_padding_give_the_same_outputs():
    model = XLNetSpanLabeler(XLNetEncoder(TINY), start_n_top=3, end_n_top=2, dropout_rate=0.0)
    (left, left_real), (right, right_real) = window(True), window(False)
    ours = {}
    for name, inputs, real in (("left", left, left_real), ("right", right, right_real)):
        encoded = model.encoder({k: inputs[k] for k in ("input_word_ids", "input_mask",
                                                        "input_type_ids")})
        trained = model({**inputs, "start_positions": np.array([real[1]], np.int32)})
        beam = model(inputs)
        ours[name] = {"sequence_output": np.asarray(encoded["sequence_output"])[0, real],
                      "start_log_probs": np.asarray(trained["start_log_probs"])[0, real],
                      "end_log_probs": np.asarray(trained["end_log_probs"])[0, real],
                      "cls_logits": np.asarray(beam["cls_logits"]),
                      "start_top_log_probs": np.asarray(beam["start_top_log_probs"]),
                      "end_top_log_probs": np.asarray(beam["end_top_log_probs"]),
                      "start_top_index": np.asarray(beam["start_top_index"]) - real[0],
                      "end_top_index": np.asarray(beam["end_top_index"]) - real[0]}
    masked = left["p_mask"][0, left_real] > 0
    for key in ("start_log_probs", "end_log_probs"):  # -1e30 where no answer may be
        ours["left"][key], ours["right"][key] = (np.where(masked, 0.0, ours[side][key])
                                                 for side in ("left", "right"))
    differences = {k: float(np.abs(ours["left"][k] - ours["right"][k]).max()) for k in ours["left"]}
    assert differences["start_top_index"] == differences["end_top_index"] == 0
    hidden_bound = float32_bound(TINY, REAL + PADDING, ours["left"]["sequence_output"])
    assert differences["sequence_output"] <= hidden_bound, differences
    # Start logits: one dense layer on hidden states within that bound; log-softmax
    # over the positions adds both sides' rounding.
    head = model.head.start_logits
    kernel, bias = np.asarray(head.kernel), np.asarray(head.bias)
    logits = ours["left"]["sequence_output"] @ kernel + bias
    logit_bound = dense_bound(hidden_bound, ours["left"]["sequence_output"], kernel, bias)
    start_bound = 2 * logit_bound + 2 * (REAL + PADDING + 2) * UNIT_ROUNDOFF * (
        1 + float(np.abs(logits).max()))
    assert differences["start_log_probs"] <= start_bound, differences
    assert differences["start_top_log_probs"] <= start_bound, differences


def test_rebuilds_from_its_config():
    model = XLNetSpanLabeler(XLNetEncoder(TINY), start_n_top=3, end_n_top=2)
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(model))
    assert type(rebuilt) is XLNetSpanLabeler and rebuilt.get_config() == model.get_config()
    assert [w.path for w in rebuilt.weights] == [w.path for w in model.weights]


def test_builds_after_a_functional_task_model():
    """Keras rebases a functional task model's class on `Functional` when one is
    built; the subclassed XLNet model must not inherit that."""
    SpanLabeler(build_encoder(TINY_CONFIG))
    model = XLNetSpanLabeler(XLNetEncoder(TINY), start_n_top=2, end_n_top=2)
    assert "start_top_index" in model(window(True)[0])
