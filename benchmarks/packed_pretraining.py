"""Real tokens/s of a pretraining step on packed rows vs the same instances
padded one per row, in one process, same model, optimizer and loss.

    # Instance lengths of real records (needs TensorFlow):
    python benchmarks/wikitext_documents.py ../shared/data/corpus/wikitext2_*.txt > /tmp/wiki.txt
    python create_pretraining_data.py --input_file=/tmp/wiki.txt --output_file=/tmp/wiki512.tfrecord \\
        --vocab_file=../shared/data/vocab/bert_uncased_vocab.txt --max_seq_length=512 \\
        --max_predictions_per_seq=80 --dupe_factor=5
    python benchmarks/packed_pretraining.py --lengths_from=/tmp/wiki512.tfrecord \\
        --save_lengths=/tmp/wiki512_lengths.npy --preset=bert_uncased_L-4_H-256_A-4 --batch_size=8
    # Where TensorFlow is missing (the GPU machine), from the saved lengths:
    KERAS_BACKEND=jax python benchmarks/packed_pretraining.py --lengths_file=wiki512_lengths.npy \\
        --preset=bert_base_uncased --batch_size=32

The step's cost is set by the shapes (rows x 512), so real tokens/s is rows/s
times the mean real tokens per row over the whole sample, padded or packed.
Random token ids stand in for the records' own; lengths and prediction
counts (15% of each instance, at most --max_predictions) are the records'.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.common import add_precision_flag, peak_rss_mb  # noqa: E402
from benchmarks.train_step import build, jax_step_runner, tf_step_runner  # noqa: E402
from families.bert.pretraining.sequence_packing import pack_lengths, pack_rows  # noqa: E402
from families.bert.config import PRESETS, BertConfig  # noqa: E402
from training.precision import resolve  # noqa: E402
from tasks.pretraining.losses import pretraining_loss  # noqa: E402


def lengths_from_records(pattern, seq_length):
    import tensorflow as tf
    from data.pretraining.corpus_reader import expand_input_files
    spec = {"input_mask": tf.io.FixedLenFeature([seq_length], tf.int64)}
    dataset = tf.data.TFRecordDataset(expand_input_files(pattern)).map(
        lambda r: tf.reduce_sum(tf.io.parse_single_example(r, spec)["input_mask"]))
    return np.fromiter(dataset.as_numpy_iterator(), np.int64)


def synthetic_instances(lengths, seq_length, max_predictions, vocab_size, seed=0):
    """Padded instances in the pretraining-record layout: random ids, the given
    lengths, round(15%) of each instance's tokens predicted (1..max_predictions)."""
    rng = np.random.default_rng(seed)
    n = len(lengths)
    out = {"input_ids": np.zeros((n, seq_length), np.int64),
           "input_mask": (np.arange(seq_length) < np.asarray(lengths)[:, None]).astype(np.int64),
           "masked_lm_positions": np.zeros((n, max_predictions), np.int64),
           "masked_lm_ids": rng.integers(5, vocab_size, (n, max_predictions)),
           "masked_lm_weights": np.zeros((n, max_predictions), np.float32),
           "next_sentence_labels": rng.integers(0, 2, (n, 1))}
    out["segment_ids"] = out["input_mask"] * (np.arange(seq_length) >= np.asarray(lengths)[:, None] // 2)
    for i, length in enumerate(lengths):
        out["input_ids"][i, :length] = rng.integers(5, vocab_size, length)
        count = int(min(max_predictions, max(1, round(0.15 * length)), length - 1))
        positions = rng.choice(np.arange(1, length), count, replace=False)
        out["masked_lm_positions"][i, :count] = np.sort(positions)
        out["masked_lm_weights"][i, :count] = 1.0
    return out


def _model_data(rows, packed):
    features = {"input_word_ids": rows["input_ids"], "input_mask": rows["input_mask"],
                "input_type_ids": rows["segment_ids"],
                "masked_lm_positions": rows["masked_lm_positions"]}
    labels = {"masked_lm_ids": rows["masked_lm_ids"], "masked_lm_weights": rows["masked_lm_weights"]}
    if packed:
        features["next_sentence_positions"] = rows["next_sentence_positions"]
        labels["next_sentence_labels"] = rows["next_sentence_labels"]
        labels["next_sentence_weights"] = rows["next_sentence_weights"]
    else:
        labels["next_sentence_labels"] = rows["next_sentence_labels"].reshape(-1)
    def cast(arrays):
        return {k: v.astype(np.float32 if v.dtype == np.float32 else np.int32) for k, v in arrays.items()}
    return cast(features), cast(labels)


def step_runner(config, args, features, labels, packed):
    model, optimizer = build(config, args, packed=packed)
    if keras.backend.backend() == "jax":
        return jax_step_runner(model, optimizer, features,
                               lambda outputs: keras.ops.mean(pretraining_loss(outputs, labels)))
    return tf_step_runner(model, optimizer, features, labels, args)


def seconds_per_step(runners, args):
    """Median over --repeats timings of --steps steps, the runs interleaved so
    that a slow spell of a shared machine hits both."""
    for run in runners.values():
        run(args.warmup_steps)
    timings = {mode: [] for mode in runners}
    for _ in range(args.repeats):
        for mode, run in runners.items():
            start = time.perf_counter()
            run(args.steps)
            timings[mode].append((time.perf_counter() - start) / args.steps)
    return {mode: float(np.median(t)) for mode, t in timings.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lengths_from", help="Pretraining TFRecords to take instance lengths from.")
    parser.add_argument("--lengths_file", help="Instance lengths saved by --save_lengths (.npy).")
    parser.add_argument("--save_lengths", help="Write the lengths read by --lengths_from here.")
    parser.add_argument("--preset", default="bert_base_uncased", choices=sorted(PRESETS))
    parser.add_argument("--seq_length", type=int, default=512)
    parser.add_argument("--max_predictions", type=int, default=80)
    parser.add_argument("--max_sequences_per_pack", type=int, default=3)
    parser.add_argument("--batch_size", type=int, default=32, help="Rows per step, both runs.")
    add_precision_flag(parser)
    parser.add_argument("--jit_compile", action="store_true", help="TensorFlow backend: XLA.")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup_steps", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if bool(args.lengths_from) == bool(args.lengths_file):
        parser.error("give one of --lengths_from and --lengths_file")
    args.mixed_precision, precision_reason = resolve(args.mixed_precision)

    if args.lengths_from:
        lengths = lengths_from_records(args.lengths_from, args.seq_length)
        if args.save_lengths:
            np.save(args.save_lengths, lengths)
    else:
        lengths = np.load(args.lengths_file)
    config = BertConfig.from_preset(args.preset)
    instances = synthetic_instances(lengths, args.seq_length, args.max_predictions, config.vocab_size)
    groups = pack_lengths(lengths, args.seq_length, args.max_sequences_per_pack,
                          (instances["masked_lm_weights"] > 0).sum(axis=1), args.max_predictions)
    if min(len(groups), len(lengths)) < args.batch_size:
        parser.error(f"{len(groups)} packed rows from {len(lengths)} instances: fewer than --batch_size")
    order = np.random.default_rng(0).permutation(len(groups))[:args.batch_size]
    packed_rows = pack_rows(instances, [groups[i] for i in order], args.seq_length,
                            args.max_predictions, args.max_sequences_per_pack)
    padded_rows = {k: v[:args.batch_size] for k, v in instances.items()}

    tokens_per_row = {"padded": lengths.mean(), "packed": lengths.sum() / len(groups)}
    seconds = seconds_per_step({
        "padded": step_runner(config, args, *_model_data(padded_rows, False), packed=False),
        "packed": step_runner(config, args, *_model_data(packed_rows, True), packed=True)}, args)
    result = {"backend": keras.backend.backend(), "model": args.preset,
              "seq_length": args.seq_length, "batch_rows": args.batch_size,
              "mixed_precision": args.mixed_precision,
              "precision_reason": precision_reason, "instances": int(len(lengths)),
              "rows_packed": len(groups),
              "padding_share_padded": 1 - tokens_per_row["padded"] / args.seq_length,
              "padding_share_packed": 1 - tokens_per_row["packed"] / args.seq_length,
              "peak_rss_mb": peak_rss_mb()}
    for mode in ("padded", "packed"):
        result[f"{mode}_step_ms"] = 1000 * seconds[mode]
        result[f"{mode}_real_tokens_per_s"] = args.batch_size * tokens_per_row[mode] / seconds[mode]
    result["speedup_real_tokens"] = result["packed_real_tokens_per_s"] / result["padded_real_tokens_per_s"]
    result["speedup_bound"] = tokens_per_row["packed"] / tokens_per_row["padded"]
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
