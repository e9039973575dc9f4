"""Shared benchmark arithmetic: model FLOPs, peak memory, medians, ratio tables."""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys


def encoder_parameters(config):
    """N in the FLOPs formulas: every encoder weight except the embedding tables."""
    h, i, layers = config.hidden_size, config.intermediate_size, config.num_hidden_layers
    per_layer = 4 * h * h + 4 * h + 2 * h * i + i + h + 4 * h
    return layers * per_layer + h * h + h


def inference_flops_per_token(config, seq_length):
    """2N + 4·L·H·S: the dense weights once forward, plus attention scores and mixing."""
    return 2 * encoder_parameters(config) + 4 * config.num_hidden_layers * config.hidden_size * seq_length


def training_flops_per_token(config, seq_length):
    """6N + 12·L·H·S: forward and backward (twice the forward) of the same terms."""
    return 6 * encoder_parameters(config) + 12 * config.num_hidden_layers * config.hidden_size * seq_length


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_worker(script, args):
    """Runs `script --worker ...` in a fresh process (own peak RSS); returns its JSON line."""
    result = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"worker {args} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def add_precision_flag(parser):
    """`--mixed_precision`, default `auto`: resolve it with `training.precision.resolve`."""
    from training.precision import CHOICES
    parser.add_argument("--mixed_precision", default="auto", choices=CHOICES,
                        help="auto: bf16 where the device computes it natively, float32 elsewhere.")


def contender_parser(doc, contenders, batch, steps, repeats):
    """The flags every side-by-side script shares; `--worker` marks a contender's own process."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--preset", default="bert_base_uncased")
    parser.add_argument("--batch", type=int, default=batch)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--steps", type=int, default=steps, help="Timed batches per process.")
    parser.add_argument("--repeats", type=int, default=repeats, help="Processes per contender.")
    parser.add_argument("--contenders", default=",".join(contenders))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    return parser


# The libraries' own switches that make them compute as on a CPU without AVX-512
# (so without native bf16): oneDNN (TensorFlow's and torch's), MKL, torch's ATen kernels.
CPU_ISA_CAPS = {"native": {},
                "avx2": {"ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2",
                         "ATEN_CPU_CAPABILITY": "avx2"}}


def add_cpu_isa_flag(parser):
    parser.add_argument("--cpu_isa", default="native", choices=sorted(CPU_ISA_CAPS),
                        help="avx2: every contender computes as on an AVX2-only CPU (the ISA caps "
                             "of oneDNN, MKL and torch), to measure that host's case on this one.")


def cap_cpu_isa(cpu_isa):
    """Sets the ISA caps in this process's environment (its workers inherit them); describes them."""
    os.environ.update(CPU_ISA_CAPS[cpu_isa])
    caps = " ".join(f"{key}={value}" for key, value in CPU_ISA_CAPS[cpu_isa].items())
    return f"ISA capped at {cpu_isa}: {caps}" if caps else "ISA: native"


def cpu_default_contenders(contenders, cpu_isa="native"):
    """The bf16 contenders only where this CPU computes bf16 natively (`--mixed_precision=auto`'s rule)."""
    from training.precision import resolve
    native = cpu_isa == "native" and resolve("auto", device="cpu")[0] == "bf16"
    return tuple(name for name in contenders if native or "bf16" not in name)


def chosen_cpu_contenders(args, default):
    """`--contenders` if given, else `default` less the bf16 ones where bf16 is not native here."""
    return args.contenders.split(",") if args.contenders else cpu_default_contenders(default, args.cpu_isa)


def start_cpu_run(parser, args, known, default):
    """The contenders of this run (see `chosen_cpu_contenders`), after printing
    the host and ISA caps that every figure is quoted with."""
    contenders = chosen_cpu_contenders(args, default)
    unknown = set(contenders) - set(known)
    if unknown:
        parser.error(f"unknown contenders {sorted(unknown)}; known: {', '.join(known)}")
    print(host_description())
    print(cap_cpu_isa(args.cpu_isa))
    return contenders


def run_contenders(script, contenders, repeats, worker_args):
    """Each contender `repeats` times, interleaved, each run in its own process.

    Returns {name: [result, ...]} for the contenders that ran; a failing one is
    reported on stderr so that the others still give a table.
    """
    results = {name: [] for name in contenders}
    for _ in range(repeats):
        for name in contenders:
            try:
                results[name].append(run_worker(script, [f"--worker={name}", *worker_args]))
            except RuntimeError as error:
                print(f"{name} failed: {error}", file=sys.stderr)
    return {name: runs for name, runs in results.items() if runs}


def median(values):
    return statistics.median(values)


def spread(values, digits=1):
    """`min-max` of per-process figures: how far the shared host moved them."""
    return f"{min(values):.{digits}f}-{max(values):.{digits}f}"


def speed_rows(results, baselines):
    """Table rows of a CPU run's workers (`seq_per_s`, `peak_rss_mb` each): the
    median over processes, their min-max, the ratio to each baseline that ran,
    the peak RSS."""
    runs = {name: [r["seq_per_s"] for r in rs] for name, rs in results.items()}
    speed = {name: median(values) for name, values in runs.items()}
    return [{"contender": name, "seq/s": f"{speed[name]:.2f}", "min-max": spread(runs[name], 2),
             **{f"vs {b}": f"{speed[name] / speed[b]:.2f}x" for b in baselines if b in speed},
             "peak RSS MB": f"{max(r['peak_rss_mb'] for r in results[name]):.0f}"}
            for name in speed]


def host_description():
    """lscpu's model name and flags: which CPU a figure comes from (bf16 native or emulated)."""
    try:
        lines = subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
    except OSError:
        return "lscpu not available"
    wanted = ("Model name", "CPU(s)", "Flags")
    return "\n".join(line for line in lines if line.split(":")[0].strip() in wanted)


def print_table(rows, columns):
    widths = [max([len(str(c))] + [len(str(r.get(c, ""))) for r in rows]) for c in columns]
    print("  ".join(str(c).ljust(w) for c, w in zip(columns, widths)))
    for row in rows:
        print("  ".join(str(row.get(c, "")).ljust(w) for c, w in zip(columns, widths)))
