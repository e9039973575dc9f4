"""Throughput of one BERT pretraining step: examples/s and model FLOPs utilisation.

Runs the same `BertPretrainer`, loss (`tasks.pretraining.losses`) and
optimizer (`training.optimization`) as `run_pretraining.py` on synthetic numpy
inputs, under whichever Keras backend is selected. With `KERAS_BACKEND=jax`
nothing imports TensorFlow, so it runs where TensorFlow is not installed.

Model FLOPs per step (forward + backward, no recomputation), with N the
encoder's non-embedding parameters, L layers, H hidden, S sequence length,
P masked positions per sequence and V the vocabulary:
    batch * (S * (6N + 12*L*H*S) + P * 6 * (H*H + V*H) + 6 * (H*H + 2*H))
i.e. 6N + 12·L·H·S per token for the encoder (attention scores included), plus
the masked-LM head at the P predicted positions only (its decoder is tied to
the word embeddings) and the pooler + NSP head once per sequence.

Example:
    KERAS_BACKEND=jax python benchmarks/train_step.py --preset=bert_base_uncased \\
        --batch_size=64 --seq_length=128 --steps=50

`--mixed_precision` defaults to `auto` (bf16 on GPUs, TPUs and CPUs with native
bf16, float32 elsewhere: `training/precision.py`); the result names the choice.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import keras  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.common import add_precision_flag, peak_rss_mb  # noqa: E402
from families.bert.config import PRESETS, BertConfig  # noqa: E402
from families.bert.encoder import BertEncoder  # noqa: E402
from families.bert.pretrainer import BertPretrainer  # noqa: E402
from training.optimization import OptimizerConfig  # noqa: E402
from training.precision import PRECISIONS, resolve  # noqa: E402
from tasks.pretraining.losses import pretraining_loss  # noqa: E402

# Dense bf16/fp16 tensor-core peaks (TFLOP/s) for MFU when --peak_tflops is not given.
KNOWN_PEAKS = {"H100": 989.0, "H200": 989.0, "A100": 312.0, "L4": 121.0, "A10": 125.0}


def model_flops_per_step(config, encoder_params, batch, seq, predictions):
    """Training FLOPs of one step; `encoder_params` is N, the Transformer layers' parameters."""
    h, layers, v = config.hidden_size, config.num_hidden_layers, config.vocab_size
    per_sequence = (seq * (6 * encoder_params + 12 * layers * h * seq)
                    + predictions * 6 * (h * h + v * h) + 6 * (h * h + 2 * h))
    return batch * per_sequence


def synthetic_batch(config, batch, seq, predictions, seed=0):
    rng = np.random.default_rng(seed)
    features = {
        "input_word_ids": rng.integers(0, config.vocab_size, (batch, seq), dtype=np.int32),
        "input_mask": np.ones((batch, seq), np.int32),
        "input_type_ids": (np.arange(seq) >= seq // 2).astype(np.int32)[None].repeat(batch, 0),
        "masked_lm_positions": np.sort(np.stack(
            [rng.choice(seq, predictions, replace=False) for _ in range(batch)]), -1).astype(np.int32),
    }
    labels = {"masked_lm_ids": rng.integers(0, config.vocab_size, (batch, predictions), dtype=np.int32),
              "masked_lm_weights": np.ones((batch, predictions), np.float32),
              "next_sentence_labels": rng.integers(0, 2, (batch,), dtype=np.int32)}
    return features, labels


def build(config, args, packed=False):
    """`args.mixed_precision` is a resolved one (none, bf16 or fp16), not `auto`."""
    keras.config.set_dtype_policy(PRECISIONS[args.mixed_precision])
    model = BertPretrainer(BertEncoder(config), "mlm_nsp", packed=packed)
    return model, build_optimizer(model, args.mixed_precision)


def build_optimizer(model, mixed_precision):
    """The pretraining optimizer (AdamW, lr 1e-4 after 10 warm-up steps) over
    `model`'s weights, loss-scaled for fp16."""
    optimizer = OptimizerConfig(learning_rate=1e-4, num_warmup_steps=10).build(10_000)
    if mixed_precision == "fp16":
        optimizer = keras.optimizers.LossScaleOptimizer(optimizer)
    optimizer.build(model.trainable_variables)
    return optimizer


def jax_step_runner(model, optimizer, features, loss_of_outputs, fp16=False):
    """A jitted stateless step over the model's and optimizer's variables.

    `loss_of_outputs(outputs)` gives the scalar loss, so any Keras model (ours
    or a peer's) trains through the same step. The state is donated to the step,
    as Keras's own JAX trainer does, so XLA updates weights and optimizer slots in
    place instead of holding two copies (BERT-Base fp32 on a CPU: peak RSS 7.1 GB
    without, 3.2 GB with); the variables see the new state after each `run`.
    """
    import functools

    import jax

    scale_index = optimizer.variables.index(optimizer.dynamic_scale) if fp16 else None

    def loss_fn(trainable, non_trainable, scale):
        outputs, non_trainable = model.stateless_call(trainable, non_trainable, features,
                                                      training=True)
        loss = loss_of_outputs(outputs)
        return loss * scale, (loss, non_trainable)

    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)

    @functools.partial(jax.jit, donate_argnums=0)
    def step(state):
        trainable, non_trainable, opt_vars = state
        scale = opt_vars[scale_index] if fp16 else 1.0
        (_, (loss, non_trainable)), grads = grad_fn(trainable, non_trainable, scale)
        trainable, opt_vars = optimizer.stateless_apply(opt_vars, grads, trainable)
        return loss, (trainable, non_trainable, opt_vars)

    variables = (model.trainable_variables, model.non_trainable_variables, optimizer.variables)
    state = tuple([v.value for v in group] for group in variables)

    def run(steps):
        nonlocal state
        loss = None
        for _ in range(steps):
            loss, state = step(state)
        for group, values in zip(variables, state):
            for variable, value in zip(group, values):
                variable.assign(value)
        return float(loss)  # Blocks until the device is done.

    return run


