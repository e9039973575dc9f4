"""How to run, shared by every runner: flags, `RunOptions` and the strategy.

Each `run_*.py` calls `define_flags()` once at import, the groups of
`training.flag_groups` it needs (model, text, fine-tuning flags) and its task's
own flags, then builds `RunOptions.from_flags()` and hands it to
`training.trainer.Trainer` (through `training.fine_tuning.fine_tune`).

Flags defined here (original names first, then additions):
`output_dir, save_checkpoints_steps, iterations_per_loop, use_tpu, tpu_name,
tpu_zone, gcp_project, master, num_tpu_cores`; `distribution_strategy, tpu,
mixed_precision, jit_compile, optimizer, grad_accum_steps, keep_checkpoint_max,
log_steps, seed`.
"""

import contextlib
import dataclasses
import os

import keras
import tensorflow as tf
from absl import flags

from training.optimization import OPTIMIZERS
from training.precision import CHOICES, PRECISIONS, resolve

STRATEGIES = ("one_device", "mirrored", "multi_worker_mirrored", "tpu")


def define_flags():
    """Defines the shared flags on `absl.flags.FLAGS` (once per process)."""
    if "distribution_strategy" in flags.FLAGS:
        return
    # Original google-research/bert flags.
    flags.DEFINE_string("output_dir", None, "Where checkpoints, summaries and results are written.")
    flags.DEFINE_integer("save_checkpoints_steps", 1000, "Steps between checkpoints.")
    flags.DEFINE_integer("iterations_per_loop", 1000,
                         "Most steps run inside one compiled loop between host round trips.")
    flags.DEFINE_bool("use_tpu", False, "Run on a TPU (same as --distribution_strategy=tpu).")
    flags.DEFINE_string("tpu_name", None, "TPU name or grpc:// address (same as --tpu).")
    flags.DEFINE_string("tpu_zone", None, "GCE zone of the TPU.")
    flags.DEFINE_string("gcp_project", None, "GCP project of the TPU.")
    flags.DEFINE_string("master", None, "TPU master address, if not found from --tpu_name.")
    flags.DEFINE_integer("num_tpu_cores", None, "Expected TPU cores; checked against the slice.")
    # Additions.
    flags.DEFINE_enum("distribution_strategy", None, STRATEGIES,
                      "Default one_device, or tpu with --use_tpu. multi_worker_mirrored reads "
                      "TF_CONFIG.")
    flags.DEFINE_string("tpu", None, "TPU name or address for --distribution_strategy=tpu.")
    flags.DEFINE_enum("mixed_precision", "auto", list(CHOICES),
                      "Compute dtype: auto (bf16 where the device computes it natively: GPU, TPU, "
                      "CPU with AMX or AVX512_BF16; float32 elsewhere), none (float32), bf16, or "
                      "fp16 with dynamic loss scaling.")
    flags.DEFINE_bool("jit_compile", False, "Compile the forward and backward pass with XLA.")
    flags.DEFINE_enum("optimizer", "adamw", OPTIMIZERS, "adamw (original BERT: Adam without bias "
                      "correction, epsilon 1e-6), lamb, or adam (bias-corrected, epsilon 1e-8: "
                      "the original GPT's).")
    flags.DEFINE_integer("grad_accum_steps", 1,
                         "Micro-batches per update; the train batch size is per update.")
    flags.DEFINE_integer("keep_checkpoint_max", 5, "Most recent checkpoints kept.")
    flags.DEFINE_integer("log_steps", 100, "Steps between progress logs and summaries.")
    flags.DEFINE_integer("seed", 12345, "Seed of initialisation, dropout and shuffling.")


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """Everything about running that is not the task: where, on what, how fast.

    `mixed_precision="auto"` is resolved on construction (`training.precision`), so
    the field always holds the precision the run uses: none, bf16 or fp16.
    """

    output_dir: str
    distribution_strategy: str = "one_device"
    tpu: str = ""
    tpu_zone: str = None
    gcp_project: str = None
    num_tpu_cores: int = None
    mixed_precision: str = "none"
    jit_compile: bool = False
    grad_accum_steps: int = 1
    save_checkpoints_steps: int = 1000
    keep_checkpoint_max: int = 5
    steps_per_loop: int = 1000
    log_steps: int = 100
    seed: int = 12345

    def __post_init__(self):
        if not self.output_dir:
            raise ValueError("output_dir is required")
        if self.distribution_strategy not in STRATEGIES:
            raise ValueError(f"distribution_strategy must be one of {STRATEGIES}, "
                             f"got {self.distribution_strategy!r}")
        precision, _ = resolve(self.mixed_precision,
                               distribution_strategy=self.distribution_strategy)
        object.__setattr__(self, "mixed_precision", precision)
        for name in ("grad_accum_steps", "save_checkpoints_steps", "keep_checkpoint_max",
                     "steps_per_loop", "log_steps"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")

    @classmethod
    def from_flags(cls, values=None):
        """Reads the flags of `define_flags()`, resolving the original TPU flags."""
        values = values or flags.FLAGS
        strategy = values.distribution_strategy
        if values.use_tpu:
            if strategy not in (None, "tpu"):
                raise ValueError(f"--use_tpu conflicts with --distribution_strategy={strategy}")
            strategy = "tpu"
        return cls(
            output_dir=values.output_dir, distribution_strategy=strategy or "one_device",
            tpu=values.tpu or values.tpu_name or values.master or "",
            tpu_zone=values.tpu_zone, gcp_project=values.gcp_project,
            num_tpu_cores=values.num_tpu_cores, mixed_precision=values.mixed_precision,
            jit_compile=values.jit_compile, grad_accum_steps=values.grad_accum_steps,
            save_checkpoints_steps=values.save_checkpoints_steps,
            keep_checkpoint_max=values.keep_checkpoint_max,
            steps_per_loop=values.iterations_per_loop, log_steps=values.log_steps,
            seed=values.seed)

    def create_strategy(self):
        """The `tf.distribute` strategy; call before any other TensorFlow work
        (multi-worker and TPU strategies must initialise the runtime)."""
        if self.distribution_strategy == "one_device":
            gpus = tf.config.list_logical_devices("GPU")
            return tf.distribute.OneDeviceStrategy(gpus[0].name if gpus else "/cpu:0")
        if self.distribution_strategy == "mirrored":
            return tf.distribute.MirroredStrategy()
        if self.distribution_strategy == "multi_worker_mirrored":
            if "TF_CONFIG" not in os.environ:
                raise ValueError("multi_worker_mirrored needs TF_CONFIG describing the cluster")
            return tf.distribute.MultiWorkerMirroredStrategy()
        resolver = tf.distribute.cluster_resolver.TPUClusterResolver(
            tpu=self.tpu, zone=self.tpu_zone, project=self.gcp_project)
        tf.config.experimental_connect_to_cluster(resolver)
        tf.tpu.experimental.initialize_tpu_system(resolver)
        strategy = tf.distribute.TPUStrategy(resolver)
        if self.num_tpu_cores and self.num_tpu_cores != strategy.num_replicas_in_sync:
            raise ValueError(f"--num_tpu_cores={self.num_tpu_cores} but the TPU has "
                             f"{strategy.num_replicas_in_sync} cores")
        return strategy

    @contextlib.contextmanager
    def dtype_policy(self):
        """Keras' global dtype policy set to `mixed_precision` while models are built."""
        previous = keras.config.dtype_policy()
        keras.config.set_dtype_policy(PRECISIONS[self.mixed_precision])
        try:
            yield
        finally:
            keras.config.set_dtype_policy(previous)

