"""Speed and memory of create_pretraining_data.py against the TF Model
Garden's `official.nlp.data.create_pretraining_data` on the same corpus and
flags (dupe_factor 5, max_seq_length 128, max_predictions_per_seq 20).

The corpus is ../shared/data/corpus repeated to --corpus_mb in a temporary
directory. Each program runs in a subprocess; reported per program:
instances, wall seconds, CPU seconds of the whole process tree, instances
per wall second and per CPU second (the latter is robust to other load on
the machine), and peak resident memory, sampled every 0.1 s, of the process
tree (sum over its processes) and of its largest process.
Then ours alone on larger corpora (--memory_check_mb) shows whether its
memory stays bounded as the corpus grows.

Example:
  python benchmarks/create_pretraining_data_speed.py --corpus_mb=30 --num_workers=1,2 --memory_check_mb=100,300
"""

import glob
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

import psutil
from absl import app, flags

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")
COMMON_FLAGS = ["--dupe_factor=5", "--max_seq_length=128", "--max_predictions_per_seq=20", "--random_seed=12345"]

flags.DEFINE_integer("corpus_mb", 30, "Size of the corpus both programs run on.")
flags.DEFINE_list("num_workers", ["2"], "Worker processes for ours; several values run ours once per value.")
flags.DEFINE_list("memory_check_mb", ["100"], "Larger corpora to run ours on for the memory check.")
flags.DEFINE_bool("run_original", True, "Also run the Model Garden script (slow, memory-hungry).")
flags.DEFINE_string("work_dir", None, "Where to put corpora and outputs (default: a temporary directory).")
FLAGS = flags.FLAGS


def build_corpus(directory, megabytes):
    """Copies of the shared corpus files, whole files, until `megabytes` MB."""
    sources = sorted(glob.glob(os.path.join(SHARED, "corpus", "*.txt")))
    if not sources:
        sys.exit(f"shared corpus not found under {SHARED}/corpus")
    os.makedirs(directory, exist_ok=True)
    written, copy = 0, 0
    while written < megabytes * 1e6:
        for source in sources:
            data = open(source, "rb").read()
            with open(os.path.join(directory, f"{copy:04d}_{os.path.basename(source)}"), "wb") as f:
                f.write(data)
            written += len(data)
            copy += 1
    print(f"corpus: {copy} files, {written / 1e6:.1f} MB in {directory}", flush=True)
    return os.path.join(directory, "*.txt")


def run_measured(name, command, log_path):
    """Runs `command` with its output in `log_path`; returns the output, wall
    and CPU seconds and peak memory. `cpu_s` counts the processes the tree
    waits for (getrusage); `sampled_cpu_s` every process seen in the tree,
    sampled as memory is (Beam's worker processes are not waited for)."""
    print(f"[{name}] {' '.join(command)}", flush=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = last_report = time.time()
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        tree, peak_tree, peak_process, cpu_by_process = psutil.Process(process.pid), 0, 0, {}
        while process.poll() is None:
            sizes = _rss_by_process(tree, cpu_by_process)
            peak_tree, peak_process = max(peak_tree, sum(sizes)), max([peak_process, *sizes])
            if time.time() - last_report > 30:
                last_report = time.time()
                print(f"[{name}] {last_report - start:.0f} s, tree RSS now {sum(sizes) / 2**20:.0f} MiB", flush=True)
            time.sleep(0.1)
    wall = time.time() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = open(log_path).read()
    if process.returncode != 0:
        sys.exit(f"[{name}] failed with exit code {process.returncode}:\n{text[-3000:]}")
    return {
        "output": text,
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "sampled_cpu_s": sum(cpu_by_process.values()),
        "peak_tree_mib": peak_tree / 2**20,
        "peak_process_mib": peak_process / 2**20,
    }


def _rss_by_process(process, cpu_by_process):
    """Resident memory of a process and each of its descendants; their CPU
    seconds so far go to `cpu_by_process` ({(pid, start time): seconds})."""
    sizes = []
    for p in [process] + process.children(recursive=True):
        try:
            sizes.append(p.memory_info().rss)
            times = p.cpu_times()
            cpu_by_process[(p.pid, p.create_time())] = times.user + times.system
        except psutil.Error:
            pass
    return sizes


def run_ours(corpus, output_dir, workers):
    result = run_measured(
        "ours",
        [
            sys.executable,
            os.path.join(ROOT, "create_pretraining_data.py"),
            f"--input_file={corpus}",
            f"--output_file={os.path.join(output_dir, 'ours.tfrecord')}",
            f"--vocab_file={os.path.join(SHARED, 'vocab', 'bert_uncased_vocab.txt')}",
            f"--num_workers={workers}",
            "--output_shards=4",
            *COMMON_FLAGS,
        ],
        os.path.join(output_dir, "ours.log"),
    )
    result["instances"] = int(re.search(r"instances (\d+), tokens", result["output"]).group(1))
    return result


def run_original(corpus, output_dir):
    # The original takes a comma-separated list of globs; it writes one file.
    result = run_measured(
        "model garden",
        [
            sys.executable,
            "-m",
            "official.nlp.data.create_pretraining_data",
            f"--input_file={corpus}",
            f"--output_file={os.path.join(output_dir, 'original.tfrecord')}",
            f"--vocab_file={os.path.join(SHARED, 'vocab', 'bert_uncased_vocab.txt')}",
            *COMMON_FLAGS,
        ],
        os.path.join(output_dir, "original.log"),
    )
    result["instances"] = int(re.search(r"Wrote (\d+) total instances", result["output"]).group(1))
    return result


def report(name, result):
    print(
        f"{name:>28}: {result['instances']} instances, {result['wall_s']:.1f} s wall, {result['cpu_s']:.1f} s CPU, "
        f"{result['instances'] / result['wall_s']:.0f} instances/s wall, "
        f"{result['instances'] / result['cpu_s']:.0f} instances/CPU-s, "
        f"peak RSS {result['peak_tree_mib']:.0f} MiB (process tree), {result['peak_process_mib']:.0f} MiB (largest process)",
        flush=True,
    )


def main(argv):
    del argv
    worker_counts = [int(n) for n in FLAGS.num_workers]
    with tempfile.TemporaryDirectory(dir=FLAGS.work_dir) as work:
        corpus = build_corpus(os.path.join(work, f"corpus_{FLAGS.corpus_mb}mb"), FLAGS.corpus_mb)
        ours = {}
        for workers in worker_counts:
            ours[workers] = run_ours(corpus, work, workers)
            report(f"ours, {workers} worker(s)", ours[workers])
        if FLAGS.run_original:
            original = run_original(corpus, work)
            report("model garden", original)
            for workers, result in ours.items():
                wall = (result["instances"] / result["wall_s"]) / (original["instances"] / original["wall_s"])
                cpu = (result["instances"] / result["cpu_s"]) / (original["instances"] / original["cpu_s"])
                print(
                    f"speed-up with {workers} worker(s): {wall:.1f}x in instances/s wall, "
                    f"{cpu:.1f}x in instances per CPU second (goal: >= 10x wall with 2 workers)",
                    flush=True,
                )
        for megabytes in map(int, FLAGS.memory_check_mb):
            for path in glob.glob(os.path.join(work, "*.tfrecord*")):
                os.remove(path)
            larger = build_corpus(os.path.join(work, f"corpus_{megabytes}mb"), megabytes)
            report(f"ours {megabytes} MB, {max(worker_counts)} worker(s)", run_ours(larger, work, max(worker_counts)))


if __name__ == "__main__":
    app.run(main)
