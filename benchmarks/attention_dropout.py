"""Attention with dropout, forward + backward, alone: our fused Pallas kernel
against the same attention unfused and against torch's fused SDPA with dropout.

The pretraining step's attention core at BERT-Base's shape by default (batch
256, 12 heads of 64, seq 128, dropout 0.1, a padding mask), bf16, so the next
GPU session can tune `--block` and see the kernel's share before timing the
whole step with gpu_peers.py. Contenders, each in its own process:

    ours_fused      modeling/flash_attention.attention (Triton on a GPU, interpreted elsewhere)
    ours_unfused    the same arithmetic in plain JAX (scores, mask and probabilities in memory)
    jax_no_dropout  jax.nn.dot_product_attention without dropout (cuDNN on a GPU): the ceiling
    torch_sdpa      torch's scaled_dot_product_attention with dropout_p, on CUDA

    python benchmarks/attention_dropout.py --repeats=3             # --block=32 to force a tile size
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

from benchmarks.common import contender_parser, median, print_table, run_contenders  # noqa: E402

CONTENDERS = ("ours_fused", "ours_unfused", "jax_no_dropout", "torch_sdpa")
BASELINE = "torch_sdpa"


def _inputs(args):
    import numpy as np
    rng = np.random.default_rng(0)
    shape = (args.batch, args.seq, args.heads, args.head_size)
    qkv = [rng.standard_normal(shape).astype(np.float32) for _ in range(3)]
    lengths = rng.integers(args.seq // 2, args.seq + 1, args.batch)
    valid = np.arange(args.seq)[None, :] < lengths[:, None]  # [batch, key]
    return qkv, valid


def _jax_runner(name, args):
    import jax
    import jax.numpy as jnp

    from modeling import flash_attention
    (q, k, v), valid = _inputs(args)
    q, k, v = (jnp.asarray(x, jnp.bfloat16) for x in (q, k, v))
    mask = jnp.broadcast_to(jnp.asarray(valid)[:, None, :], (args.batch, args.seq, args.seq))

    def attend(q, k, v, seed):
        if name == "ours_fused":
            return flash_attention.attention(q, k, v, mask, seed, args.rate, block=args.block or None)
        if name == "ours_unfused":
            return flash_attention.reference_attention(q, k, v, mask, seed, args.rate)
        return jax.nn.dot_product_attention(q, k, v, mask=mask[:, None])

    def loss(q, k, v, seed):
        return jnp.sum(attend(q, k, v, seed).astype(jnp.float32))

    step = jax.jit(jax.grad(loss, (0, 1, 2)))

    def run(steps):
        for seed in range(steps):
            grads = step(q, k, v, seed)
        jax.block_until_ready(grads)

    def peak_mib():
        stats = jax.devices()[0].memory_stats() or {}
        return stats.get("peak_bytes_in_use", 0) / 2**20
    return run, peak_mib


def _torch_runner(args):
    import torch
    import torch.nn.functional as F
    device = torch.device("cuda")
    (q, k, v), valid = _inputs(args)
    # torch's layout is [batch, heads, seq, head_size].
    q, k, v = (torch.from_numpy(x).to(device, torch.bfloat16).transpose(1, 2).requires_grad_()
               for x in (q, k, v))
    mask = torch.from_numpy(valid).to(device)[:, None, None, :]

    def run(steps):
        for _ in range(steps):
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=args.rate)
            out.float().sum().backward()
        torch.cuda.synchronize()
    return run, lambda: torch.cuda.max_memory_allocated() / 2**20


def worker(args):
    run, peak_mib = _torch_runner(args) if args.worker == "torch_sdpa" else _jax_runner(args.worker, args)
    run(args.warmup_steps)
    start = time.perf_counter()
    run(args.steps)
    seconds = time.perf_counter() - start
    print(json.dumps({"ms": 1000 * seconds / args.steps, "peak_device_mib": peak_mib()}))


def main():
    parser = contender_parser(__doc__, CONTENDERS, batch=256, steps=20, repeats=1)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--head_size", type=int, default=64)
    parser.add_argument("--rate", type=float, default=0.1, help="Attention dropout.")
    parser.add_argument("--block", type=int, default=0,
                        help="ours_fused: rows per tile (0: the kernel's own choice, tile_rows).")
    parser.add_argument("--warmup_steps", type=int, default=3, help="Untimed steps (compilation).")
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    passthrough = [f"--{k}={getattr(args, k)}" for k in
                   ("batch", "seq", "heads", "head_size", "rate", "block", "steps", "warmup_steps")]
    results = run_contenders(__file__, args.contenders.split(","), args.repeats, passthrough)
    ms = {n: median(r["ms"] for r in rs) for n, rs in results.items()}
    rows = [{"contender": n, "ms fwd+bwd": f"{t:.2f}",
             f"speed vs {BASELINE}": f"{ms[BASELINE] / t:.2f}x" if BASELINE in ms else "",
             "peak device MiB": f"{max(r['peak_device_mib'] for r in results[n]):.0f}"}
            for n, t in ms.items()]
    print(f"attention fwd+bwd, batch {args.batch}, {args.heads} heads x {args.head_size}, seq {args.seq}, "
          f"dropout {args.rate}, bf16, block {args.block or 'tile_rows'}, median of {args.repeats} process(es) x "
          f"{args.steps} steps")
    print_table(rows, ["contender", "ms fwd+bwd", f"speed vs {BASELINE}", "peak device MiB"])


if __name__ == "__main__":
    main()
