"""ELMo biLM inference speed: ours (Keras 3 on TensorFlow, fp32 and bf16)
against the original `bilm` (0.1.post5, its TensorFlow 1 graph) on the same
weights, in the same run.

    python benchmarks/elmo_speed.py --preset=elmo_original --batch=16 --repeats=3

Random weights of the preset's sizes (the released models' architecture) are
written once in the original layout (`lm_weights.hdf5`, `options.json`); every
contender loads them in a process of its own (so peak RSS is its own), repeats
interleaved. Two figures each: the biLM's forward pass over a batch of
`--batch` sentences of 10-40 words (character ids ready; sentences/s), and
feature extraction one sentence at a time (words to all layers, the ids made
by each side's own code; ms per sentence), over `--sentences` sentences. The
table gives medians, the min-max over processes, the ratio to the original,
the process CPU time of a batch and of a sentence (all threads: steadier than
the clock on a shared host, where other jobs take the cores), peak RSS, and the
largest difference from the original's layers on the first batch (both start
from a zero LSTM state there). By default `ours_bf16` runs
only where the CPU computes bf16 natively (`--mixed_precision=auto`'s rule).
"""

import argparse
import json
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks.common import (add_cpu_isa_flag, contender_parser, median, peak_rss_mb,  # noqa: E402
                               print_table, run_contenders, spread, start_cpu_run)

CONTENDERS = ("ours_fp32", "ours_bf16", "bilm_fp32")
WORDS = 1000


def sentences(count, seed):
    """`count` sentences of 10-40 words from a list of `WORDS` made-up words of 2-12 letters."""
    import numpy as np
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocabulary = ["".join(rng.choice(letters, rng.integers(2, 13))) for _ in range(WORDS)]
    return [[vocabulary[i] for i in rng.integers(0, WORDS, rng.integers(10, 41))] for _ in range(count)]


def write_weights(preset, directory):
    """lm_weights.hdf5 (random: Glorot-scaled normal matrices, small biases),
    options.json and vocab.txt of `preset` in `directory`."""
    import numpy as np

    from families.elmo.bilm import BiLM
    from families.elmo.checkpoints import lm_weights
    from families.elmo.config import ELMoConfig
    config = ELMoConfig.from_preset(preset)
    bilm = BiLM(config)
    bilm.build()
    rng = np.random.default_rng(0)
    tensors = {}
    for name, value in lm_weights.datasets_of(bilm).items():
        scale = 0.1 if value.ndim == 1 else (1.0 if name == "char_embed" else np.prod(value.shape[:-1]) ** -0.5)
        tensors[name] = (rng.normal(size=value.shape) * scale).astype(np.float32)
    lm_weights.write_datasets(tensors, os.path.join(directory, lm_weights.WEIGHTS_FILE))
    config.to_json_file(os.path.join(directory, "options.json"))
    with open(os.path.join(directory, "vocab.txt"), "w") as f:
        f.write("<S>\n</S>\n<UNK>\n")


def _ours(directory, bf16):
    import keras
    import numpy as np
    import tensorflow as tf
    if bf16:
        keras.mixed_precision.set_dtype_policy("mixed_bfloat16")
    from families.elmo import characters
    from families.elmo.checkpoints.formats import load_lm_weights
    from families.elmo.config import ELMoConfig
    from families.elmo.encoder import ELMoEncoder
    config = ELMoConfig.from_json_file(os.path.join(directory, "options.json"))
    encoder = ELMoEncoder(config)
    load_lm_weights(encoder, directory)
    chars = config.char_cnn.max_characters_per_token

    @tf.function(input_signature=[tf.TensorSpec([None, None, chars], tf.int32), tf.TensorSpec([None, None], tf.int32)])
    def forward(ids, mask):
        layers = encoder({"input_char_ids": ids, "input_mask": mask}, training=False)["encoder_outputs"]
        return tf.cast(tf.stack(layers, 1), tf.float32)

    def prepare(batch):
        return characters.batch_char_ids(batch, max_characters=chars)

    return prepare, lambda prepared: np.asarray(forward(*prepared))


def _bilm(directory):
    from tests.families.elmo.original_tf1 import tf1  # first: TensorFlow 1 for the original
    from bilm import Batcher, BidirectionalLanguageModel
    options = os.path.join(directory, "options.json")
    with open(options) as f:
        chars = json.load(f)["char_cnn"]["max_characters_per_token"]
    batcher = Batcher(os.path.join(directory, "vocab.txt"), chars)
    ids = tf1.placeholder("int32", shape=(None, None, chars))
    layers = BidirectionalLanguageModel(options, os.path.join(directory, "lm_weights.hdf5"))(ids)["lm_embeddings"]
    session = tf1.Session()
    session.run(tf1.global_variables_initializer())
    return batcher.batch_sentences, lambda prepared: session.run(layers, {ids: prepared})


