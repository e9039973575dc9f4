"""Equal training FLOPs for every system: the budget is the reference system's
FLOPs for the tier's steps; each system gets the whole steps that fit in it
(its own FLOPs per step, `comparisons.flops`), a system of another size the
steps of the one it is compared with. A few timed steps of each predict the
pretraining time of every seed; where it exceeds the tier's allowance the
budget shrinks, equally for all, to fit.

The equal-steps view (the papers' protocol) needs every system it compares
to stop at the same step and the same point of its learning-rate schedule:
a checkpoint along a longer run sits at another point of its warmup and
decay. So each of those systems whose budget is longer than the shortest
of them pretrains a second time for exactly that many steps
(`equal_steps`), with a checkpoint half way (`first`).

Every run warms up over the same number of steps, a share of the reference's
(`warmup_steps`; at most half of a run's own), not a share of its own length:
a post-LN transformer warmed up to the cpu tier's peak rate in a tenth of a
625-step run (62 steps) stalled on the unigram plateau in every seed, its
layers' outputs less telling of a word's part of speech than random
initialisation's, where over 200 steps it left it (docs/comparisons.md)."""

import dataclasses
import math
import statistics


@dataclasses.dataclass(frozen=True)
class Budget:
    """`flops`: each FLOP-equal system's budget; `steps` and `step_flops` per
    system; `scale`: the share of the tier's budget left after fitting the
    time (1: no fitting); `equal_steps`: the length of the equal-steps runs
    (None: no equal-steps view at this tier); `equal_runs`: the systems that
    pretrain again for it (the others' own run is that long);
    `predicted_seconds`: the calibrated time of one pretraining run of each;
    `warmup_steps`: the warmup of every run (`warmup`)."""

    flops: float
    steps: dict
    step_flops: dict
    scale: float
    equal_steps: int
    equal_runs: tuple
    predicted_seconds: dict
    warmup_steps: int

    def to_json(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, values):
        return cls(**{**values, "equal_runs": tuple(values["equal_runs"])})

    @property
    def first(self):
        """The equal-steps runs' first checkpoint: half way."""
        return max(1, self.equal_steps // 2) if self.equal_steps else None

    def warmup(self, steps):
        """The warmup of a pretraining run of `steps`: the budget's, at most half the run."""
        return max(1, min(self.warmup_steps, steps // 2))


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


def _equal(steps, equal_systems):
    """(equal_steps, the systems that pretrain again for it)."""
    if not equal_systems:
        return None, ()
    shortest = min(steps[name] for name in equal_systems)
    return shortest, tuple(name for name in equal_systems if steps[name] != shortest)


def _seconds(steps, seconds, seeds, equal_steps, equal_runs):
    """The predicted pretraining time of every seed, equal-steps runs included."""
    return seeds * (sum(steps[name] * seconds[name] for name in steps)
                    + sum(equal_steps * seconds[name] for name in equal_runs))


def plan_budget(systems, step_flops, reference, reference_steps, equal_systems=(), seeds=1, seconds=None,
                allowance=math.inf, warmup_share=0.1):
    """The `Budget` of the pretrained `systems` given their `step_flops`, the
    systems of the equal-steps view, the pretraining `seeds` and their
    calibrated `seconds` per step (None: no fitting to `allowance`); every run
    warms up over `warmup_share` of the reference's steps."""
    flops = reference_steps * step_flops[reference]
    steps = _steps(systems, step_flops, flops)
    equal_steps, equal_runs = _equal(steps, equal_systems)
    scale = 1.0
    if seconds is not None:
        predicted = _seconds(steps, seconds, seeds, equal_steps, equal_runs)
        if predicted > allowance:
            scale = allowance / predicted
            flops *= scale
            steps = _steps(systems, step_flops, flops)
            equal_steps, equal_runs = _equal(steps, equal_systems)
    return Budget(flops=flops, steps=steps, step_flops=dict(step_flops), scale=scale, equal_steps=equal_steps,
                  equal_runs=equal_runs,
                  predicted_seconds={name: steps[name] * seconds[name] for name in steps} if seconds else {},
                  warmup_steps=max(1, round(steps[reference] * warmup_share)))
