"""GPU pretraining step and inference: ours (Keras 3 on JAX) vs Hugging Face
transformers (torch eager and torch.compile) and keras-hub (on JAX), side by side.

Needs only keras + JAX + numpy for ours, so it runs where TensorFlow cannot be
installed; the peers need torch + transformers and keras-hub.

    python benchmarks/gpu_peers.py --work=train --batch=256 --seq=128
    python benchmarks/gpu_peers.py --work=infer --batch=256 --seq=128

`train` is one optimizer step of masked LM on `--predictions` positions per
sequence (+ NSP where the model has it), bf16 mixed precision, AdamW, the
paper's dropout on. On a GPU our attention dropout runs in the fused kernel of
`modeling/flash_attention.py`; `ours_jax_softmax_dropout` is ours with the
explicit softmax instead, to measure what the kernel buys.
`infer` is the encoder's forward pass in bf16. Every contender runs in its own
process on the same random token ids, repeats interleaved; the table shows
median sequences/s, the ratio to HF torch.compile, model FLOPs utilisation
(see benchmarks/train_step.py and benchmarks/common.py for the formulas) and
peak device memory.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

from benchmarks.common import (contender_parser, inference_flops_per_token, median,  # noqa: E402
                               print_table, run_contenders)

CONTENDERS = ("ours_jax", "ours_jax_softmax_dropout", "keras_hub_jax", "hf_torch_eager",
              "hf_torch_compile")
BASELINE = "hf_torch_compile"
PEAK_TFLOPS = 989.0  # H100 dense bf16


def _numpy_batch(config, args):
    from benchmarks.train_step import synthetic_batch
    return synthetic_batch(config, args.batch, args.seq, args.predictions)


# --- ours and keras-hub (Keras 3 on JAX) -------------------------------------------------------

def _keras_forward(model, features, select=lambda outputs: outputs):
    """Jitted forward pass; `select` picks the outputs a caller gets (the rest are not computed)."""
    import jax
    forward = jax.jit(lambda tv, ntv: select(
        model.stateless_call(tv, ntv, features, training=False)[0]))
    trainable = [v.value for v in model.trainable_variables]
    non_trainable = [v.value for v in model.non_trainable_variables]

    def run(steps):
        out = None
        for _ in range(steps):
            out = forward(trainable, non_trainable)
        jax.block_until_ready(out)
    return run


def _keras_train(model, features, loss_of_outputs):
    from benchmarks.train_step import jax_step_runner
    from training.optimization import OptimizerConfig
    optimizer = OptimizerConfig(learning_rate=1e-4, num_warmup_steps=10).build(10_000)
    optimizer.build(model.trainable_variables)
    return jax_step_runner(model, optimizer, features, loss_of_outputs)


def _ours(config, args, fused_dropout=True):
    import keras
    from modeling.attention import SelfAttention
    from families.bert.encoder import BertEncoder
    from families.bert.pretrainer import BertPretrainer
    from tasks.pretraining.losses import pretraining_loss
    features, labels = _numpy_batch(config, args)
    if args.work == "infer":
        keras.config.set_dtype_policy("bfloat16")
        encoder = BertEncoder(config)
        inputs = {k: features[k] for k in ("input_word_ids", "input_mask", "input_type_ids")}
        # What HF's BertModel returns by default: the last layer and the pooled output.
        return _keras_forward(encoder, inputs,
                              lambda out: (out["sequence_output"], out["pooled_output"]))
    keras.config.set_dtype_policy("mixed_bfloat16")
    if not fused_dropout:
        SelfAttention.runs_fused_dropout = lambda self, seq_len: False
    model = BertPretrainer(BertEncoder(config), "mlm_nsp")
    return _keras_train(model, features, lambda out: keras.ops.mean(pretraining_loss(out, labels)))


def _keras_hub(config, args):
    import keras
    import keras_hub
    features, labels = _numpy_batch(config, args)
    keras.config.set_dtype_policy("bfloat16" if args.work == "infer" else "mixed_bfloat16")
    backbone = keras_hub.models.BertBackbone(
        vocabulary_size=config.vocab_size, num_layers=config.num_hidden_layers,
        num_heads=config.num_attention_heads, hidden_dim=config.hidden_size,
        intermediate_dim=config.intermediate_size, max_sequence_length=config.max_position_embeddings,
        num_segments=config.type_vocab_size)
    inputs = {"token_ids": features["input_word_ids"], "segment_ids": features["input_type_ids"],
              "padding_mask": features["input_mask"].astype(bool)}
    if args.work == "infer":
        return _keras_forward(backbone, inputs)
    model = keras_hub.models.BertMaskedLM(backbone, preprocessor=None)
    inputs["mask_positions"] = features["masked_lm_positions"]
    ids = labels["masked_lm_ids"]

    def loss(logits):
        return keras.ops.mean(keras.losses.sparse_categorical_crossentropy(
            ids, keras.ops.cast(logits, "float32"), from_logits=True))
    return _keras_train(model, inputs, loss)


# --- Hugging Face transformers (torch) ---------------------------------------------------------

def _hf(config, args, compiled):
    features, labels = _numpy_batch(config, args)
    if args.work == "train":
        from benchmarks.hf_torch import pretraining_step_runner
        return pretraining_step_runner(config, features, labels, "cuda", bf16=True, compiled=compiled)
    import torch
    import transformers
    device = torch.device("cuda")
    ids = torch.from_numpy(features["input_word_ids"]).long().to(device)
    mask = torch.from_numpy(features["input_mask"]).long().to(device)
    types = torch.from_numpy(features["input_type_ids"]).long().to(device)
    torch.set_grad_enabled(False)
    model = transformers.BertModel(transformers.BertConfig(**config.to_dict()))
    model = model.to(device, torch.bfloat16).eval()
    forward = torch.compile(model) if compiled else model

    def run(steps):
        for _ in range(steps):
            forward(input_ids=ids, attention_mask=mask, token_type_ids=types)
        torch.cuda.synchronize()
    return run


# --- harness -----------------------------------------------------------------------------------

def _peak_device_mib(name):
    if name.startswith("hf"):
        import torch
        return torch.cuda.max_memory_allocated() / 2**20
    import jax
    stats = jax.devices()[0].memory_stats() or {}
    return stats.get("peak_bytes_in_use", 0) / 2**20


def _attention_dropout(name, args):
    """Which attention-dropout path our training step took (after `_ours`)."""
    if not name.startswith("ours_jax") or args.work != "train":
        return ""
    from modeling.attention import SelfAttention
    from families.bert.config import BertConfig
    config = BertConfig.from_preset(args.preset)
    layer = SelfAttention(config.num_attention_heads,
                          config.hidden_size // config.num_attention_heads)
    return "fused kernel" if layer.runs_fused_dropout(args.seq) else "explicit softmax"


def worker(args):
    from families.bert.config import BertConfig
    config = BertConfig.from_preset(args.preset)
    name = args.worker
    if name.startswith("ours_jax"):
        run = _ours(config, args, fused_dropout=name == "ours_jax")
    elif name == "keras_hub_jax":
        run = _keras_hub(config, args)
    else:
        run = _hf(config, args, compiled=name.endswith("compile"))
    run(args.warmup_steps)
    start = time.perf_counter()
    run(args.steps)
    seconds = time.perf_counter() - start
    print(json.dumps({"seq_per_s": args.batch * args.steps / seconds,
                      "peak_device_mib": _peak_device_mib(name),
                      "attention_dropout": _attention_dropout(name, args)}))


def flops_per_sequence(config, args):
    if args.work == "infer":
        return inference_flops_per_token(config, args.seq) * args.seq
    from benchmarks.common import encoder_parameters
    from benchmarks.train_step import model_flops_per_step
    return model_flops_per_step(config, encoder_parameters(config), 1, args.seq, args.predictions)


def main():
    parser = contender_parser(__doc__, CONTENDERS, batch=256, steps=30, repeats=1)
    parser.add_argument("--work", choices=("train", "infer"), default="train")
    parser.add_argument("--predictions", type=int, default=20, help="Masked positions per sequence.")
    parser.add_argument("--warmup_steps", type=int, default=5, help="Untimed steps (compilation).")
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    from families.bert.config import BertConfig
    config = BertConfig.from_preset(args.preset)
    passthrough = [f"--{k}={getattr(args, k)}" for k in
                   ("work", "preset", "batch", "seq", "predictions", "steps", "warmup_steps")]
    results = run_contenders(__file__, args.contenders.split(","), args.repeats, passthrough)
    flops = flops_per_sequence(config, args)
    speed = {n: median(r["seq_per_s"] for r in rs) for n, rs in results.items()}
    rows = [{"contender": n, "seq/s": f"{s:.0f}",
             f"vs {BASELINE}": f"{s / speed[BASELINE]:.2f}x" if BASELINE in speed else "",
             "TFLOP/s": f"{s * flops / 1e12:.0f}", "MFU": f"{s * flops / 1e12 / PEAK_TFLOPS:.1%}",
             "peak device MiB": f"{max(r['peak_device_mib'] for r in results[n]):.0f}",
             "attention dropout": results[n][0]["attention_dropout"]}
            for n, s in speed.items()]
    print(f"{args.work}, {args.preset}, batch {args.batch}, seq {args.seq}, bf16, "
          f"median of {args.repeats} process(es) x {args.steps} steps")
    print_table(rows, ["contender", "seq/s", f"vs {BASELINE}", "TFLOP/s", "MFU", "peak device MiB",
                       "attention dropout"])


if __name__ == "__main__":
    main()
