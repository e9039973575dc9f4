"""The TF Hub pair loaded where users load it: a fresh process with only
tensorflow and tensorflow_text. Preprocessing must equal the Python tokenizer
and packing used in training; the encoder must equal the in-process model."""

import base64
import json
import os
import re

import numpy as np
import pytest

from data.text.segments import encode_texts, pack_ids
from data.text.tokenization import FullTokenizer
from tests.conftest import modes_unlike_plain_writes, umask
from tests.export_harness import HOSTILE_TEXTS, export_tiny_hub, run_fresh, sentences

PAIR_SEQ_LENGTH = 24
UMASK = 0o002  # group-writable, as on hosts with a group per user
HOSTILE = [t.encode("utf-8") for t in HOSTILE_TEXTS] + [b"bad \xff\xfe utf-8 \xc3"]

_LOADER = """
import base64, json
import numpy as np
import tensorflow as tf
import tensorflow_text  # noqa: F401  (registers the tokenizer ops)

pre = tf.saved_model.load(ARGS["preprocessor"])
enc = tf.saved_model.load(ARGS["encoder"])
sentences = tf.constant(ARGS["sentences"])
hostile = [base64.b64decode(t) for t in ARGS["hostile"]]
arrays, report = {}, {}

def put(prefix, outputs):
    for key, value in outputs.items():
        if isinstance(value, list):
            value = tf.stack(value)
        arrays[prefix + key] = value.numpy()

packed = pre(sentences)
put("single/", packed)
put("hostile/", pre(tf.constant(hostile)))
for i, text in enumerate(hostile):
    put(f"hostile_{i}/", pre(tf.constant([text])))
put("empty_batch/", pre(tf.constant([], tf.string)))
report["tokens"] = pre.tokenize(sentences).to_list()
report["hostile_tokens"] = pre.tokenize(tf.constant(hostile)).to_list()
firsts, seconds = sentences[:-1], sentences[1:]
put("pairs/", pre.bert_pack_inputs([pre.tokenize(firsts), pre.tokenize(seconds)],
                                   seq_length=ARGS["pair_seq_length"]))
put("pairs_flat/", pre.bert_pack_inputs(
    [pre.tokenize(firsts).merge_dims(1, 2), pre.tokenize(seconds).merge_dims(1, 2)],
    seq_length=tf.constant(ARGS["pair_seq_length"])))
put("pairs_default/", pre.bert_pack_inputs([pre.tokenize(firsts), pre.tokenize(seconds)]))
report["special"] = {k: int(v) for k, v in pre.tokenize.get_special_tokens_dict().items()}
with open(pre.vocab_file.asset_path.numpy(), encoding="utf-8") as f:
    report["vocab"] = f.read()
report["encoder_do_lower_case"] = bool(enc.do_lower_case.numpy())

put("encoder/", enc(packed, training=False))
put("encoder_serve/", enc.serve(packed))
put("encoder_signature/", enc.signatures["serving_default"](**packed))
positions = tf.constant(ARGS["positions"], tf.int32)
put("mlm/", enc.mlm({**packed, "masked_lm_positions": positions}, training=False))
report["variables"] = len(enc.variables)
report["trainable_variables"] = len(enc.trainable_variables)
report["regularization_losses"] = len(enc.regularization_losses)
report["cli"] = {name: saved_model_cli_show(ARGS[name]) for name in ("preprocessor", "encoder")}
np.savez(ARGS["arrays"], **arrays)
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def hub_export(tmp_path_factory, uncased_vocab_file):
    """The pair exported under umask `UMASK`."""
    with umask(UMASK):
        return export_tiny_hub(str(tmp_path_factory.mktemp("hub")), uncased_vocab_file)


@pytest.fixture(scope="module")
def loaded(hub_export):
    """What a fresh tensorflow + tensorflow_text process computes with the pair."""
    texts = sentences()
    positions = np.tile(np.array([[1, 2, 5]], np.int32), (len(texts), 1))
    arrays_file = os.path.join(hub_export["tmp"], "loaded.npz")
    stdout = run_fresh(
        _LOADER, hub_export["tmp"], preprocessor=hub_export["preprocessor"],
        encoder=hub_export["encoder"], sentences=texts, pair_seq_length=PAIR_SEQ_LENGTH,
        hostile=[base64.b64encode(t).decode() for t in HOSTILE], positions=positions.tolist(),
        arrays=arrays_file)
    report = json.loads(stdout.strip().splitlines()[-1])
    return dict(np.load(arrays_file)), report, texts, positions


def _outputs(arrays, prefix):
    return {k[len(prefix):]: v for k, v in arrays.items() if k.startswith(prefix)}


def test_preprocessor_equals_training_tokenization_and_packing(hub_export, loaded):
    arrays, report, texts, _ = loaded
    tokenizer = FullTokenizer(hub_export["vocab_file"], do_lower_case=True)
    expected = encode_texts(tokenizer, texts, max_seq_length=128)
    got = _outputs(arrays, "single/")
    assert set(got) == {"input_word_ids", "input_mask", "input_type_ids"}
    for key, value in expected.items():
        assert got[key].dtype == np.int32 and got[key].shape == (len(texts), 128)
        np.testing.assert_array_equal(got[key], value, err_msg=key)
    words = [[tokenizer.vocab.ids(pieces) for _, pieces in tokenizer.tokenize_words(t)] for t in texts]
    assert report["tokens"] == words
    vocab = tokenizer.vocab
    assert report["special"] == {"vocab_size": len(vocab), "start_of_sequence_id": vocab.cls_id,
                                 "end_of_segment_id": vocab.sep_id, "padding_id": vocab.pad_id,
                                 "mask_id": vocab.mask_id}
    with open(hub_export["vocab_file"], encoding="utf-8") as f:
        assert report["vocab"] == f.read()
    assert report["encoder_do_lower_case"] is True


def test_sentence_pairs_pack_as_training_does(hub_export, loaded):
    arrays, _, texts, _ = loaded
    tokenizer = FullTokenizer(hub_export["vocab_file"], do_lower_case=True)
    vocab = tokenizer.vocab
    for prefix, seq_length in (("pairs/", PAIR_SEQ_LENGTH), ("pairs_flat/", PAIR_SEQ_LENGTH),
                               ("pairs_default/", 128)):
        got = _outputs(arrays, prefix)
        for i, (a, b) in enumerate(zip(texts[:-1], texts[1:])):
            expected = pack_ids(tokenizer.encode(a), tokenizer.encode(b), seq_length,
                                vocab.cls_id, vocab.sep_id, vocab.pad_id)
            for key, value in zip(("input_word_ids", "input_mask", "input_type_ids"), expected):
                np.testing.assert_array_equal(got[key][i], value, err_msg=f"{prefix}{key} row {i}")


def test_hostile_strings_give_the_training_inputs(hub_export, loaded):
    """Documented output: whatever the Python tokenizer gives; text with no
    tokens packs to [CLS] [SEP]; too long text is cut to the sequence length."""
    arrays, report, _, _ = loaded
    tokenizer = FullTokenizer(hub_export["vocab_file"], do_lower_case=True)
    expected = encode_texts(tokenizer, HOSTILE, max_seq_length=128)
    for prefix in ["hostile/"] + [f"hostile_{i}/" for i in range(len(HOSTILE))]:
        got = _outputs(arrays, prefix)
        rows = slice(None) if prefix == "hostile/" else slice(int(prefix[8:-1]), int(prefix[8:-1]) + 1)
        for key, value in expected.items():
            np.testing.assert_array_equal(got[key], value[rows], err_msg=prefix + key)
    vocab = tokenizer.vocab
    for empty in (0, 1):  # "" and whitespace only
        assert report["hostile_tokens"][empty] == []
        assert list(arrays["hostile/input_word_ids"][empty, :3]) == [vocab.cls_id, vocab.sep_id, 0]
    assert arrays["hostile/input_mask"][2].sum() == 128  # 20,000 characters: cut
    assert report["hostile_tokens"][3] == [[vocab.unk_id]]  # one word over 200 characters
    assert arrays["empty_batch/input_word_ids"].shape == (0, 128)


def test_encoder_equals_in_process_model(hub_export, loaded):
    arrays, report, texts, positions = loaded
    tokenizer = FullTokenizer(hub_export["vocab_file"], do_lower_case=True)
    inputs = encode_texts(tokenizer, texts, max_seq_length=128)
    pretrainer = hub_export["pretrainer"]
    expected = pretrainer.encoder(inputs, training=False)
    for prefix in ("encoder/", "encoder_serve/", "encoder_signature/"):
        got = _outputs(arrays, prefix)
        assert set(got) == {"default", "pooled_output", "sequence_output", "encoder_outputs"}
        np.testing.assert_allclose(got["pooled_output"], expected["pooled_output"], atol=1e-5)
        np.testing.assert_allclose(got["default"], expected["pooled_output"], atol=1e-5)
        np.testing.assert_allclose(got["sequence_output"], expected["sequence_output"], atol=1e-5)
        np.testing.assert_allclose(got["encoder_outputs"], np.stack(expected["encoder_outputs"]),
                                   atol=1e-5)
    logits = pretrainer({**inputs, "masked_lm_positions": positions}, training=False)["mlm_logits"]
    np.testing.assert_allclose(arrays["mlm/mlm_logits"], logits, atol=1e-5)
    assert arrays["mlm/mlm_logits"].shape == (len(texts), 3, 30522)
    assert report["trainable_variables"] == len(pretrainer.encoder.trainable_variables)
    assert report["variables"] == len(pretrainer.encoder.variables)
    assert report["regularization_losses"] == 0


def test_the_checkpoint_and_the_pair_have_the_modes_of_plain_writes(hub_export):
    checkpoint = os.path.join(hub_export["tmp"], "checkpoint")
    assert modes_unlike_plain_writes(UMASK, checkpoint, hub_export["preprocessor"],
                                     hub_export["encoder"]) == {}


def test_saved_model_cli_lists_the_signatures(loaded):
    shown = loaded[1]["cli"]["preprocessor"]
    assert "signature_def['serving_default']" in shown
    for name in ("sentences", "input_word_ids", "input_mask", "input_type_ids"):
        assert f"['{name}']" in shown, name
    shown = loaded[1]["cli"]["encoder"]
    for signature in ("serving_default", "mlm"):
        assert f"signature_def['{signature}']" in shown
    for name in ("input_word_ids", "masked_lm_positions", "pooled_output", "sequence_output",
                 "default", "encoder_outputs", "mlm_logits"):
        assert f"['{name}']" in shown, name


def test_encoder_refuses_more_tokens_than_positions(hub_export):
    """One token past max_position_embeddings is a clear error in every entry point
    (not a bare gather error on CPU, nor silent zeros on GPU); the limit itself runs."""
    import tensorflow as tf
    encoder = tf.saved_model.load(hub_export["encoder"])
    limit = hub_export["pretrainer"].encoder.config.max_position_embeddings

    def inputs(length):
        ones = tf.ones([1, length], tf.int32)
        return {"input_word_ids": ones, "input_mask": ones, "input_type_ids": 0 * ones}

    assert encoder(inputs(limit), training=False)["sequence_output"].shape[1] == limit
    too_long = inputs(limit + 1)
    calls = {"__call__": lambda: encoder(too_long, training=True),
             "serving_default": lambda: encoder.signatures["serving_default"](**too_long),
             "mlm": lambda: encoder.mlm({**too_long, "masked_lm_positions": tf.zeros([1, 1], tf.int32)})}
    for name, call in calls.items():
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"max_position_embeddings={limit}"):
            call()


def test_ids_outside_their_tables_are_a_clear_error_in_every_entry_point(hub_export):
    """Word and type ids past their tables (or negative) are refused, naming the
    input and its range, where a lookup would read another row."""
    import tensorflow as tf
    encoder = tf.saved_model.load(hub_export["encoder"])
    config = hub_export["pretrainer"].encoder.config

    def inputs(name, value):
        ones = tf.ones([1, 4], tf.int32)
        ids = {"input_word_ids": ones, "input_mask": ones, "input_type_ids": 0 * ones}
        ids[name] = tf.tensor_scatter_nd_update(ids[name], [[0, 2]], [value])
        return ids

    for name, size in (("input_word_ids", config.vocab_size), ("input_type_ids", config.type_vocab_size)):
        encoder(inputs(name, size - 1), training=False)
        for bad in (size, -1):
            calls = {"__call__": lambda: encoder(inputs(name, bad), training=True),
                     "serving_default": lambda: encoder.signatures["serving_default"](**inputs(name, bad)),
                     "mlm": lambda: encoder.mlm({**inputs(name, bad),
                                                 "masked_lm_positions": tf.zeros([1, 1], tf.int32)})}
            for call in calls.values():
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=re.escape(f"{name} holds ids outside the valid range [0, {size})")):
                    call()
