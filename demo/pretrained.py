"""What the shared half of the main job lends a family's half
(`families/<name>/main_job.py`, which hands back a `contracts.main_job.Pretrained`):
the stage runner, the pretraining and held-out scoring stages, and readers of
what the runners leave."""

from demo.progress import last_logged_values
from demo.threads import micro_batches_side_by_side


def read_key_values(path):
    """{key: float} of a `key = value` results file (eval_results.txt)."""
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                key, value = line.split("=", 1)
                values[key.strip()] = float(value)
    return values


def pretrain_and_score(stage, path, model_flags, batch_size, num_steps, optimizer_flags=None,
                       micro_batches=False, learning_rate=2e-3):
    """The pretraining stage (`path["pretraining.tfrecord"]` -> `path["pretrain"]`; by default
    `learning_rate` and 10% warmup, else `optimizer_flags`; `micro_batches`: each step's micro-batches
    side by side, `demo.threads`) and the scoring of its last checkpoint on
    `path["held_out.tfrecord"]`: modules pretraining never saw, so memorised training text does
    not count."""
    if optimizer_flags is None:
        optimizer_flags = [f"--num_warmup_steps={num_steps // 10}", f"--learning_rate={learning_rate}"]
    split_flags, threads = micro_batches_side_by_side(batch_size) if micro_batches else ([], {})
    stage("pretraining", [
        "run_pretraining.py", *model_flags, f"--input_file={path['pretraining.tfrecord']}",
        f"--output_dir={path['pretrain']}", "--do_train", f"--train_batch_size={batch_size}", *split_flags,
        f"--num_train_steps={num_steps}", *optimizer_flags, f"--save_checkpoints_steps={num_steps}",
        f"--log_steps={max(num_steps // 20, 1)}"], batch_size, threads)
    stage("held-out scoring", [
        "run_pretraining.py", *model_flags, f"--input_file={path['held_out.tfrecord']}",
        f"--init_checkpoint={path['pretrain']}", f"--output_dir={path['pretrain_eval']}", "--do_eval",
        "--eval_batch_size=100", "--max_eval_steps=1000"])


class FamilyJob:
    """The tools a family's half of the main job gets as `job`, so that its
    home imports no application: `stage(name, args, batch_size=None,
    threads=None)` runs one stage, `pretrain_and_score(path, model_flags,
    batch_size, num_steps, ...)` the pretraining and held-out scoring stages,
    `read_key_values(path)` reads a results file, `last_logged_values(log_path)`
    the trainer's last progress line of a stage's log."""

    read_key_values = staticmethod(read_key_values)
    last_logged_values = staticmethod(last_logged_values)

    def __init__(self, stage):
        self.stage = stage

    def pretrain_and_score(self, path, model_flags, batch_size, num_steps, **options):
        pretrain_and_score(self.stage, path, model_flags, batch_size, num_steps, **options)
