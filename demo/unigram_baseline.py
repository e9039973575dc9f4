"""The loss a unigram model reaches on a pretraining task's held-out targets
(XLNet's predicted tokens, GPT's next tokens): the bar that pretraining has to
clear to show it learned more than word frequencies.

The unigram model is the target frequencies of the training records (add-one
smoothed); it is scored on exactly the targets that `run_pretraining.py
--do_eval` scores, read through the same pipeline.

    python -m demo.unigram_baseline --model=xlnet --train_file=pretraining.tfrecord \\
        --held_out_file=held_out.tfrecord --config_file=xlnet_config.json \\
        --seq_len=64 --reuse_len=32 --num_predict=10 --output_file=unigram.txt
    python -m demo.unigram_baseline --model=gpt --train_file=pretraining.tfrecord \\
        --held_out_file=held_out.tfrecord --config_file=gpt_config.json \\
        --max_seq_length=64 --output_file=unigram.txt
"""

import numpy as np
from absl import app, flags

from checkpoints.companion_files import read_config_file
from utils.files import atomic_write_text

FLAGS = flags.FLAGS
_BATCH = 32


def define_flags():
    """Defined when run, not on import (tests import `unigram_scores` beside other flag owners)."""
    flags.DEFINE_enum("model", "xlnet", ["xlnet", "gpt"], "Whose targets: XLNet's or GPT's.")
    flags.DEFINE_string("train_file", None, "Training records (the frequencies).")
    flags.DEFINE_string("held_out_file", None, "Held-out records (the targets scored).")
    flags.DEFINE_string("config_file", None, "The model's config (xlnet_config.json, gpt_config.json): "
                        "its vocabulary size.")
    flags.DEFINE_integer("seq_len", 512, "XLNet: the records' seq_len.")
    flags.DEFINE_integer("reuse_len", 256, "XLNet: the records' reuse_len.")
    flags.DEFINE_integer("num_predict", 85, "XLNet: the records' num_predict.")
    flags.DEFINE_integer("max_seq_length", 512, "GPT: the records' window length.")
    flags.DEFINE_string("output_file", None, "Where `unigram_loss = ...` lines are written.")
    flags.mark_flags_as_required(["train_file", "held_out_file", "config_file", "output_file"])


def xlnet_targets(config, path):
    """Every target id that one evaluation pass of XLNet over `path` scores."""
    from families.xlnet.pretraining.task import XLNetPretrainingTask
    task = XLNetPretrainingTask(config, path, FLAGS.seq_len, FLAGS.reuse_len, FLAGS.reuse_len,
                                FLAGS.num_predict)
    return np.concatenate([labels["target"].numpy()[labels["target_mask"].numpy() > 0]
                           for _, labels in task.build_dataset("eval", _BATCH, training=False)])


def gpt_targets(config, path):
    """Every next token that one evaluation pass of GPT over `path` scores."""
    from families.gpt.pretraining.task import GPTPretrainingTask
    task = GPTPretrainingTask(config, path, FLAGS.max_seq_length)
    return np.concatenate([labels["input_ids"].numpy()[:, 1:][labels["input_mask"].numpy()[:, 1:] > 0]
                           for _, labels in task.build_dataset("eval", _BATCH, training=False)])


def unigram_scores(train_targets, held_out_targets, vocab_size):
    """Mean cross-entropy (nats) of the add-one unigram model, and the accuracy of
    always predicting the commonest training target, on the held-out targets."""
    counts = np.bincount(train_targets, minlength=vocab_size) + 1.0
    loss = -np.log(counts[held_out_targets] / counts.sum()).mean()
    return {"unigram_loss": float(loss),
            "majority_accuracy": float(np.mean(held_out_targets == counts.argmax()))}


def main(_):
    config = read_config_file(FLAGS.config_file)
    targets = {"xlnet": xlnet_targets, "gpt": gpt_targets}[FLAGS.model]
    held_out = targets(config, FLAGS.held_out_file)
    if not len(held_out):
        raise app.UsageError(f"{FLAGS.held_out_file} has no targets")
    scores = unigram_scores(targets(config, FLAGS.train_file), held_out, config.vocab_size)
    scores["targets"] = len(held_out)
    atomic_write_text(FLAGS.output_file, "".join(f"{k} = {v}\n" for k, v in scores.items()))
    print(scores)


if __name__ == "__main__":
    define_flags()
    app.run(main)
