"""TensorFlow's matmul throughput on an encoder's dense shapes, in float32 and
bfloat16, on this CPU: the time a forward pass's dense products need at the
speed TensorFlow's kernels give them alone. Set against a served export's
time (`benchmarks/serving.py`), it says how much of that time is the dense
products and so how far any change around them could take the export.

    python benchmarks/matmul_roofline.py --preset=bert_base_uncased --batch=32 --seq=128

Each of a layer's dense products, [batch x seq, H] x [H, H] (query, key, value
and the attention output: four), x [H, I] and [batch x seq, I] x [I, H], is
timed alone in a `tf.function`, median of `--repeats` calls after one warm-up;
the table gives each one's GFLOP/s and, per dtype, the time the
`num_hidden_layers` layers' products take for one batch and the sequences per
second that leaves at most (attention's batched products, softmax, LayerNorm,
GELU and tokenizing come on top).
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from benchmarks.common import host_description, median, print_table  # noqa: E402


def layer_products(hidden, intermediate):
    """(name, K, N, how many per layer) of an encoder layer's dense products."""
    return (("query, key, value, attention output", hidden, hidden, 4),
            ("intermediate", hidden, intermediate, 1), ("output", intermediate, hidden, 1))


def product_seconds(rows, k, n, dtype, repeats):
    """Median seconds of one [rows, k] x [k, n] product in `dtype`."""
    import tensorflow as tf
    x = tf.cast(tf.random.stateless_normal([rows, k], seed=[1, 2]), dtype)
    w = tf.cast(tf.random.stateless_normal([k, n], seed=[3, 4]), dtype)
    product = tf.function(tf.matmul)
    product(x, w).numpy()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        product(x, w).numpy()
        times.append(time.perf_counter() - start)
    return median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="bert_base_uncased")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--dtypes", default="float32,bfloat16")
    args = parser.parse_args()
    from families.bert.config import BertConfig
    config = BertConfig.from_preset(args.preset)
    rows, table = args.batch * args.seq, []
    print(host_description())
    for dtype in args.dtypes.split(","):
        layer_seconds = layer_flops = 0
        for name, k, n, count in layer_products(config.hidden_size, config.intermediate_size):
            seconds = product_seconds(rows, k, n, dtype, args.repeats)
            layer_seconds, layer_flops = layer_seconds + count * seconds, layer_flops + count * 2 * rows * k * n
            table.append({"dtype": dtype, "product": name, "shape": f"[{rows}x{k}]x[{k}x{n}]",
                          "ms": f"{1e3 * seconds:.2f}", "GFLOP/s": f"{2 * rows * k * n / seconds / 1e9:.0f}"})
        total = config.num_hidden_layers * layer_seconds
        table.append({"dtype": dtype, "product": f"all {config.num_hidden_layers} layers'", "ms": f"{1e3 * total:.1f}",
                      "GFLOP/s": f"{layer_flops / layer_seconds / 1e9:.0f}",
                      "seq/s at most": f"{args.batch / total:.1f}"})
    print(f"{args.preset}, batch {args.batch} x seq {args.seq}: dense products alone, median of {args.repeats}")
    print_table(table, ["dtype", "product", "shape", "ms", "GFLOP/s", "seq/s at most"])


if __name__ == "__main__":
    main()
