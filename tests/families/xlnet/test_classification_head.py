"""The sequence summary and logit layer against Hugging Face's
`XLNetForSequenceClassification` (torch, CPU, eval, random weights, float32):
fine-tuning inputs padded on the left with `<cls>` last, classes and regression."""

import keras
import numpy as np
import pytest

from families.xlnet.checkpoints.parts import load_hf_xlnet
from families.xlnet.backbone import XLNetBackbone
from families.xlnet.sequence_summary import XLNetClassificationHead
from tests.families.xlnet.cases import TINY, fine_tuning_inputs
from tests.families.xlnet.tolerance import dense_bound, float32_bound

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from tests.families.xlnet.hf_reference import hf_model, hf_tensors  # noqa: E402

ISSUE_BOUND = 1e-5  # issue 19's acceptance figure, absolute


def build(config, units):
    backbone = XLNetBackbone(config)
    head = XLNetClassificationHead(units, config.d_model, dropout_rate=config.dropout)
    backbone.build()
    head.build((None, None, config.d_model))
    return backbone, head


def hf_logits(model, inputs):
    with torch.no_grad():
        out = model(input_ids=torch.from_numpy(inputs["input_ids"]).long(),
                    token_type_ids=torch.from_numpy(inputs["segment_ids"]).long(),
                    input_mask=torch.from_numpy(inputs["input_mask"]), output_hidden_states=True)
    return out.logits.numpy(), out.hidden_states[-1].numpy()


def logits_bound(config, tensors, hidden):
    """The backbone's bound at the `<cls>` position, carried through both dense layers."""
    last = hidden[:, -1]
    summary_kernel = tensors["sequence_summary.summary.weight"].T
    summary_bias = tensors["sequence_summary.summary.bias"]
    bound = dense_bound(float32_bound(config, hidden.shape[1], hidden), last, summary_kernel, summary_bias)
    summary = np.tanh(last @ summary_kernel + summary_bias)
    return dense_bound(bound, summary, tensors["logits_proj.weight"].T, tensors["logits_proj.bias"])


def assert_matches(backbone, head, inputs, theirs, bound):
    ours = np.asarray(head(backbone(inputs)["sequence_output"]))
    assert ours.shape == theirs.shape and ours.dtype == np.float32
    diff = float(np.abs(ours - theirs).max())
    assert diff <= bound, diff
    assert diff <= ISSUE_BOUND, diff


@pytest.mark.parametrize("units", [3, 1], ids=["classes", "regression"])
def test_matches_hugging_face_sequence_classification(units):
    inputs = fine_tuning_inputs(np.random.default_rng(31))
    assert inputs["input_mask"][1, 0] == 1.0 and (inputs["segment_ids"][:, -1] == 2).all()
    model = hf_model(TINY, model_class=transformers.XLNetForSequenceClassification, num_labels=units)
    theirs, hidden = hf_logits(model, inputs)
    tensors = hf_tensors(model)
    backbone, head = build(TINY, units)
    load_hf_xlnet(backbone, tensors, head)
    assert_matches(backbone, head, inputs, theirs, logits_bound(TINY, tensors, hidden))


def test_the_comparison_sees_a_wrong_summary_weight():
    """Off by 1e-3 in one bias; the worst-case bound alone (about 2e-3 here: the
    weights' row sums carry the backbone's bound) is looser than the issue's 1e-5."""
    inputs = fine_tuning_inputs(np.random.default_rng(31))
    model = hf_model(TINY, model_class=transformers.XLNetForSequenceClassification, num_labels=3)
    theirs, hidden = hf_logits(model, inputs)
    tensors = hf_tensors(model)
    wrong = dict(tensors)
    wrong["sequence_summary.summary.bias"] = wrong["sequence_summary.summary.bias"] + 1e-3
    backbone, head = build(TINY, 3)
    load_hf_xlnet(backbone, wrong, head)
    with pytest.raises(AssertionError):
        assert_matches(backbone, head, inputs, theirs, logits_bound(TINY, tensors, hidden))


def test_reads_the_last_position_and_drops_out_only_in_training():
    head = XLNetClassificationHead(2, TINY.d_model, dropout_rate=0.5)
    sequence = np.random.default_rng(2).normal(size=(4, 6, TINY.d_model)).astype(np.float32)
    changed = sequence.copy()
    changed[:, :-1] += 1.0
    np.testing.assert_array_equal(np.asarray(head(sequence)), np.asarray(head(changed)))
    assert not np.array_equal(np.asarray(head(sequence, training=True)), np.asarray(head(sequence)))


def test_rebuilds_from_its_config():
    head = XLNetClassificationHead(3, TINY.d_model, dropout_rate=0.2, initializer_range=0.05, name="cls")
    rebuilt = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(head))
    assert isinstance(rebuilt, XLNetClassificationHead)
    assert rebuilt.get_config() == head.get_config()
    rebuilt.build((None, None, TINY.d_model))
    assert [tuple(w.shape) for w in rebuilt.weights] == [(32, 32), (32,), (32, 3), (3,)]


def test_one_unit_over_the_flattened_choices_is_hugging_face_multiple_choice():
    """Multiple choice is this head with one unit on each choice, logits regrouped
    [batch, choices], as `XLNetForMultipleChoice` (and RACE in the original)."""
    rng = np.random.default_rng(37)
    choices = [fine_tuning_inputs(rng) for _ in range(3)]
    grouped = {k: np.stack([c[k] for c in choices], axis=1) for k in choices[0]}  # [batch 2, choices 3, L]
    model = hf_model(TINY, model_class=transformers.XLNetForMultipleChoice)
    theirs, hidden = hf_logits(model, grouped)
    tensors = hf_tensors(model)
    backbone, head = build(TINY, 1)
    load_hf_xlnet(backbone, tensors, head)
    flat = {k: v.reshape((6,) + v.shape[2:]) for k, v in grouped.items()}
    ours = np.asarray(head(backbone(flat)["sequence_output"])).reshape(2, 3)
    diff = float(np.abs(ours - theirs).max())
    assert theirs.shape == (2, 3)
    assert diff <= logits_bound(TINY, tensors, hidden) and diff <= ISSUE_BOUND, diff
