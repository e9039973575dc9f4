"""Arms: what a row of a paper's table stands for here, and the fine-tuning
runs that produce it.

An arm is a system's name (its fine-tuning from the whole budget), with
`@first` or `@equal` (from its first checkpoint, or from the step every
pretrained system has a checkpoint at: the equal-steps view), or with
`+<layers>` (feature-based NER over those layers, `run_ner.py --feature_based`).
"""

import dataclasses

FINAL, STEP, FEATURES = "final", "step", "features"


@dataclasses.dataclass(frozen=True)
class Run:
    """One fine-tuning run: `system` on `task`, its `kind` (FINAL, STEP from the
    checkpoint at `detail` steps, FEATURES over `detail` layers), `seed` index."""

    system: str
    task: str
    kind: str = FINAL
    detail: object = None
    seed: int = 0

    @property
    def variant(self):
        return self.kind if self.kind == FINAL else f"{self.kind}_{self.detail}"

    @property
    def unit(self):
        return f"fine_tuning/{self.system}/{self.task}/{self.variant}/seed_{self.seed}"


def resolve(arm, budget):
    """(system, kind, detail) of `arm` under `budget` (a `comparisons.budget.Budget`):
    a checkpoint that is the system's last is its FINAL run."""
    if "+" in arm:
        system, layers = arm.split("+", 1)
        return system, FEATURES, layers
    if "@" in arm:
        system, point = arm.split("@", 1)
        if point not in ("first", "equal"):
            raise ValueError(f"arm {arm!r}: a checkpoint is @first or @equal")
        step = budget.interval if point == "first" else budget.equal_steps
        if system in budget.steps and step < budget.steps[system]:
            return system, STEP, step
        return system, FINAL, None
    return arm, FINAL, None


def checkpoint_runs(arms, budget, systems, task, seeds):
    """The STEP runs `arms` need on `task`, of the pretrained `systems` (names)."""
    wanted = {resolve(arm, budget) for arm in arms}
    return [Run(system, task, STEP, step, seed) for seed in range(seeds)
            for system, kind, step in sorted(wanted, key=str) if kind == STEP and system in systems]
