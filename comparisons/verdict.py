"""Whether an ordering the papers report holds here: ✓ when the gap has the
paper's sign and exceeds two standard errors of the gap, ~ when it has the
sign (or is a tie) but within that noise, ✗ when it is reversed.

The standard error of a mean over n seeds is the sample standard deviation
over √n; the gap's is √(se_a² + se_b²). With a single value (n = 1, e.g. one
pretraining run's held-out loss) there is no spread: a gap of the right sign
is then ~, never ✓. A score that is undefined (NaN: STS-B's Pearson of a run
that predicts one constant) decides nothing: ?.
"""

import dataclasses
import math
import statistics

HOLDS, WITHIN_NOISE, REVERSED, UNDEFINED = "✓", "~", "✗", "?"


@dataclasses.dataclass(frozen=True)
class Summary:
    """Mean, sample standard deviation and standard error of n values."""

    mean: float
    sd: float
    se: float
    n: int

    @classmethod
    def of(cls, values):
        values = [float(v) for v in values]
        if not values:
            raise ValueError("no values to summarise")
        if any(math.isnan(v) for v in values):  # one undefined seed leaves the mean undefined
            return cls(math.nan, math.nan, math.nan, len(values))
        sd = statistics.stdev(values) if len(values) > 1 else math.nan
        return cls(statistics.fmean(values), sd, sd / math.sqrt(len(values)), len(values))


@dataclasses.dataclass(frozen=True)
class Verdict:
    mark: str
    gap: float  # expected-ahead minus expected-behind, in the direction where larger is better
    two_se: float  # two standard errors of the gap (NaN: no spread)


def judge(ahead, behind, higher_is_better=True):
    """The `Verdict` on "`ahead` beats `behind`" (two `Summary`s)."""
    gap = ahead.mean - behind.mean
    if not higher_is_better:
        gap = -gap
    two_se = 2 * math.sqrt(ahead.se ** 2 + behind.se ** 2)
    if math.isnan(gap):
        mark = UNDEFINED
    elif gap < 0:
        mark = REVERSED
    elif gap > two_se:  # False when two_se is NaN
        mark = HOLDS
    else:
        mark = WITHIN_NOISE
    return Verdict(mark, gap, two_se)
