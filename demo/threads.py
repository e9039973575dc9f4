"""How a child TensorFlow process shares this machine's cores.

The main job's models are 64 wide: their ops are too small to split well over
threads. On a 2-core AMD EPYC, one pretraining step of the BERT main job ran
1.2x faster on two threads than on one, while two micro-batches of the step,
each on one thread side by side, ran 1.25-1.5x faster than the step on two
threads; two single-threaded fine-tuning runs side by side had 1.5x the
throughput of one after the other on both threads.
"""

import os


def cores():
    return os.cpu_count() or 1


def thread_pools(intra_op, inter_op):
    """Environment sizing a TensorFlow child's intra-op and inter-op thread pools."""
    return {"TF_NUM_INTRAOP_THREADS": str(max(1, intra_op)), "TF_NUM_INTEROP_THREADS": str(inter_op)}


def shared_out(processes):
    """Environment for one of `processes` TensorFlow children running at once: the
    cores shared out among them, no inter-op pool of their own."""
    return thread_pools(cores() // processes, 1)


def micro_batches_side_by_side(batch_size):
    """(runner flags, environment) that split each optimizer step into up to one
    micro-batch per core (at most 4), run at once, each op on the cores left to
    it. The trainer sums the micro-batches' gradients over the whole batch, so
    the arithmetic is that of one batch (up to summation order)."""
    parts = max(p for p in range(1, min(cores(), 4) + 1) if batch_size % p == 0)
    if parts == 1:
        return [], {}
    return [f"--grad_accum_steps={parts}"], thread_pools(cores() // parts, parts)
