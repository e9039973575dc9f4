"""The main job's ELMo half: a word vocabulary learned from the corpus
(`build_vocab.py --model=elmo`, the LM softmax's words), the original's windows with
the LSTM state carried between batches, a small character biLM pretrained on
them with the original's Adagrad, scored on the held-out modules (forward and
backward perplexity) beside a unigram model of the training targets.

The character variant, as the released models: the word-order sentences are
from modules pretraining never saw, and the char CNN gives their words
vectors that a word table would leave at `<UNK>` (and tasks and exports take
the character biLM only). Fine-tuning is feature-based, as the paper: the
biLM frozen, a learned mix of its layers under a task BiLSTM."""

import json
import math
import os

from contracts.main_job import Pretrained
from utils.files import atomic_write_text

SEQ_LENGTH = 48  # fine-tuning and serving: words per sentence (ELMo has no position limit)
UNROLL_STEPS = 20  # the original's windows
BATCH = 64
MIN_COUNT = 3  # words seen fewer times are <UNK> targets (about 3% of the corpus)
# LSTM 256 with projection 64 and a 224-filter char CNN: a pretraining of minutes on two cores;
# full softmax (the vocabulary is a few thousand words).
MODEL = {"lstm": {"dim": 256, "projection_dim": 64, "n_layers": 2, "cell_clip": 3, "proj_clip": 3,
                  "use_skip_connections": True},
         "char_cnn": {"activation": "relu", "embedding": {"dim": 16},
                      "filters": [[1, 32], [2, 32], [3, 64], [4, 64], [5, 32]],
                      "max_characters_per_token": 50, "n_characters": 261, "n_highway": 1},
         "dropout": 0.1}
# The task BiLSTM and head start from scratch under the frozen biLM.
LEARNING_RATE = 1e-3


def steps(quick):
    return 10 if quick else 400


def pretrain(job, work, corpus, held_out, seed, quick):
    """Runs the ELMo stages through `job.stage(name, args, batch_size, threads)`
    (`demo.pretrained.FamilyJob`); returns its `Pretrained`."""
    path = {name: os.path.join(work, name) for name in (
        "vocab.txt", "options.json", "pretraining.tfrecord", "held_out.tfrecord", "pretrain", "pretrain_eval",
        "unigram.txt", "logs")}
    job.stage("vocabulary", ["build_vocab.py", "--model=elmo", f"--input_file={corpus}",
                             f"--vocab_file={path['vocab.txt']}", f"--min_count={MIN_COUNT}"])
    with open(path["vocab.txt"], encoding="utf-8") as f:
        vocab_size = sum(1 for _ in f)
    atomic_write_text(path["options.json"], json.dumps(MODEL, indent=2))
    records = [f"--vocab_file={path['vocab.txt']}", f"--batch_size={BATCH}", f"--unroll_steps={UNROLL_STEPS}"]
    job.stage("pretraining data", ["create_pretraining_data.py", "--model=elmo", f"--input_file={corpus}",
                                   f"--output_file={path['pretraining.tfrecord']}", *records])
    job.stage("held-out pretraining data", ["create_pretraining_data.py", "--model=elmo",
                                            f"--input_file={held_out}",
                                            f"--output_file={path['held_out.tfrecord']}", *records])
    pretraining = ["--model=elmo", f"--options_file={path['options.json']}", f"--vocab_file={path['vocab.txt']}",
                   f"--unroll_steps={UNROLL_STEPS}", "--n_negative_samples_batch=0", f"--seed={seed}"]
    num_steps = steps(quick)
    # The original's Adagrad at its learning rate (0.2), no warmup.
    job.pretrain_and_score(path, pretraining, BATCH, num_steps, optimizer_flags=[])
    job.stage("unigram baseline", [
        "-m", "demo.unigram_baseline", "--model=elmo", f"--train_file={path['pretraining.tfrecord']}",
        f"--held_out_file={path['held_out.tfrecord']}",
        f"--config_file={os.path.join(path['pretrain'], 'options.json')}", f"--vocab_file={path['vocab.txt']}",
        f"--output_file={path['unigram.txt']}"])
    trained = job.last_logged_values(os.path.join(path["logs"], "pretraining.log"))
    held = job.read_key_values(os.path.join(path["pretrain_eval"], "eval_results.txt"))
    unigram = job.read_key_values(path["unigram.txt"])
    lstm = MODEL["lstm"]
    return Pretrained(
        checkpoint=path["pretrain"],
        runner_flags=[f"--bert_config_file={path['options.json']}"],
        seq_length=SEQ_LENGTH,
        learning_rate=LEARNING_RATE,
        built=[("vocab.txt", f"the biLM's word vocabulary (its softmax), {vocab_size} words"),
               ("pretrain", f"pretrained character biLM (2 x LSTM {lstm['dim']}, projection "
                            f"{lstm['projection_dim']}), checkpoint + options.json"),
               # Written by the shared TF Hub export beside the pair (the record's hub_module).
               ("hub/elmo", "the TF Hub ELMo module of the pretrained biLM (its published layout)")],
        summary=[
            f"pretraining ({num_steps} steps of {BATCH} windows of {UNROLL_STEPS} words each way): last "
            f"training batches perplexity {trained['perplexity']:.1f};",
            f"  scored on held-out modules: perplexity {held['perplexity']:.1f} (forward "
            f"{held['forward_perplexity']:.1f}, backward {held['backward_perplexity']:.1f}), loss "
            f"{held['loss']:.3f} nats (unigram model {unigram['unigram_loss']:.3f} nats, perplexity "
            f"{math.exp(unigram['unigram_loss']):.1f}; its commonest word {unigram['majority_accuracy']:.3f})"])
