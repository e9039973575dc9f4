"""OpenAI GPT on a CPU: ours (Keras 3 on TensorFlow) vs Hugging Face transformers
(`OpenAIGPTModel` / `OpenAIGPTLMHeadModel`, torch), inference and a training
step, at several sequence lengths, in one run.

    python benchmarks/gpt_speed.py --preset=gpt --seqs=128,512 --tokens=1024 --repeats=3

- inference: the encoder's forward pass (`GPTEncoder` against `OpenAIGPTModel`,
  dropout off), the final hidden states brought back to numpy;
- train: one optimizer step of the left-to-right LM loss over every position
  (`GPTLanguageModel` + `next_token_loss` against `OpenAIGPTLMHeadModel(labels=
  input_ids)`), AdamW (lr 1e-4, weight decay 0.01), gradients clipped to norm
  1.0, dropout on: `benchmarks/train_step.py`'s and `benchmarks/hf_torch.py`'s steps.

Each batch holds `--tokens` tokens (`--train_tokens` for the step): batch =
tokens / seq, random ids, no padding, the same for every contender.
Contenders: `ours_fp32`, `ours_bf16` (the `mixed_bfloat16` policy),
`hf_torch_fp32`, `hf_torch_bf16` (autocast); the bf16 ones by default only
where the CPU computes bf16 natively (`--mixed_precision=auto`'s rule);
`--cpu_isa=avx2` caps every contender at AVX2. Each runs in its own process
(its peak RSS its own), repeats interleaved; a table per mode and length
shows the median over processes of each process's median time per batch, in
sequences/s, the min-max over processes, the ratio to HF fp32 and HF bf16,
and the peak RSS.
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

CONTENDERS = ("ours_fp32", "ours_bf16", "hf_torch_fp32", "hf_torch_bf16")
MODES = ("inference", "train")
BASELINES = ("hf_torch_fp32", "hf_torch_bf16")


def _batch(config, batch, seq):
    import numpy as np
    rng = np.random.default_rng(0)
    return {"input_word_ids": rng.integers(0, config.n_vocab, (batch, seq)).astype(np.int32),
            "input_mask": np.ones((batch, seq), np.int32)}


def _ours(mode, config, inputs, bf16):
    import keras
    import tensorflow as tf
    keras.config.set_dtype_policy("mixed_bfloat16" if bf16 else "float32")
    if mode == "inference":
        from families.gpt.encoder import GPTEncoder
        encoder = GPTEncoder(config)
        forward = tf.function(lambda x: encoder(x, training=False)["sequence_output"])
        tensors = {k: tf.constant(v) for k, v in inputs.items()}
        return lambda steps: [forward(tensors).numpy() for _ in range(steps)]
    from benchmarks.train_step import build_optimizer, tf_step_runner
    from families.gpt.language_model import GPTLanguageModel
    from families.gpt.lm_loss import next_token_loss
    model = GPTLanguageModel(config)
    options = argparse.Namespace(mixed_precision="bf16" if bf16 else "none", jit_compile=False)
    return tf_step_runner(model, build_optimizer(model, options.mixed_precision), inputs, {}, options,
                          lambda outputs: tf.reduce_mean(next_token_loss(
                              outputs["lm_logits"], inputs["input_word_ids"], inputs["input_mask"])))


def _hf(mode, config, inputs, bf16):
    import torch
    import transformers
    from families.gpt.checkpoints.huggingface import hf_config
    hf = transformers.OpenAIGPTConfig(**{k: v for k, v in hf_config(config).items()
                                         if k != "architectures"})
    ids = torch.from_numpy(inputs["input_word_ids"]).long()
    mask = torch.from_numpy(inputs["input_mask"]).long()
    if mode == "train":
        from benchmarks.hf_torch import step_runner
        model = transformers.OpenAIGPTLMHeadModel(hf)
        return step_runner(model, {"input_ids": ids, "attention_mask": mask, "labels": ids},
                           torch.device("cpu"), bf16)
    torch.set_grad_enabled(False)
    model = transformers.OpenAIGPTModel(hf).eval()

    def run(steps):
        for _ in range(steps):
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                model(input_ids=ids, attention_mask=mask).last_hidden_state.float().numpy()
    return run


def worker(args):
    from families.gpt.config import GPTConfig
    config = GPTConfig.from_preset(args.preset)
    tokens = args.tokens if args.mode == "inference" else args.train_tokens
    batch = max(1, tokens // args.seq)
    inputs = _batch(config, batch, args.seq)
    bf16 = args.worker.endswith("bf16")
    run = (_ours if args.worker.startswith("ours") else _hf)(args.mode, config, inputs, bf16)
    run(args.warmup_steps)  # trace / warm up
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        run(1)
        times.append(time.perf_counter() - start)
    print(json.dumps({"seq_per_s": batch / median(times), "peak_rss_mb": peak_rss_mb(), "batch": batch}))


def main():
    parser = contender_parser(__doc__, (), batch=None, steps=3, repeats=3)
    add_cpu_isa_flag(parser)
    parser.set_defaults(preset="gpt", contenders=None)
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)  # a worker's
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--seqs", default="128,512", help="Sequence lengths, one table each.")
    parser.add_argument("--tokens", type=int, default=1024, help="Tokens per inference batch.")
    parser.add_argument("--train_tokens", type=int, default=512, help="Tokens per training batch.")
    parser.add_argument("--warmup_steps", type=int, default=1, help="Untimed batches (tracing).")
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    contenders = start_cpu_run(parser, args, CONTENDERS, CONTENDERS)
    for mode in args.modes.split(","):
        for seq in (int(s) for s in args.seqs.split(",")):
            passthrough = [f"--mode={mode}", f"--seq={seq}"] + [
                f"--{k}={getattr(args, k)}" for k in ("preset", "tokens", "train_tokens", "steps",
                                                       "warmup_steps")]
            results = run_contenders(__file__, contenders, args.repeats, passthrough)
            print_results(mode, seq, args, results)


def print_results(mode, seq, args, results):
    rows = speed_rows(results, BASELINES)
    batch = next(iter(results.values()))[0]["batch"] if results else "?"
    print(f"\n{mode}, {args.preset}, seq {seq}, batch {batch}, median of {args.repeats} processes "
          f"x median of {args.steps} batches")
    print_table(rows, ["contender", "seq/s", "min-max", *(f"vs {b}" for b in BASELINES),
                       "peak RSS MB"])


if __name__ == "__main__":
    main()
