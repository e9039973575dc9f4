"""The generation export refuses a family without a left-to-right language
model, naming it, before it reads any weights, and a damaged vocabulary in one
`error:` line that names the file and the line."""

import os
import shutil
import sys

import pytest

from export.export_generation import NoLanguageModelError, write_generation
from tests import warm_python
from tests.conftest import ROOT
from tests.export_harness import TINY_CONFIG
from tests.families.gpt import kit as gpt_kit


def test_a_family_without_a_language_model_is_refused(tmp_path):
    with pytest.raises(NoLanguageModelError, match="the bert family has no left-to-right language model"):
        write_generation(str(tmp_path / "out"), TINY_CONFIG, "vocab.txt", True, "no-checkpoint")
    assert not (tmp_path / "out").exists()


def test_a_malformed_merges_line_is_named_with_its_file_and_line(tmp_path):
    """Not "is not a gpt vocabulary": the encoder is GPT's; line 6 of the
    merges beside it holds three symbols."""
    encoder = shutil.copy(gpt_kit.ENCODER_FILE, tmp_path)
    merges = tmp_path / "vocab_2000.bpe"
    lines = open(gpt_kit.ENCODER_FILE.replace("encoder_bpe_", "vocab_").replace(".json", ".bpe"),
                 encoding="utf-8").read().split("\n")
    lines[5] = "a b c"
    merges.write_text("\n".join(lines), encoding="utf-8")
    config = str(tmp_path / "gpt_config.json")
    gpt_kit.tiny_config().to_json_file(config)
    done = warm_python.run(
        [sys.executable, "-m", "export.export_generation", f"--bert_config_file={config}",
         f"--vocab_file={encoder}", f"--init_checkpoint={tmp_path / 'none'}",
         f"--export_dir={tmp_path / 'out'}"],
        cwd=ROOT, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "CUDA_VISIBLE_DEVICES": ""},
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"error: {merges}:6: expected two symbols, found 'a b c' (a file of the gpt vocabulary {encoder})")
    assert "Traceback" not in done.stderr
