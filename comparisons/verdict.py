"""Whether an ordering the papers report holds here, as a significance test.

The unit of replication is a trained model's starting point: a pretraining
seed (its score is the mean over its fine-tuning seeds), or for the randomly
initialised floor each run (its seed draws the initialisation). Two arms are
compared by Welch's t-test on those units, two-sided, so that an arm's
spread over pretraining seeds counts (MultiBERTs, Sellam et al. 2021: the
pretraining seed moves downstream scores as much as many reported gaps).
The p-values of every ordering declared testable at the tier are adjusted
together by Holm's method, and the mark is symmetric:

- ✓ the adjusted p is below `ALPHA` and the gap has the paper's sign,
- ✗ the adjusted p is below `ALPHA` and the gap is against the paper,
- ~ otherwise (no significant difference either way),
- ? a score is undefined on some run (STS-B's Pearson of constant predictions),
  or an arm has fewer than two units or no spread at all: nothing to test.
"""

import dataclasses
import math
import statistics

from scipy import stats

HOLDS, WITHIN_NOISE, REVERSED, UNDEFINED = "✓", "~", "✗", "?"
ALPHA = 0.05  # family-wise, over the orderings a tier tests
POWER = 0.8  # of the minimum detectable effect


@dataclasses.dataclass(frozen=True)
class Summary:
    """Mean and sample standard deviation of an arm's units (`n` of them, from `runs` runs)."""

    mean: float
    sd: float
    n: int
    runs: int

    @classmethod
    def of(cls, units):
        """`units`: one list of run scores per unit (a unit's runs are averaged)."""
        units = [[float(v) for v in unit] for unit in units if unit]
        if not units:
            raise ValueError("no values to summarise")
        runs = sum(len(unit) for unit in units)
        if any(math.isnan(v) for unit in units for v in unit):  # one undefined run leaves the arm undefined
            return cls(math.nan, math.nan, len(units), runs)
        means = [statistics.fmean(unit) for unit in units]
        sd = statistics.stdev(means) if len(means) > 1 else math.nan
        return cls(statistics.fmean(means), sd, len(means), runs)

    @property
    def se(self):
        return self.sd / math.sqrt(self.n)


@dataclasses.dataclass(frozen=True)
class WelchTest:
    """Welch's t-test of "`ahead` beats `behind`": the gap in the direction where
    larger is better, its standard error, Welch-Satterthwaite degrees of
    freedom and the two-sided p-value (NaN: nothing to test)."""

    gap: float
    se: float
    df: float
    p: float


def welch(ahead, behind, higher_is_better=True):
    """The `WelchTest` of two `Summary`s."""
    gap = ahead.mean - behind.mean
    if not higher_is_better:
        gap = -gap
    va, vb = ahead.se ** 2, behind.se ** 2
    se = math.sqrt(va + vb)
    if math.isnan(gap) or math.isnan(se) or se == 0:
        return WelchTest(gap, se, math.nan, math.nan)
    df = (va + vb) ** 2 / (va ** 2 / (ahead.n - 1) + vb ** 2 / (behind.n - 1))
    return WelchTest(gap, se, df, float(2 * stats.t.sf(abs(gap) / se, df)))


def holm(p_values):
    """Holm's step-down adjustment of `p_values` (NaN entries are not tests and stay NaN)."""
    tested = sorted((p, i) for i, p in enumerate(p_values) if not math.isnan(p))
    adjusted, running = [math.nan] * len(p_values), 0.0
    for rank, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * p))
        adjusted[i] = running
    return adjusted


def mark(test, adjusted_p, alpha=ALPHA):
    """The symmetric mark of a `WelchTest` given its Holm-adjusted p-value."""
    if math.isnan(adjusted_p):
        return UNDEFINED
    if adjusted_p >= alpha:
        return WITHIN_NOISE
    return HOLDS if test.gap > 0 else REVERSED


def minimum_detectable_effect(sd, n, alpha=ALPHA, power=POWER):
    """The smallest gap between two arms of `n` units each with standard deviation
    `sd` that a two-sided t-test at level `alpha` finds with probability `power`
    (the normal-theory approximation with 2n - 2 degrees of freedom)."""
    if n < 2 or math.isnan(sd):
        return math.nan
    df = 2 * n - 2
    return (stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df)) * sd * math.sqrt(2 / n)
