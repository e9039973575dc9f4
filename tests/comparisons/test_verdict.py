"""The verdict: Welch's t-test on units (pretraining seeds, each the mean of
its fine-tuning runs), Holm's adjustment over the tested orderings, a mark
that is symmetric in the gap's sign, and the minimum detectable effect."""

import math

import numpy as np
import pytest
from scipy import stats

from comparisons.verdict import (HOLDS, REVERSED, UNDEFINED, WITHIN_NOISE, Summary, WelchTest, holm, mark,
                                 minimum_detectable_effect, welch)


def test_a_unit_is_the_mean_of_its_runs():
    s = Summary.of([[80.0, 82.0], [84.0], [86.0, 90.0]])  # unit means 81, 84, 88
    assert (s.mean, s.n, s.runs) == (pytest.approx(253 / 3), 3, 5)
    assert s.sd == pytest.approx(np.std([81, 84, 88], ddof=1))


@pytest.mark.parametrize("ahead, behind", [
    ([[90.0], [91.0], [93.0]], [[80.0], [84.0], [81.0], [79.0]]),
    ([[70.1, 70.3], [69.0, 69.4]], [[71.0], [72.5], [70.2]]),
])
def test_welch_is_scipys_unequal_variance_t_test(ahead, behind):
    """scipy's `ttest_ind(equal_var=False)` on the unit means is the reference."""
    a, b = Summary.of(ahead), Summary.of(behind)
    test = welch(a, b)
    reference = stats.ttest_ind([np.mean(u) for u in ahead], [np.mean(u) for u in behind], equal_var=False)
    assert test.gap / test.se == pytest.approx(reference.statistic)
    assert test.p == pytest.approx(reference.pvalue)
    assert test.df == pytest.approx(reference.df)


def test_welch_by_hand():
    """Means 2 and 0, variances 2 and 4 over 2 units each: se = sqrt(2/2 + 4/2) = sqrt(3),
    df = 3^2 / (1^2 / 1 + 2^2 / 1) = 1.8, t = 2 / sqrt(3)."""
    test = welch(Summary.of([[1.0], [3.0]]), Summary.of([[math.sqrt(2)], [-math.sqrt(2)]]))
    assert (test.gap, test.se, test.df) == (pytest.approx(2.0), pytest.approx(math.sqrt(3)), pytest.approx(1.8))
    assert test.p == pytest.approx(2 * stats.t.sf(2 / math.sqrt(3), 1.8))


def test_lower_is_better_flips_the_gap():
    test = welch(Summary.of([[3.0], [3.2]]), Summary.of([[3.5], [3.9]]), higher_is_better=False)
    assert test.gap == pytest.approx(0.6)


def test_holm_by_hand():
    """p = (0.01, 0.04, 0.03, 0.2): sorted 0.01*4 = 0.04, 0.03*3 = 0.09, 0.04*2 = 0.08 -> 0.09
    (monotone), 0.2*1 = 0.2; a NaN is not a test and does not count in m."""
    assert holm([0.01, 0.04, 0.03, math.nan, 0.2]) == pytest.approx([0.04, 0.09, 0.09, math.nan, 0.2],
                                                                     nan_ok=True)
    assert holm([0.5, 0.9]) == [pytest.approx(1.0), pytest.approx(1.0)]  # capped at 1
    assert holm([]) == []


@pytest.mark.parametrize("gap, adjusted, expected", [
    (5.0, 0.001, HOLDS), (-5.0, 0.001, REVERSED),  # significant either way
    (0.02, 0.9, WITHIN_NOISE), (-0.02, 0.9, WITHIN_NOISE),  # a small gap is ~ whatever its sign
    (-3.0, 0.05, WITHIN_NOISE),  # at the level exactly: not significant
    (1.0, math.nan, UNDEFINED),
])
def test_the_mark_is_symmetric(gap, adjusted, expected):
    assert mark(WelchTest(gap, 1.0, 4.0, adjusted), adjusted) == expected


def test_nothing_to_test_without_two_units_or_without_spread():
    one = welch(Summary.of([[5.0, 6.0]]), Summary.of([[1.0], [2.0]]))
    assert math.isnan(one.p)  # a single unit has no spread over pretraining seeds
    constant = welch(Summary.of([[50.0], [50.0]]), Summary.of([[49.0], [49.0]]))
    assert math.isnan(constant.p)  # runs that predict one constant: a tiny gap is not significant
    undefined = welch(Summary.of([[math.nan], [0.5]]), Summary.of([[0.1], [0.2]]))
    assert math.isnan(undefined.gap) and math.isnan(undefined.p)


def test_minimum_detectable_effect_matches_a_simulated_power():
    """With sd 1 and 3 units a side the gap found 80% of the time at alpha 0.05; checked
    by the noncentral t distribution (scipy), the exact power of Welch's test with equal
    variances and sizes (its df is then 2n - 2)."""
    n, sd = 3, 1.0
    effect = minimum_detectable_effect(sd, n)
    df, critical = 2 * n - 2, stats.t.ppf(0.975, 2 * n - 2)
    power = stats.nct.sf(critical, df, effect / (sd * math.sqrt(2 / n)))
    assert 0.75 < power < 0.85  # the approximation's error at 4 degrees of freedom
    assert minimum_detectable_effect(sd, 3, alpha=0.001) > effect
    assert math.isnan(minimum_detectable_effect(sd, 1))