def tf_step_runner(model, optimizer, features, labels, args, loss_of_outputs=None):
    """The same step as a `tf.function`, optionally XLA-compiled; `loss_of_outputs(outputs)`
    gives the scalar loss (default: the pretraining loss of `labels`), so any
    Keras model trains through the same step."""
    import tensorflow as tf

    features = {k: tf.constant(v) for k, v in features.items()}
    labels = {k: tf.constant(v) for k, v in labels.items()}
    if loss_of_outputs is None:
        def loss_of_outputs(outputs):
            return tf.reduce_mean(pretraining_loss(outputs, labels))
    variables = model.trainable_variables
    fp16 = args.mixed_precision == "fp16"

    @tf.function(jit_compile=args.jit_compile)
    def step():
        with tf.GradientTape() as tape:
            loss = loss_of_outputs(model(features, training=True))
            scaled = optimizer.scale_loss(loss) if fp16 else loss
        optimizer.apply(tape.gradient(scaled, variables), variables)
        return loss

    def run(steps):
        loss = None
        for _ in range(steps):
            loss = step()
        return float(loss)

    return run


def device_name():
    if keras.backend.backend() == "jax":
        import jax
        return jax.devices()[0].device_kind
    import tensorflow as tf
    gpus = tf.config.list_physical_devices("GPU")
    return tf.config.experimental.get_device_details(gpus[0]).get("device_name", "GPU") if gpus else "CPU"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--preset", default="bert_base_uncased", choices=sorted(PRESETS))
    parser.add_argument("--bert_config_file", help="Instead of --preset.")
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--seq_length", type=int, default=128)
    parser.add_argument("--max_predictions", type=int, default=20, help="Masked positions per sequence.")
    add_precision_flag(parser)
    parser.add_argument("--jit_compile", action="store_true", help="TensorFlow backend: XLA.")
    parser.add_argument("--steps", type=int, default=20, help="Timed steps.")
    parser.add_argument("--warmup_steps", type=int, default=3, help="Untimed steps (compilation).")
    parser.add_argument("--peak_tflops", type=float, help="Device peak for MFU (default: known GPUs).")
    args = parser.parse_args(argv)
    args.mixed_precision, precision_reason = resolve(args.mixed_precision)

    config = (BertConfig.from_json_file(args.bert_config_file) if args.bert_config_file
              else BertConfig.from_preset(args.preset))
    model, optimizer = build(config, args)
    features, labels = synthetic_batch(config, args.batch_size, args.seq_length, args.max_predictions)
    if keras.backend.backend() == "jax":
        run = jax_step_runner(model, optimizer, features,
                              lambda outputs: keras.ops.mean(pretraining_loss(outputs, labels)),
                              fp16=args.mixed_precision == "fp16")
    else:
        run = tf_step_runner(model, optimizer, features, labels, args)

    first_loss = run(args.warmup_steps)
    start = time.perf_counter()
    last_loss = run(args.steps)
    seconds = time.perf_counter() - start

    device = device_name()
    encoder_params = sum(int(np.prod(v.shape)) for layer in model.encoder.transformer_layers
                         for v in layer.weights)
    flops = model_flops_per_step(config, encoder_params, args.batch_size, args.seq_length,
                                 args.max_predictions)
    achieved = flops * args.steps / seconds / 1e12
    peak = args.peak_tflops or next((p for k, p in KNOWN_PEAKS.items() if k in device), None)
    result = {
        "backend": keras.backend.backend(), "device": device, "model": args.bert_config_file or args.preset,
        "batch_size": args.batch_size, "seq_length": args.seq_length,
        "max_predictions": args.max_predictions, "mixed_precision": args.mixed_precision,
        "precision_reason": precision_reason,
        "jit_compile": args.jit_compile, "steps": args.steps,
        "examples_per_second": args.batch_size * args.steps / seconds,
        "step_ms": 1000 * seconds / args.steps,
        "model_tflops_per_step": flops / 1e12, "achieved_tflops": achieved,
        "mfu": achieved / peak if peak else None,
        "loss_first": first_loss, "loss_last": last_loss, "peak_rss_mb": peak_rss_mb(),
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
