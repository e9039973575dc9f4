"""The left-to-right ablation end to end: the paper kept the left-only mask at
fine-tuning, so `run_pretraining.py --objective=ltr` writes a causal config
beside its checkpoint, `run_classifier.py --init_checkpoint=<that dir>`
fine-tunes a causal model and exports a SavedModel that serves the same, and
the TF Hub encoder exported from that checkpoint is causal too; converted
checkpoints keep the config, and a keras-hub preset, which cannot mask, is refused."""

import os
import sys

import numpy as np
import pytest
import tensorflow as tf

from checkpoints.companion_files import resolve_encoder_config
from checkpoints.loader import load_into
from convert_checkpoint import convert
from data.text.segments import encode_texts
from data.text.tokenization import FullTokenizer
from export.export_hub import export_hub
from export.export_meta import read_export_meta
from export.export_model import build_task_model
from families.bert.checkpoints.keras_hub_preset import PresetError
from families.bert.encoder import BertEncoder
from tasks.classification.model import SequenceClassifier
from tests import warm_python
from tests.causality import sees_only_earlier_tokens
from tests.conftest import FIXTURES, ROOT, read_json
from tests.export_harness import TINY_CONFIG, sentences
from tests.pretraining_records import write_records

SEQ = 32
ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""}


def run(script, *flags):
    done = warm_python.run([sys.executable, os.path.join(ROOT, script), *flags], cwd=ROOT, env=ENV,
                           capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.fixture(scope="module")
def fine_tuned(tmp_path_factory, uncased_vocab_file):
    root = tmp_path_factory.mktemp("ltr")
    TINY_CONFIG.to_json_file(str(root / "bert_config.json"))
    # ltr records carry next-token labels max_seq_length wide.
    records = write_records(root / "ltr.tfrecord", count=8, seq_length=SEQ, nsp=False, widths={
        name: SEQ for name in ("masked_lm_positions", "masked_lm_ids", "masked_lm_weights")})
    run("run_pretraining.py", f"--input_file={records}", f"--output_dir={root / 'pretrained'}",
        f"--bert_config_file={root / 'bert_config.json'}", "--objective=ltr", "--do_train",
        "--num_train_steps=2", "--num_warmup_steps=1", "--train_batch_size=4",
        f"--max_seq_length={SEQ}")
    run("run_classifier.py", "--task_name=SST-2", f"--data_dir={FIXTURES}/glue_sst-2",
        f"--vocab_file={uncased_vocab_file}", f"--init_checkpoint={root / 'pretrained'}",
        "--do_train", f"--max_seq_length={SEQ}", "--train_batch_size=3",
        "--num_train_epochs=2", f"--output_dir={root / 'out'}",
        f"--export_dir={root / 'export' / '1'}")
    return root


def test_pretraining_writes_a_causal_config(fine_tuned):
    assert read_json(fine_tuned / "pretrained" / "bert_config.json")["causal_attention"] is True


def test_fine_tuned_and_exported_models_stay_causal(fine_tuned, uncased_vocab_file):
    meta = read_export_meta(str(fine_tuned / "out"))
    assert meta.encoder_config.causal_attention
    model = build_task_model(meta)
    load_into(model, str(fine_tuned / "out"), strict=True)
    assert model.encoder.causal_attention and sees_only_earlier_tokens(model.encoder)

    ids = encode_texts(FullTokenizer(uncased_vocab_file, do_lower_case=True), sentences(), None,
                       SEQ)
    served = tf.saved_model.load(str(fine_tuned / "export" / "1")).signatures["serve_ids"](
        **{k: tf.constant(v) for k, v in ids.items()})["probabilities"].numpy()
    np.testing.assert_allclose(served, tf.nn.softmax(model(ids)["logits"]).numpy(), atol=1e-5)
    # The same weights attending both ways serve something else.
    bidirectional = SequenceClassifier(BertEncoder(meta.encoder_config, causal_attention=False),
                                   len(meta.label_list))
    bidirectional.set_weights(model.get_weights())
    assert np.abs(served - tf.nn.softmax(bidirectional(ids)["logits"]).numpy()).max() > 1e-3


def test_hub_encoder_of_the_pretrained_checkpoint_is_causal(fine_tuned, uncased_vocab_file,
                                                             tmp_path):
    _, encoder_dir = export_hub(str(tmp_path / "hub"), str(fine_tuned / "pretrained"),
                                vocab_file=uncased_vocab_file)
    assert sees_only_earlier_tokens(tf.saved_model.load(encoder_dir))


def test_converted_checkpoints_keep_the_causal_config(fine_tuned, uncased_vocab_file, tmp_path):
    pretrained = str(fine_tuned / "pretrained")
    for output_format in ("tf1", "hf"):
        convert(pretrained, str(tmp_path / output_format), output_format)
        assert resolve_encoder_config(init_checkpoint=str(tmp_path / output_format)).causal_attention
    with pytest.raises(PresetError, match="causal_attention"):
        convert(pretrained, str(tmp_path / "keras_hub"), "keras_hub", vocab_file=uncased_vocab_file)
