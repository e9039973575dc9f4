"""What a family's half of the main job hands to the shared half: where the
pretrained model is, how the runners are told about its vocabulary and config,
and what the summary says about pretraining."""

import dataclasses

from demo.threads import micro_batches_side_by_side


@dataclasses.dataclass
class Pretrained:
    checkpoint: str  # the pretraining output directory, for --init_checkpoint
    runner_flags: list  # vocabulary and config flags every runner of this family takes
    seq_length: int  # the fine-tuning and serving sequence length
    built: list  # (file or directory name in the work directory, what it is)
    summary: list  # lines on what pretraining reached
    # Fine-tuning's peak rate: a feature-based family's task BiLSTM and head start from scratch
    # under a frozen encoder, and take a larger one than a fine-tuned Transformer.
    learning_rate: float = 1e-4


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
