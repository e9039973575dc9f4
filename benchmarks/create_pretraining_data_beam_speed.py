"""Speed and memory of create_pretraining_data.py as a Beam pipeline on the
DirectRunner against the local writer, with the same worker count, on the
same corpus and flags as benchmarks/create_pretraining_data_speed.py
(dupe_factor 5, max_seq_length 128, max_predictions_per_seq 20).

Each run is the command line in a subprocess (`--num_workers=N`, and for Beam
`--runner=DirectRunner`, which runs N worker processes); the two alternate
for --repeats rounds. Reported per run and as median and spread: instances
per wall second and per CPU second of the process tree (every process in it,
sampled every 0.1 s: getrusage misses workers that are not waited for), and
peak resident memory of the tree and of its largest process. The outputs of the first
round are compared shard by shard (they must be equal), and the statistics
the parity tests bound are printed for both: instances, full-length share,
random-next share, share under half length.

Needs requirements-beam.txt. Example:
  python benchmarks/create_pretraining_data_beam_speed.py --corpus_mb=10 --num_workers=2 --repeats=3
"""

import argparse
import glob
import os
import re
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks.common import host_description, median, spread  # noqa: E402
from benchmarks.create_pretraining_data_speed import COMMON_FLAGS, SHARED, build_corpus, run_measured  # noqa: E402

VOCAB = os.path.join(SHARED, "vocab", "bert_uncased_vocab.txt")
WRITERS = {"local": [], "beam DirectRunner": ["--runner=DirectRunner"]}


def run_writer(name, corpus, output, args, extra):
    result = run_measured(name, [
        sys.executable, os.path.join(ROOT, "create_pretraining_data.py"), f"--input_file={corpus}",
        f"--output_file={output}", f"--vocab_file={VOCAB}", f"--num_workers={args.num_workers}",
        f"--output_shards={args.output_shards}", *COMMON_FLAGS, *extra,
    ], os.path.dirname(output) + ".log")
    result["instances"] = int(re.search(r"instances (\d+), tokens", result["output"]).group(1))
    return result


def distribution(paths):
    from data.pretraining.record_statistics import read_examples, statistics
    from data.text.vocab import Vocab

    stats = statistics(read_examples(paths), Vocab.from_file(VOCAB).mask_id, max_seq_length=128)
    return {name: stats[name] for name in ("instances", "full_length_share", "random_next_share",
                                           "under_half_length_share")}


def figure(values):
    return f"{median(values):.0f} ({spread(values, 0)})"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus_mb", type=int, default=10, help="size of the corpus")
    parser.add_argument("--num_workers", type=int, default=2, help="worker processes of both writers")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of (local, Beam)")
    parser.add_argument("--output_shards", type=int, default=4)
    parser.add_argument("--work_dir", default=None, help="where corpora and outputs go (default: a temporary one)")
    args = parser.parse_args()
    print(host_description(), flush=True)
    with tempfile.TemporaryDirectory(dir=args.work_dir) as work:
        corpus = build_corpus(os.path.join(work, "corpus"), args.corpus_mb)
        runs = {name: [] for name in WRITERS}
        for round_ in range(args.repeats):
            for index, (name, extra) in enumerate(WRITERS.items()):
                output = os.path.join(work, f"out{index}", "out.tfrecord")
                os.makedirs(os.path.dirname(output), exist_ok=True)
                for path in glob.glob(output + "*"):
                    os.remove(path)
                result = run_writer(name, corpus, output, args, extra)
                runs[name].append(result)
                print(f"round {round_}, {name}: {result['instances']} instances, {result['wall_s']:.1f} s wall, "
                      f"{result['instances'] / result['wall_s']:.0f} instances/s, "
                      f"{result['instances'] / result['sampled_cpu_s']:.0f} instances/CPU-s, peak RSS "
                      f"{result['peak_tree_mib']:.0f} MiB tree, {result['peak_process_mib']:.0f} MiB largest",
                      flush=True)
            if round_ == 0:
                shards = [sorted(glob.glob(os.path.join(work, f"out{i}", "out.tfrecord-*"))) for i in range(2)]
                same = [open(a, "rb").read() == open(b, "rb").read() for a, b in zip(*shards)]
                print(f"shards identical: {all(same) and len(shards[0]) == len(shards[1])}", flush=True)
                for name, paths in zip(WRITERS, shards):
                    print(f"{name}: " + ", ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                                                  for k, v in distribution(paths).items()), flush=True)
        print(f"\n| writer, {args.num_workers} workers | instances/s wall | instances/CPU-s | "
              "peak RSS tree (MiB) | largest process (MiB) |")
        print("| --- | --- | --- | --- | --- |")
        for name, results in runs.items():
            print(f"| {name} | {figure([r['instances'] / r['wall_s'] for r in results])} | "
                  f"{figure([r['instances'] / r['sampled_cpu_s'] for r in results])} | "
                  f"{figure([r['peak_tree_mib'] for r in results])} | "
                  f"{figure([r['peak_process_mib'] for r in results])} |")


if __name__ == "__main__":
    main()
