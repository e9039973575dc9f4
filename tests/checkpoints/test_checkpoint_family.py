"""A checkpoint of one model family given with the config of another is refused
by the shared loader before any family code reads it, in one message naming the
checkpoint, its format and both families: every layout each family writes, into
every other family's encoder and converter, and from the command lines as one
`error:` line (a GPT config with an ELMo weight folder, ELMo's options with a
GPT release)."""

import os
import sys

import pytest

from checkpoints.loader import CheckpointFamilyError, load_into
from checkpoints.pretrained import load_pretrained
from contracts import registry
from tests import warm_python
from tests.checkpoints.conftest import tiny_config
from tests.conftest import ROOT
from tests.families.gpt.kit import ENCODER_FILE

ENV = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}


def _foreign(checkpoints, name):
    return {key: path for key, path in checkpoints.items() if key[0] != name}


def _message(path, owner, name):
    return (f"{path}: a checkpoint of the {registry.family(owner).title} family (",
            f"but the config is of the {registry.family(name).title} family "
            f"({registry.family(name).config_file})")


@pytest.mark.parametrize("name", registry.names())
def test_every_other_familys_checkpoint_is_refused_naming_both(family_checkpoints, name):
    family = registry.family(name)
    encoder = family.build_encoder(tiny_config(name))
    before = [w.numpy() for w in encoder.weights]
    for (owner, fmt), path in _foreign(family_checkpoints, name).items():
        with pytest.raises(CheckpointFamilyError) as raised:
            load_pretrained(encoder, encoder, path)
        start, end = _message(path, owner, name)
        assert str(raised.value).startswith(start) and end in str(raised.value), (owner, fmt)
    assert all((w.numpy() == b).all() for w, b in zip(encoder.weights, before))  # nothing assigned


def test_our_weights_say_their_family_by_the_config_beside_them(family_checkpoints):
    encoder = registry.family("bert").build_encoder(tiny_config("bert"))
    with pytest.raises(CheckpointFamilyError, match=r"\(ours, with gpt_config.json beside it\)"):
        load_into(encoder, family_checkpoints["gpt", "ours"])


@pytest.mark.parametrize("name", registry.names())
def test_every_converter_refuses_another_familys_checkpoint(family_checkpoints, name, tmp_path):
    family = registry.family(name)
    for (owner, fmt), path in _foreign(family_checkpoints, name).items():
        output_dir = tmp_path / f"{owner}_{fmt}"
        with pytest.raises(CheckpointFamilyError, match=f"the {family.title} family"):
            family.convert(path, str(output_dir), family.output_formats[-1], tiny_config(name))
        assert not output_dir.exists()


def _error_line(args):
    done = warm_python.run([sys.executable, *args], cwd=ROOT, env=ENV, capture_output=True, text=True,
                           timeout=600)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-3000:]
    return done.stderr.strip().splitlines()[-1]


def test_convert_checkpoint_says_it_in_one_line(family_checkpoints, tmp_path):
    options = str(tmp_path / "options.json")
    tiny_config("elmo").to_json_file(options)
    release = family_checkpoints["gpt", "release"]
    line = _error_line(["convert_checkpoint.py", f"--bert_config_file={options}", f"--init_checkpoint={release}",
                        "--output_format=ours", f"--output_dir={tmp_path / 'out'}"])
    assert line == (f"error: {release}: a checkpoint of the OpenAI GPT family (gpt_release), but the config "
                    "is of the ELMo family (options.json): give a checkpoint and a config of one family")
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_run_classifier_says_it_in_one_line(family_checkpoints, tmp_path):
    """Slow: the runner writes its training records before it loads the checkpoint."""
    config = str(tmp_path / "gpt_config.json")
    tiny_config("gpt").to_json_file(config)
    data = tmp_path / "data"
    data.mkdir()
    (data / "train.tsv").write_text("sentence\tlabel\nA red house.\tyes\nAn old door.\tno\n", encoding="utf-8")
    weights = family_checkpoints["elmo", "hdf5"]  # the folder holding lm_weights.hdf5
    line = _error_line(["run_classifier.py", f"--bert_config_file={config}", f"--vocab_file={ENCODER_FILE}",
                        f"--init_checkpoint={weights}", "--task_name=custom", f"--data_dir={data}",
                        "--text_a_column=sentence", "--do_train", f"--output_dir={tmp_path / 'out'}",
                        "--max_seq_length=16", "--train_batch_size=2"])
    assert line == (f"error: {weights}: a checkpoint of the ELMo family (elmo_hdf5), but the config is of "
                    "the OpenAI GPT family (gpt_config.json): give a checkpoint and a config of one family")
