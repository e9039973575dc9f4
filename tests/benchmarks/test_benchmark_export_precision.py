"""benchmarks/export_precision_agreement.py: a checkpoint fine-tuned on two GLUE
tasks (a classification, a regression), its task model built in float32 and in
bfloat16 from the same weights, both scored on dev; and on CoNLL NER and SQuAD,
its two exports served and their entities and answers scored."""

import json
import math
import os
import shutil

from checkpoints.ours import save_weights
from export.export_dir import MARKER
from modeling.encoder_interface import build_encoder
from benchmarks.export_precision_agreement import conll_slice, word_tags
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
                           "--tasks=MRPC,STS-B,NER,SQuAD", f"--glue_dir={glue}", f"--output_dir={output_dir}",
                           f"--conll_dir={os.path.join(FIXTURES, 'conll_tiny')}",
                           f"--squad_file={os.path.join(FIXTURES, 'squad_v1_tiny.json')}",
                           "--train_examples=3", "--max_seq_length=32", "--batch=2", "--epochs=1")
    assert "Model name" in stdout, stdout
    rows = {row["task"]: row for row in json.loads((output_dir / "agreement.json").read_text())}
    mrpc, sts, ner, squad = rows["MRPC"], rows["STS-B"], rows["NER"], rows["SQuAD"]
    assert mrpc["dev_examples"] == 2 and sts["dev_examples"] == 2
    for precision in ("float32", "bfloat16"):
        assert mrpc[f"{precision}_accuracy"] * 2 in (0, 1, 2)
        assert -1 <= sts[f"{precision}_pearson"] <= 1 or math.isnan(sts[f"{precision}_pearson"])
    assert mrpc["labels_agree"] * 2 in (0, 1, 2)
    for row in (mrpc, sts):
        assert 0 < row["max_abs_logit_difference"] < 1  # bfloat16 computed; a random tiny model's logits are small
    assert ner["dev_examples"] == 4
    for precision in ("float32", "bfloat16"):
        assert 0 <= ner[f"{precision}_f1"] <= 1
        mark = output_dir / "NER" / f"export_{precision}" / MARKER
        assert json.loads(mark.read_text())["export_precision"] == precision
    assert 0 <= ner["labels_agree"] <= 1 and 0 <= ner["entities_agree_f1"] <= 1
    assert squad["dev_examples"] == 6  # the fixture's second article: its first (3 questions) trained
    for precision in ("float32", "bfloat16"):
        assert 0 <= squad[f"{precision}_exact_match"] <= squad[f"{precision}_f1"] <= 1
    assert 0 <= squad["labels_agree"] <= 1 and 0 < squad["max_abs_score_difference"] < 1
    assert [line.split()[0] for line in stdout.splitlines()[-4:]] == ["MRPC", "STS-B", "NER", "SQuAD"]


def test_served_entities_tag_every_word_their_span_overlaps():
    words = ("U.S.", "envoy", "Richard", "Holbrooke", "met", "EU", "officials")
    # character spans in "U.S. envoy Richard Holbrooke met EU officials"
    entities = [("LOC", 0, 3), ("PER", 11, 28), ("ORG", 33, 35)]
    assert word_tags(words, entities) == ["B-LOC", "O", "B-PER", "I-PER", "O", "B-ORG", "O"]
    assert word_tags(words, []) == ["O"] * 7


def test_the_ner_slice_keeps_the_first_sentences_and_the_dev_file(tmp_path):
    data_dir = conll_slice(os.path.join(FIXTURES, "conll_tiny"), 2, str(tmp_path / "data"))
    blocks = [b for b in (tmp_path / "data" / "train.txt").read_text().split("\n\n") if b.strip()]
    assert blocks[0].startswith("-DOCSTART-") and len(blocks) == 3
    with open(os.path.join(FIXTURES, "conll_tiny", "train.txt"), encoding="utf-8") as f:
        assert f.read().startswith("\n\n".join(blocks))
    assert os.path.samefile(os.path.join(data_dir, "dev.txt"), os.path.join(FIXTURES, "conll_tiny", "dev.txt"))
