"""The optimizer's update on TensorFlow, fused (one XLA kernel per variable,
`training.optimization.FUSED_UPDATE_SIZE`) against unfused (a TensorFlow op per
step of the rule), for variables of several sizes; the evidence for the size
threshold.

    python benchmarks/optimizer_update.py --shapes=64x256x8,512x512x8,40990x768x1
    TF_NUM_INTRAOP_THREADS=1 python benchmarks/optimizer_update.py   # one thread

Each shape `RxCxN` is N variables of [R, C]; one `optimizer.apply` over all of
them in a `tf.function`, AdamW (lr 1e-3, clipped to norm 1.0), after two
untimed calls; the median of `--repeats` rounds of `--steps` calls each, the
two paths alternated. Also prints the largest difference between the weights
the two paths reach (the same rule, up to XLA's operation order).
"""

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from benchmarks.common import host_description  # noqa: E402


def _timed(shapes, fused, steps):
    import keras
    import numpy as np
    import tensorflow as tf

    import training.optimization as optimization
    optimization.FUSED_UPDATE_SIZE = 1 if fused else 2 ** 62
    rng = np.random.default_rng(0)
    variables = [keras.Variable(rng.normal(size=s).astype("float32"), name=f"kernel_{i}")
                 for i, s in enumerate(shapes)]
    grads = [tf.constant(rng.normal(size=s).astype("float32")) for s in shapes]
    optimizer = optimization.OptimizerConfig(learning_rate=1e-3).build(1000, aggregate_gradients=False)
    optimizer.build(variables)
    step = tf.function(lambda: optimizer.apply(grads, variables))
    step(), step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    seconds = (time.perf_counter() - start) / steps
    return seconds, [v.numpy() for v in variables]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shapes", default="64x256x8,128x256x8,256x256x8,512x512x8,768x3072x2,40990x768x1")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(host_description(), f"\nTF_NUM_INTRAOP_THREADS={os.environ.get('TF_NUM_INTRAOP_THREADS', 'all')}")
    print(f"{'variables':<20} {'unfused ms':>11} {'fused ms':>9} {'ratio':>6}  max |weights difference|")
    for spec in args.shapes.split(","):
        rows, cols, count = (int(x) for x in spec.split("x"))
        shapes = [(rows, cols)] * count
        times, weights = {True: [], False: []}, {}
        for _ in range(args.repeats):
            for fused in (False, True):
                seconds, weights[fused] = _timed(shapes, fused, args.steps)
                times[fused].append(seconds)
        difference = max(float(abs(a - b).max()) for a, b in zip(weights[False], weights[True]))
        unfused, fused = (statistics.median(times[k]) * 1e3 for k in (False, True))
        print(f"{count} x [{rows}, {cols}]".ljust(20) + f" {unfused:11.2f} {fused:9.2f} {unfused / fused:5.2f}x"
              f"  {difference:.1e}")


if __name__ == "__main__":
    main()
