"""Bad input into a fine-tuning runner ends in one `error:` line naming the
file, not a traceback; an error from deep in a library keeps its traceback."""

import json
import os
import sys

import pytest

from tasks.tagging.task import find_split_file
from tests import warm_python
from tests.conftest import ROOT
from training.input_errors import reporting_input_errors

RUNNERS = ("run_classifier.py", "run_ner.py", "run_squad.py", "run_swag.py", "extract_features.py")


def test_the_projects_own_checks_become_an_error_line():
    def main(argv):
        return find_split_file(argv[0], "train")

    with pytest.raises(SystemExit, match=r"^error: no train file in 'conll': expected one of train.txt"):
        reporting_input_errors(main)(["conll"])


def test_an_error_raised_inside_a_library_keeps_its_traceback():
    def main(argv):
        return json.loads(argv[0])  # raised in the json package

    with pytest.raises(json.JSONDecodeError):
        reporting_input_errors(main)(["{"])


@pytest.mark.parametrize("runner", RUNNERS)
def test_every_fine_tuning_runner_reports_input_errors(runner):
    with open(os.path.join(ROOT, runner), encoding="utf-8") as f:
        assert "@reporting_input_errors\ndef main(" in f.read()


def test_a_missing_data_dir_is_one_line_in_a_fresh_process(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\n", encoding="utf-8")
    config = tmp_path / "bert_config.json"
    config.write_text(json.dumps({"vocab_size": 6, "hidden_size": 8, "num_hidden_layers": 1,
                                  "num_attention_heads": 2, "intermediate_size": 16}), encoding="utf-8")
    done = warm_python.run(
        [sys.executable, "run_ner.py", f"--data_dir={tmp_path / 'missing'}", "--do_train",
         f"--output_dir={tmp_path / 'out'}", f"--vocab_file={vocab}", f"--bert_config_file={config}"],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: no train file in '{tmp_path / 'missing'}': expected one of train.txt, eng.train")