def worker(args):
    prepare, run = _bilm(args.weights) if args.worker == "bilm_fp32" else _ours(args.weights, args.worker == "ours_bf16")
    batch = prepare(sentences(args.batch, seed=1))
    first = run(batch)  # also the warm-up
    import numpy as np
    np.save(os.path.join(args.weights, f"first_{args.worker}.npy"), first)
    times, cpu = [], []
    for _ in range(args.steps):
        start, start_cpu = time.perf_counter(), time.process_time()
        run(batch)
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    singles, singles_cpu = [], []
    for sentence in sentences(args.sentences + 1, seed=2):
        start, start_cpu = time.perf_counter(), time.process_time()
        run(prepare([sentence]))
        singles.append(time.perf_counter() - start)
        singles_cpu.append(time.process_time() - start_cpu)
    print(json.dumps({"sentences_per_s": args.batch / median(times), "ms_per_sentence": 1e3 * median(singles[1:]),
                      "cpu_s_per_batch": median(cpu), "cpu_ms_per_sentence": 1e3 * median(singles_cpu[1:]),
                      "peak_rss_mb": peak_rss_mb()}))


def first_batch_difference(directory, name, batch):
    """Largest |ours - bilm| over the first batch's real tokens and every layer."""
    import numpy as np
    ours, theirs = (np.load(os.path.join(directory, f"first_{n}.npy")) for n in (name, "bilm_fp32"))
    real = np.zeros(theirs.shape[0:1] + theirs.shape[2:3], bool)
    for row, sentence in enumerate(sentences(batch, seed=1)):
        real[row, :len(sentence)] = True
    return float(np.abs((ours - theirs) * real[:, None, :, None]).max())


def main():
    parser = contender_parser(__doc__, (), batch=16, steps=3, repeats=3)
    parser.set_defaults(preset="elmo_original")
    parser.add_argument("--sentences", type=int, default=8, help="Sentences extracted one at a time.")
    parser.add_argument("--weights", help=argparse.SUPPRESS)
    add_cpu_isa_flag(parser)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    contenders = start_cpu_run(parser, args, CONTENDERS, CONTENDERS)
    with tempfile.TemporaryDirectory() as directory:
        write_weights(args.preset, directory)
        results = run_contenders(__file__, contenders, args.repeats, [
            f"--weights={directory}", f"--batch={args.batch}", f"--steps={args.steps}",
            f"--sentences={args.sentences}"])
        differences = {name: first_batch_difference(directory, name, args.batch)
                       for name in results if name != "bilm_fp32" and "bilm_fp32" in results}
    speed = {name: median(r["sentences_per_s"] for r in runs) for name, runs in results.items()}
    latency = {name: median(r["ms_per_sentence"] for r in runs) for name, runs in results.items()}
    cpu = {name: (median(r["cpu_s_per_batch"] for r in runs), median(r["cpu_ms_per_sentence"] for r in runs))
           for name, runs in results.items()}
    rows = []
    for name, runs in results.items():
        rows.append({
            "contender": name, "batch sent/s": f"{speed[name]:.2f}",
            "min-max": spread([r["sentences_per_s"] for r in runs], 2),
            "vs bilm": f"{speed[name] / speed['bilm_fp32']:.2f}x" if "bilm_fp32" in speed else "",
            "ms/sentence": f"{latency[name]:.0f}", "min-max ": spread([r["ms_per_sentence"] for r in runs], 0),
            "vs bilm ": f"{latency['bilm_fp32'] / latency[name]:.2f}x" if "bilm_fp32" in latency else "",
            "CPU s/batch": f"{cpu[name][0]:.2f}", "CPU ms/sentence": f"{cpu[name][1]:.0f}",
            "peak RSS MB": f"{max(r['peak_rss_mb'] for r in runs):.0f}",
            "max |diff|": f"{differences[name]:.1e}" if name in differences else ""})
    print(f"{args.preset}, batch {args.batch} sentences of 10-40 words, median of {args.repeats} processes "
          f"x {args.steps} batches; one sentence at a time over {args.sentences} sentences")
    print_table(rows, ["contender", "batch sent/s", "min-max", "vs bilm", "ms/sentence", "min-max ", "vs bilm ",
                       "CPU s/batch", "CPU ms/sentence", "peak RSS MB", "max |diff|"])


if __name__ == "__main__":
    main()
