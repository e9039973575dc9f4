"""Equal training FLOPs for every system: the budget is the reference system's
FLOPs for the tier's steps; each system gets the whole steps that fit in it
(its own FLOPs per step, `comparisons.flops`), a system of another size the
steps of the one it is compared with. A few timed steps of each predict the
pretraining time; where it exceeds the tier's allowance the budget shrinks,
equally for all, to fit. Checkpoints fall at one interval for every system so
that all have one at the same step (the equal-steps view)."""

import dataclasses
import math
import statistics


@dataclasses.dataclass(frozen=True)
class Budget:
    """`flops`: each FLOP-equal system's budget; `steps` and `step_flops` per
    system; `scale`: the share of the tier's budget left after fitting the
    time (1: no fitting); `interval`: steps between checkpoints;
    `equal_steps`: the step every pretrained system has a checkpoint at;
    `predicted_seconds`: the calibrated time of each pretraining run."""

    flops: float
    steps: dict
    step_flops: dict
    scale: float
    interval: int
    equal_steps: int
    predicted_seconds: dict

    def to_json(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, values):
        return cls(**values)


def seconds_per_step(logged, batch):
    """Median seconds per step of a calibration run's logged steps (the
    trainer's {step: metrics}, one per step), the first (tracing) left out."""
    speeds = [values["examples_per_second"] for step, values in sorted(logged.items()) if step > 1]
    if not speeds:
        raise ValueError("a calibration run needs at least 2 logged steps")
    return batch / statistics.median(speeds)


def _steps(systems, step_flops, flops):
    steps = {}
    for system in systems:
        if not system.same_steps_as:
            steps[system.name] = max(1, math.floor(flops / step_flops[system.name]))
    for system in systems:
        if system.same_steps_as:
            steps[system.name] = steps[system.same_steps_as]
    return steps


def plan_budget(systems, step_flops, reference, reference_steps, checkpoints, seconds=None,
                allowance=math.inf):
    """The `Budget` of the pretrained `systems` given their `step_flops`, and
    their calibrated `seconds` per step (None: no fitting to `allowance`)."""
    flops = reference_steps * step_flops[reference]
    steps = _steps(systems, step_flops, flops)
    scale = 1.0
    if seconds is not None:
        predicted = sum(steps[name] * seconds[name] for name in steps)
        if predicted > allowance:
            scale = allowance / predicted
            flops *= scale
            steps = _steps(systems, step_flops, flops)
    fewest = min(steps[s.name] for s in systems if not s.same_steps_as)
    interval = max(1, fewest // checkpoints)
    return Budget(flops=flops, steps=steps, step_flops=dict(step_flops), scale=scale, interval=interval,
                  equal_steps=interval * min(checkpoints, fewest),
                  predicted_seconds={name: steps[name] * seconds[name] for name in steps} if seconds else {})


def checkpoint_steps(budget, name):
    """The steps a system's run saves a checkpoint at (every interval, and the last)."""
    steps = budget.steps[name]
    return sorted({*range(budget.interval, steps + 1, budget.interval), steps})
