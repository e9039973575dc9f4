"""Tokenizer throughput on the same text: our GraphTokenizer (batched, in a
tf.function), our Python FullTokenizer, the original bert.tokenization
FullTokenizer, and Hugging Face's Rust WordPiece (tokenizers and
transformers.BertTokenizerFast), all uncased with the released vocab.

The text is ../shared/data/corpus/*.txt (else the test fixture), repeated to
--megabytes. Reported: median of --repeats runs of wall and CPU seconds (all
threads of the process; steadier than wall time on a shared machine), lines/s
and MB/s of wall time, and the speed relative to the original.

Example:
  python benchmarks/tokenizer_throughput.py --megabytes=2 --batch_size=1024
"""

import argparse
import glob
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

from data.text.graph_tokenizer import GraphTokenizer  # noqa: E402
from data.text.tokenization import FullTokenizer  # noqa: E402
from tests.references import minilm_dir, original_full_tokenizer  # noqa: E402


def load_lines(megabytes):
    """Non-empty lines of the shared corpus (or the fixture), repeated to `megabytes` MB."""
    files = sorted(glob.glob(os.path.join(os.path.dirname(ROOT), "shared", "data", "corpus", "*.txt")))
    files = files or [os.path.join(ROOT, "tests", "fixtures", "multilingual.txt")]
    source = [line for f in files for line in open(f, encoding="utf-8").read().split("\n") if line.strip()]
    lines, size = [], 0
    while size < megabytes * 1e6:
        line = source[len(lines) % len(source)]
        lines.append(line)
        size += len(line.encode("utf-8"))
    return lines, size


def graph_runner(vocab_file, lines, batch_size):
    tokenizer = GraphTokenizer(vocab_file, do_lower_case=True)
    batches = [tf.constant(lines[i:i + batch_size]) for i in range(0, len(lines), batch_size)]
    tokenizer.tokenize(batches[0])  # trace once, outside the timing

    def run():
        for batch in batches:
            tokenizer.tokenize(batch).flat_values.numpy()
    return run


def runners(vocab_file, lines, batch_size):
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertTokenizerFast

    ours = FullTokenizer(vocab_file, do_lower_case=True)
    original = original_full_tokenizer(vocab_file, do_lower_case=True)
    hf = BertWordPieceTokenizer(vocab_file, lowercase=True)
    hf_fast = BertTokenizerFast(vocab_file=vocab_file, do_lower_case=True)
    return {
        "graph (ours, tf.function)": graph_runner(vocab_file, lines, batch_size),
        "python (ours)": lambda: [ours.encode(line) for line in lines],
        "original bert.tokenization": lambda: [
            original.convert_tokens_to_ids(original.tokenize(line)) for line in lines],
        "HF tokenizers BertWordPiece": lambda: hf.encode_batch(lines, add_special_tokens=False),
        "HF BertTokenizerFast": lambda: hf_fast(lines, add_special_tokens=False),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=float, default=2.0)
    parser.add_argument("--batch_size", type=int, default=1024, help="lines per GraphTokenizer call")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    vocab_file = os.path.join(minilm_dir(), "vocab.txt")
    lines, size = load_lines(args.megabytes)
    print(f"{len(lines)} lines, {size / 1e6:.2f} MB, median of {args.repeats}")
    results = {}
    for name, run in runners(vocab_file, lines, args.batch_size).items():
        wall, cpu = [], []
        for _ in range(args.repeats):
            start, start_cpu = time.perf_counter(), time.process_time()
            run()
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
        results[name] = statistics.median(wall), statistics.median(cpu)
    base_wall, base_cpu = results["original bert.tokenization"]
    print(f"{'tokenizer':28} {'wall s':>7} {'cpu s':>7} {'lines/s':>8} {'MB/s':>6} {'x orig wall':>11} {'x orig cpu':>10}")
    for name, (wall, cpu) in results.items():
        print(f"{name:28} {wall:7.2f} {cpu:7.2f} {len(lines) / wall:8.0f} {size / 1e6 / wall:6.2f} "
              f"{base_wall / wall:11.1f} {base_cpu / cpu:10.1f}")


if __name__ == "__main__":
    main()
