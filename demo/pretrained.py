"""What a family's half of the main job hands to the shared half: where the
pretrained model is, how the runners are told about its vocabulary and config,
and what the summary says about pretraining."""

import dataclasses


@dataclasses.dataclass
class Pretrained:
    checkpoint: str  # the pretraining output directory, for --init_checkpoint
    runner_flags: list  # vocabulary and config flags every runner of this family takes
    seq_length: int  # the fine-tuning and serving sequence length
    built: list  # (file or directory name in the work directory, what it is)
    summary: list  # lines on what pretraining reached


def read_key_values(path):
    """{key: float} of a `key = value` results file (eval_results.txt)."""
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                key, value = line.split("=", 1)
                values[key.strip()] = float(value)
    return values
