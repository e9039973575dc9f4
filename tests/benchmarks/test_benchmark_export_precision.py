"""benchmarks/export_precision_agreement.py: a checkpoint fine-tuned on two GLUE
tasks (a classification, a regression), its task model built in float32 and in
bfloat16 from the same weights, both scored on dev."""

import json
import math
import os
import shutil

from checkpoints.ours import save_weights
from modeling.encoder_interface import build_encoder
from tests.benchmarks.run_script import run_benchmark
from tests.conftest import FIXTURES
from tests.export_harness import TINY_CONFIG


def test_both_precisions_are_scored_on_dev_and_compared(tmp_path, uncased_vocab_file):
    checkpoint = tmp_path / "checkpoint"
    save_weights(build_encoder(TINY_CONFIG), str(checkpoint))
    TINY_CONFIG.to_json_file(str(checkpoint / "bert_config.json"))
    shutil.copy(uncased_vocab_file, checkpoint / "vocab.txt")
    glue = tmp_path / "glue"
    for task in ("MRPC", "STS-B"):
        shutil.copytree(os.path.join(FIXTURES, f"glue_{task.lower()}"), glue / task)
    output_dir = tmp_path / "out"
    stdout = run_benchmark(tmp_path, "export_precision_agreement.py", f"--init_checkpoint={checkpoint}",
                           "--tasks=MRPC,STS-B", f"--glue_dir={glue}", f"--output_dir={output_dir}",
                           "--train_examples=3", "--max_seq_length=32", "--batch=2", "--epochs=1")
    assert "Model name" in stdout, stdout
    rows = {row["task"]: row for row in json.loads((output_dir / "agreement.json").read_text())}
    mrpc, sts = rows["MRPC"], rows["STS-B"]
    assert mrpc["dev_examples"] == 2 and sts["dev_examples"] == 2
    for precision in ("float32", "bfloat16"):
        assert mrpc[f"{precision}_accuracy"] * 2 in (0, 1, 2)
        assert -1 <= sts[f"{precision}_pearson"] <= 1 or math.isnan(sts[f"{precision}_pearson"])
    assert mrpc["labels_agree"] * 2 in (0, 1, 2)
    for row in (mrpc, sts):
        assert 0 < row["max_abs_logit_difference"] < 1  # bfloat16 computed; a random tiny model's logits are small
    assert [line.split()[0] for line in stdout.splitlines()[-2:]] == ["MRPC", "STS-B"]
