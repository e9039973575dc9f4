"""Which compute precision a run uses; `auto` picks bf16 only where the device computes it natively.

GPUs, TPUs and CPUs with AMX (`amx_bf16`) or AVX512_BF16 (`avx512_bf16`) multiply
bf16 in hardware, and there `mixed_bfloat16` roughly doubles throughput. Other
CPUs emulate it: on an AMD EPYC (Zen 3, AVX2 only) BERT-Base inference ran 2-7x
slower in bf16 than in fp32, for us and for PyTorch alike. So `auto` resolves to
`bf16` on the former and to `none` (float32) elsewhere, and an explicit `bf16`
on an emulating CPU is honoured with a warning.

An export's precision (`--export_precision`, `resolve_export`) follows the same
rule: `auto` computes the exported encoder in bfloat16 where this host (or the
declared target) multiplies bf16 natively, in float32 elsewhere.

Imports no TensorFlow unless the Keras backend is TensorFlow, so JAX-only
benchmarks use it too.

Example:
    >>> resolve("auto", device="cpu", cpu_flags={"avx2", "fma"})
    ('none', 'CPU without native bf16 (no amx_bf16 or avx512_bf16 in /proc/cpuinfo flags): float32')
"""

from absl import logging

PRECISIONS = {"none": "float32", "bf16": "mixed_bfloat16", "fp16": "mixed_float16"}
CHOICES = ("auto", *PRECISIONS)
EXPORT_CHOICES = ("auto", "float32", "bfloat16")
NATIVE_BF16_CPU_FLAGS = ("amx_bf16", "avx512_bf16")
CPUINFO = "/proc/cpuinfo"

_logged = set()


def read_cpu_flags(cpuinfo=CPUINFO):
    """The `flags` of the first processor in `cpuinfo` (empty where there is no such file)."""
    try:
        with open(cpuinfo) as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def accelerator(distribution_strategy=None):
    """`tpu`, `gpu` or `cpu`: what the current Keras backend will compute on."""
    if distribution_strategy == "tpu":
        return "tpu"
    import keras
    backend = keras.backend.backend()
    if backend == "jax":
        import jax
        platform = jax.default_backend()
        return "tpu" if platform == "tpu" else "gpu" if platform in ("gpu", "cuda", "rocm") else "cpu"
    if backend == "torch":
        import torch
        return "gpu" if torch.cuda.is_available() else "cpu"
    import tensorflow as tf
    # Physical devices only: listing them does not initialise the runtime, so a
    # multi-worker or TPU strategy can still be created afterwards.
    if tf.config.list_physical_devices("TPU"):
        return "tpu"
    return "gpu" if tf.config.list_physical_devices("GPU") else "cpu"


def resolve(requested, device=None, cpu_flags=None, distribution_strategy=None):
    """(`none` | `bf16` | `fp16`, why) for a `--mixed_precision` value.

    `device` and `cpu_flags` default to this machine's (tests inject them).
    `auto` is logged once per process with its reason; an explicit `bf16` on a
    CPU that emulates it is kept, with a warning.
    """
    if requested not in CHOICES:
        raise ValueError(f"mixed_precision must be one of {list(CHOICES)}, got {requested!r}")
    if requested in ("none", "fp16"):
        return requested, f"--mixed_precision={requested} given"
    native, why = native_bf16(device or accelerator(distribution_strategy), cpu_flags)
    if requested == "bf16":
        if not native:
            _once(logging.warning, f"--mixed_precision=bf16 on a {why}: bf16 is emulated there and "
                                   "runs slower than float32 (use --mixed_precision=auto or none)")
        return "bf16", "--mixed_precision=bf16 given"
    precision = "bf16" if native else "none"
    reason = f"{why}: {PRECISIONS[precision]}"
    _once(logging.info, f"--mixed_precision=auto: {reason}")
    return precision, reason


def native_bf16(device, cpu_flags=None):
    """(whether `device` multiplies bf16 in hardware, why); a CPU's answer is in
    `cpu_flags` (default: this machine's)."""
    if device != "cpu":
        return True, f"{device.upper()} computes bf16 natively"
    flags = read_cpu_flags() if cpu_flags is None else cpu_flags
    found = sorted(set(NATIVE_BF16_CPU_FLAGS) & set(flags))
    if found:
        return True, f"CPU with native bf16 ({', '.join(found)})"
    return False, f"CPU without native bf16 (no {' or '.join(NATIVE_BF16_CPU_FLAGS)} in {CPUINFO} flags)"


def resolve_export(requested, device=None, cpu_flags=None):
    """(`float32` | `bfloat16`, why) for an `--export_precision` value: `auto` is
    bfloat16 where `device` (`cpu`, `gpu`, `tpu`; default: the exporting
    machine's) computes it natively, else float32. Exporting on one machine for
    another, name the precision."""
    if requested not in EXPORT_CHOICES:
        raise ValueError(f"export_precision must be one of {list(EXPORT_CHOICES)}, got {requested!r}")
    if requested != "auto":
        return requested, f"--export_precision={requested} given"
    native, why = native_bf16(device or accelerator(), cpu_flags)
    precision = "bfloat16" if native else "float32"
    _once(logging.info, f"--export_precision=auto: {why}: {precision}")
    return precision, f"{why}: {precision}"


def _once(log, message):
    if message not in _logged:
        _logged.add(message)
        log(message)
