"""What a family's half of the main job (`python main.py --family=<name>`:
`<its home>/main_job.py`, with `pretrain(job, work, corpus, held_out, seed,
quick)`) hands to the shared half: where the pretrained model
is, how the runners are told about its vocabulary and config, and what the
summary says about pretraining. The shared half lends the family's its tools
as `job` (`demo.pretrained.FamilyJob`), so a family's home imports no
application."""

import dataclasses


@dataclasses.dataclass
class Pretrained:
    checkpoint: str  # the pretraining output directory, for --init_checkpoint
    runner_flags: list  # vocabulary and config flags every runner of this family takes
    seq_length: int  # the fine-tuning and serving sequence length
    built: list  # (file or directory name in the work directory, what it is)
    summary: list  # lines on what pretraining reached
    # The quick job's fine-tuning rate (the full job selects one): a feature-based family's task
    # BiLSTM and head start from scratch under a frozen encoder, and take a larger one than a
    # fine-tuned Transformer.
    learning_rate: float = 1e-4
