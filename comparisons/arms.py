"""Arms: what a row of a paper's table stands for here, and the runs that
produce it.

An arm is a system's name (fine-tuned from its whole budget), with `@equal`
(from a pretraining run as long as the shortest of the equal-steps systems,
so that every such system ends at the same step and the same point of its
learning-rate schedule), `@first` (that run's first checkpoint, half way),
or with `+<layers>` (feature-based NER over those layers, `run_ner.py
--feature_based`).
"""

import dataclasses

FINAL, EQUAL, FIRST, FEATURES = "final", "equal", "first", "features"


@dataclasses.dataclass(frozen=True)
class Arm:
    """`system` fine-tuned as `kind` (FINAL, EQUAL, FIRST, FEATURES over `layers`)."""

    system: str
    kind: str = FINAL
    layers: str = None

    @classmethod
    def parse(cls, arm):
        if "+" in arm:
            system, layers = arm.split("+", 1)
            return cls(system, FEATURES, layers)
        if "@" in arm:
            system, point = arm.split("@", 1)
            if point not in (EQUAL, FIRST):
                raise ValueError(f"arm {arm!r}: a checkpoint is @{EQUAL} or @{FIRST}")
            return cls(system, point)
        return cls(arm)

    @classmethod
    def from_variant(cls, system, variant):
        """The arm whose runs are stored under `variant` (`Arm.variant`)."""
        if variant.startswith(FEATURES + "_"):
            return cls(system, FEATURES, variant.removeprefix(FEATURES + "_"))
        return cls(system, variant)

    @property
    def variant(self):
        """The folder and unit name of its runs."""
        return f"{FEATURES}_{self.layers}" if self.kind == FEATURES else self.kind

    @property
    def pretraining(self):
        """Which pretraining run it starts from: "main" or "equal"."""
        return "equal" if self.kind in (EQUAL, FIRST) else "main"


@dataclasses.dataclass(frozen=True)
class Run:
    """One fine-tuning run of `arm` on `task`: pretraining seed `pretraining`,
    fine-tuning seed `seed`."""

    arm: Arm
    task: str
    pretraining: int = 0
    seed: int = 0

    @property
    def system(self):
        return self.arm.system

    @property
    def unit(self):
        return f"fine_tuning/{self.arm.system}/{self.task}/{self.arm.variant}/seed_{self.pretraining}_{self.seed}"

    @property
    def selection_unit(self):
        """The unit choosing its learning rate (one per arm and task)."""
        return f"selection/{self.arm.system}/{self.task}/{self.arm.variant}"
