"""The main job's BERT half: a WordPiece vocabulary learned from the corpus,
masked-LM + next-sentence records, a 2-layer BERT pretrained on them and
scored on the held-out modules."""

import json
import os
import re

from contracts.main_job import Pretrained
from utils.files import atomic_write_text

SEQ_LENGTH = 48
MAX_PREDICTIONS = 7
VOCAB_SIZE = 1500
BATCH = 128
# H=64 trains about 4x more examples per second than H=128 on two cores; without
# dropout the short pretraining leaves the unigram plateau sooner (same config for both fine-tunings).
MODEL = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 256,
         "max_position_embeddings": SEQ_LENGTH, "hidden_dropout_prob": 0.0,
         "attention_probs_dropout_prob": 0.0}


# 3,500 steps at lr 3e-3 score as 4,000 at 2e-3 did or better on three seeds (held-out masked-LM
# 0.316-0.324 against 0.308-0.325, next sentence 0.041-0.072 above the majority label against
# 0.007-0.046), in 12% less time: what keeps the job under 5 minutes on two cores.
LEARNING_RATE = 3e-3


def steps(quick):
    return 20 if quick else 3500


def majority_share(records_log):
    """Share of the commoner next-sentence label in a record file, from its writer's log:
    random next sentences are more than half (a document's last chunk has no next one)."""
    with open(records_log, encoding="utf-8") as f:
        share = float(re.search(r"next sentence random ([0-9.]+)%", f.read()).group(1)) / 100
    return max(share, 1 - share)


def pretrain(job, work, corpus, held_out, seed, quick):
    """Runs the BERT stages through `job.stage(name, args, batch_size, threads)`
    (`demo.pretrained.FamilyJob`); returns its `Pretrained`."""
    path = {name: os.path.join(work, name) for name in (
        "vocab.txt", "bert_config.json", "pretraining.tfrecord", "held_out.tfrecord", "pretrain",
        "pretrain_eval", "logs")}
    job.stage("vocabulary", [
        "build_vocab.py", f"--input_file={corpus}", f"--output_file={path['vocab.txt']}",
        f"--vocab_size={VOCAB_SIZE}", "--num_unused=0", "--lower_thresh=5"])
    with open(path["vocab.txt"], encoding="utf-8") as f:
        vocab_size = sum(1 for _ in f)
    atomic_write_text(path["bert_config.json"], json.dumps({**MODEL, "vocab_size": vocab_size}, indent=2))
    records = [f"--vocab_file={path['vocab.txt']}", "--do_lower_case", f"--max_seq_length={SEQ_LENGTH}",
               f"--max_predictions_per_seq={MAX_PREDICTIONS}", f"--random_seed={seed}"]
    job.stage("pretraining data", [
        "create_pretraining_data.py", f"--input_file={corpus}", f"--output_file={path['pretraining.tfrecord']}",
        *records, "--dupe_factor=10", "--num_workers=2"])
    job.stage("held-out pretraining data", [
        "create_pretraining_data.py", f"--input_file={held_out}", f"--output_file={path['held_out.tfrecord']}",
        *records, "--dupe_factor=1"])
    pretraining = [f"--bert_config_file={path['bert_config.json']}", f"--max_seq_length={SEQ_LENGTH}",
                   f"--max_predictions_per_seq={MAX_PREDICTIONS}", f"--seed={seed}"]
    num_steps = steps(quick)
    job.pretrain_and_score(path, pretraining, BATCH, num_steps, micro_batches=True,
                       learning_rate=LEARNING_RATE)
    trained = job.last_logged_values(os.path.join(path["logs"], "pretraining.log"))
    held = job.read_key_values(os.path.join(path["pretrain_eval"], "eval_results.txt"))
    return Pretrained(
        checkpoint=path["pretrain"],
        runner_flags=[f"--vocab_file={path['vocab.txt']}", f"--bert_config_file={path['bert_config.json']}"],
        seq_length=SEQ_LENGTH,
        built=[("vocab.txt", f"WordPiece vocabulary, {vocab_size} tokens"),
               ("pretrain", f"pretrained 2-layer BERT (H={MODEL['hidden_size']}), checkpoint + bert_config.json")],
        summary=[
            f"pretraining ({num_steps} steps of {BATCH}): last training batches masked-LM accuracy "
            f"{trained['masked_lm_accuracy']:.3f}, next-sentence accuracy {trained['next_sentence_accuracy']:.3f} "
            f"(majority label {majority_share(os.path.join(path['logs'], 'pretraining_data.log')):.3f});",
            f"  scored on held-out modules: masked-LM accuracy {held['masked_lm_accuracy']:.3f}, "
            f"next-sentence accuracy {held['next_sentence_accuracy']:.3f} (majority label "
            f"{majority_share(os.path.join(path['logs'], 'held-out_pretraining_data.log')):.3f})"])
