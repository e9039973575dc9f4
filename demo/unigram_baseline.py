"""The loss a unigram model reaches on a pretraining task's held-out targets
(XLNet's predicted tokens, GPT's next tokens, ELMo's next tokens both ways):
the bar that pretraining has to clear to show it learned more than word
frequencies.

The unigram model is the target frequencies of the training records (add-one
smoothed); it is scored on exactly the targets that `run_pretraining.py
--do_eval` scores, read through the same pipeline. A family takes part when
its record's `pretraining` module says how (`scored_targets(config, path,
batch_size)` and the `TARGET_FLAGS` that describe its records' layout);
`--model` picks one, as `run_pretraining.py`'s does:

    python -m demo.unigram_baseline --model=xlnet --train_file=pretraining.tfrecord \\
        --held_out_file=held_out.tfrecord --config_file=xlnet_config.json \\
        --seq_len=64 --reuse_len=32 --num_predict=10 --output_file=unigram.txt
"""

import importlib

import numpy as np
from absl import app, flags

from checkpoints.companion_files import read_config_file
from contracts import registry
from utils.files import atomic_write_text

FLAGS = flags.FLAGS
_BATCH = 32


def scorers():
    """{family name: its pretraining module} of the families that score held-out targets."""
    modules = {f.name: importlib.import_module(f.pretraining) for f in registry.families() if f.pretraining}
    return {name: module for name, module in modules.items() if hasattr(module, "scored_targets")}


def define_flags():
    """Defined when run, not on import (tests import `unigram_scores` beside other flag owners)."""
    families = scorers()
    flags.DEFINE_enum("model", next(iter(families)), list(families), "Whose targets.")
    flags.DEFINE_string("train_file", None, "Training records (the frequencies).")
    flags.DEFINE_string("held_out_file", None, "Held-out records (the targets scored).")
    flags.DEFINE_string("config_file", None, "The model's config (xlnet_config.json, gpt_config.json, "
                        "ELMo's options.json of its pretraining run): its vocabulary size (ELMo: and "
                        "unroll_steps).")
    for name, module in families.items():
        for kind, flag, default, text in module.TARGET_FLAGS:
            getattr(flags, f"DEFINE_{kind}")(flag, default, f"{registry.family(name).title}: {text}")
    flags.DEFINE_string("output_file", None, "Where `unigram_loss = ...` lines are written.")
    flags.mark_flags_as_required(["train_file", "held_out_file", "config_file", "output_file"])


def unigram_scores(train_targets, held_out_targets, vocab_size):
    """Mean cross-entropy (nats) of the add-one unigram model, and the accuracy of
    always predicting the commonest training target, on the held-out targets."""
    counts = np.bincount(train_targets, minlength=vocab_size) + 1.0
    loss = -np.log(counts[held_out_targets] / counts.sum()).mean()
    return {"unigram_loss": float(loss),
            "majority_accuracy": float(np.mean(held_out_targets == counts.argmax()))}


def main(_):
    config = read_config_file(FLAGS.config_file)
    family = scorers()[FLAGS.model]
    held_out = family.scored_targets(config, FLAGS.held_out_file, _BATCH)
    if not len(held_out):
        raise app.UsageError(f"{FLAGS.held_out_file} has no targets")
    scores = unigram_scores(family.scored_targets(config, FLAGS.train_file, _BATCH), held_out,
                            config.vocab_size)
    scores["targets"] = len(held_out)
    atomic_write_text(FLAGS.output_file, "".join(f"{k} = {v}\n" for k, v in scores.items()))
    print(scores)


if __name__ == "__main__":
    define_flags()
    app.run(main)
