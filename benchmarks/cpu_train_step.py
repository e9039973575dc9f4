"""CPU pretraining step: ours (Keras 3 on TensorFlow) vs Hugging Face transformers (torch).

    python benchmarks/cpu_train_step.py --preset=bert_uncased_L-4_H-256_A-4 --batch=32 --repeats=3
    python benchmarks/cpu_train_step.py --preset=bert_base_uncased --batch=8 --repeats=3

One optimizer step of masked LM on `--predictions` positions per sequence +
NSP, AdamW, dropout on: ours is `benchmarks/train_step.py`'s step (the model,
loss and optimizer of `run_pretraining.py`), the peer `BertForPreTraining`
(`benchmarks/hf_torch.py`), same config, batch, sequence and masked positions.
Contenders: fp32, `_xla` (ours with `jit_compile`), `_no_onednn` (ours on
TensorFlow's own kernels, TF_ENABLE_ONEDNN_OPTS=0), and `_bf16` (our
`mixed_bfloat16`, torch bf16 autocast), the bf16 ones by default only where
the CPU computes bf16 natively; `--cpu_isa=avx2` computes as an AVX2-only
CPU would. Each runs in its own process, repeats
interleaved; the table shows the median over processes of each process's
median step, the min-max over processes, the ratio to HF fp32 and peak RSS.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks.common import (add_cpu_isa_flag, contender_parser, median, peak_rss_mb,  # noqa: E402
                               print_table, run_contenders, speed_rows, start_cpu_run)

CONTENDERS = ("ours_fp32", "ours_fp32_xla", "ours_fp32_no_onednn", "ours_bf16", "hf_torch_fp32",
              "hf_torch_bf16")
DEFAULT = ("ours_fp32", "ours_bf16", "hf_torch_fp32", "hf_torch_bf16")
BASELINE = "hf_torch_fp32"


def _runner(name, config, features, labels):
    if name.startswith("hf_torch"):
        from benchmarks.hf_torch import pretraining_step_runner
        return pretraining_step_runner(config, features, labels, "cpu", bf16=name.endswith("bf16"))
    from benchmarks.train_step import build, tf_step_runner
    options = argparse.Namespace(mixed_precision="bf16" if name.endswith("bf16") else "none",
                                 jit_compile=name.endswith("xla"))
    model, optimizer = build(config, options)
    return tf_step_runner(model, optimizer, features, labels, options)


def worker(args):
    if args.worker.endswith("no_onednn"):
        os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TensorFlow's own kernels instead of oneDNN's
    from benchmarks.train_step import synthetic_batch
    from families.bert.config import BertConfig
    config = BertConfig.from_preset(args.preset)
    features, labels = synthetic_batch(config, args.batch, args.seq, args.predictions)
    run = _runner(args.worker, config, features, labels)
    run(args.warmup_steps)  # trace / compile
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        loss = run(1)
        times.append(time.perf_counter() - start)
    print(json.dumps({"seq_per_s": args.batch / median(times), "peak_rss_mb": peak_rss_mb(),
                      "loss": loss}))


def main():
    parser = contender_parser(__doc__, (), batch=8, steps=3, repeats=3)
    add_cpu_isa_flag(parser)
    parser.add_argument("--predictions", type=int, default=20, help="Masked positions per sequence.")
    parser.add_argument("--warmup_steps", type=int, default=2, help="Untimed steps (tracing).")
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    contenders = start_cpu_run(parser, args, CONTENDERS, DEFAULT)
    passthrough = [f"--{k}={getattr(args, k)}" for k in
                   ("preset", "batch", "seq", "predictions", "steps", "warmup_steps")]
    results = run_contenders(__file__, contenders, args.repeats, passthrough)
    rows = speed_rows(results, [BASELINE])
    print(f"train step, {args.preset}, batch {args.batch}, seq {args.seq}, {args.predictions} masked "
          f"positions, median of {args.repeats} processes x median of {args.steps} steps")
    print_table(rows, ["contender", "seq/s", "min-max", f"vs {BASELINE}", "peak RSS MB"])


if __name__ == "__main__":
    main()
