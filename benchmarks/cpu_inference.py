"""CPU inference throughput: ours (Keras 3 on TensorFlow, fp32 and bf16) vs Hugging
Face transformers (torch fp32, bf16 autocast, bf16 weights) and the TF Model Garden encoder.

    python benchmarks/cpu_inference.py --preset=bert_base_uncased --batch=32 --seq=128 --repeats=3

`ours_bf16_serving` is the inference-only set-up: bf16 weights, and oneDNN told
the weights never change (TF_ONEDNN_ASSUME_FROZEN_WEIGHTS=1) so it keeps them in
its AMX layout. `ours_fp32_xla` compiles the forward pass with XLA,
`ours_fp32_no_onednn` runs TensorFlow's own kernels (TF_ENABLE_ONEDNN_OPTS=0).
Every contender runs in its own process (so peak RSS is its own), on the same
random token ids, repeats interleaved; the table shows median sequences/s, the
min-max over processes, ratios to the Hugging Face figures, achieved TFLOP/s
and peak RSS. By default the bf16 contenders run only where the CPU computes
bf16 natively (AMX or AVX512_BF16), as `--mixed_precision=auto` would choose.
`--cpu_isa=avx2` caps oneDNN, MKL and torch at AVX2 for every contender: an
AVX2-only CPU's case measured on a newer one.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks.common import (add_cpu_isa_flag, contender_parser,  # noqa: E402
                               inference_flops_per_token, median, peak_rss_mb, print_table,
                               run_contenders, spread, start_cpu_run)

CONTENDERS = ("ours_fp32", "ours_fp32_xla", "ours_fp32_no_onednn", "ours_bf16", "ours_bf16_serving",
              "ours_bf16_rewrite", "hf_torch_fp32", "hf_torch_bf16", "hf_torch_bf16_weights",
              "model_garden_fp32")
DEFAULT = tuple(name for name in CONTENDERS if not name.startswith("ours_fp32_"))


def _inputs(config, batch, seq):
    import numpy as np
    rng = np.random.default_rng(0)
    return {"input_word_ids": rng.integers(1000, config.vocab_size, (batch, seq)).astype(np.int32),
            "input_mask": np.ones((batch, seq), np.int32),
            "input_type_ids": np.zeros((batch, seq), np.int32)}


def _ours(config, inputs, mode):
    if mode == "bf16_serving":
        # An inference-only process: oneDNN may keep the weights it reorders for AMX,
        # since they never change (never set this where a model trains).
        os.environ["TF_ONEDNN_ASSUME_FROZEN_WEIGHTS"] = "1"
    import keras
    import tensorflow as tf
    if mode == "bf16":
        keras.mixed_precision.set_dtype_policy("mixed_bfloat16")
    if mode == "bf16_serving":
        keras.mixed_precision.set_dtype_policy("bfloat16")
    if mode == "bf16_rewrite":
        tf.config.optimizer.set_experimental_options({"auto_mixed_precision_onednn_bfloat16": True})
    from families.bert.encoder import BertEncoder
    encoder = BertEncoder(config)
    forward = tf.function(lambda x: encoder(x, training=False)["sequence_output"],
                          jit_compile=mode == "fp32_xla")
    tensors = {k: tf.constant(v) for k, v in inputs.items()}
    return lambda: forward(tensors).numpy()


def _hf(config, inputs, bf16, bf16_weights=False):
    import torch
    import transformers
    torch.set_grad_enabled(False)
    model = transformers.BertModel(transformers.BertConfig(**config.to_dict()), add_pooling_layer=True)
    model.eval()
    if bf16_weights:
        model = model.to(torch.bfloat16)
    tensors = {"input_ids": torch.from_numpy(inputs["input_word_ids"]).long(),
               "attention_mask": torch.from_numpy(inputs["input_mask"]).long(),
               "token_type_ids": torch.from_numpy(inputs["input_type_ids"]).long()}

    def run():
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            return model(**tensors).last_hidden_state.float().numpy()
    return run


def _model_garden(config, inputs):
    import tensorflow as tf
    import tf_keras
    from official.nlp.modeling import networks
    encoder = networks.BertEncoder(
        vocab_size=config.vocab_size, hidden_size=config.hidden_size,
        num_layers=config.num_hidden_layers, num_attention_heads=config.num_attention_heads,
        max_sequence_length=config.max_position_embeddings, type_vocab_size=config.type_vocab_size,
        inner_dim=config.intermediate_size,
        inner_activation=lambda x: tf_keras.activations.gelu(x, approximate=False), dict_outputs=True)
    forward = tf.function(lambda x: encoder(x, training=False)["sequence_output"])
    tensors = {k: tf.constant(v) for k, v in inputs.items()}
    return lambda: forward(tensors).numpy()


def worker(args):
    if args.worker.endswith("no_onednn"):
        os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"  # TensorFlow's own kernels instead of oneDNN's
    from families.bert.config import BertConfig
    config = BertConfig.from_preset(args.preset)
    inputs = _inputs(config, args.batch, args.seq)
    name = args.worker
    if name.startswith("ours"):
        run = _ours(config, inputs, name[len("ours_"):])
    elif name.startswith("hf_torch"):
        run = _hf(config, inputs, bf16=name.endswith("bf16"), bf16_weights=name.endswith("weights"))
    else:
        run = _model_garden(config, inputs)
    run()  # trace / warm up
    times = []
    for _ in range(args.steps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    print(json.dumps({"seq_per_s": args.batch / median(times), "peak_rss_mb": peak_rss_mb()}))


def main():
    parser = contender_parser(__doc__, (), batch=32, steps=5, repeats=3)
    add_cpu_isa_flag(parser)
    args = parser.parse_args()
    if args.worker:
        return worker(args)
    from families.bert.config import BertConfig
    config = BertConfig.from_preset(args.preset)
    contenders = start_cpu_run(parser, args, CONTENDERS, DEFAULT)
    results = run_contenders(__file__, contenders, args.repeats, [
        f"--preset={args.preset}", f"--batch={args.batch}", f"--seq={args.seq}", f"--steps={args.steps}"])
    flops_per_seq = inference_flops_per_token(config, args.seq) * args.seq
    rows, speed = [], {name: median(r["seq_per_s"] for r in runs) for name, runs in results.items()}
    for name in speed:
        rows.append({
            "contender": name, "seq/s": f"{speed[name]:.1f}",
            "min-max": spread([r["seq_per_s"] for r in results[name]]),
            "vs hf_torch_fp32": f"{speed[name] / speed['hf_torch_fp32']:.2f}x" if "hf_torch_fp32" in speed else "",
            "vs hf_torch_bf16": f"{speed[name] / speed['hf_torch_bf16']:.2f}x" if "hf_torch_bf16" in speed else "",
            "TFLOP/s": f"{speed[name] * flops_per_seq / 1e12:.2f}",
            "peak RSS MB": f"{max(r['peak_rss_mb'] for r in results[name]):.0f}"})
    print(f"{args.preset}, batch {args.batch}, seq {args.seq}, median of {args.repeats} processes "
          f"x {args.steps} batches")
    print_table(rows, ["contender", "seq/s", "min-max", "vs hf_torch_fp32", "vs hf_torch_bf16", "TFLOP/s",
                       "peak RSS MB"])


if __name__ == "__main__":
    main()
