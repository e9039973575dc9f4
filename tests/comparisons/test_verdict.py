"""The ✓/~/✗ rule: the paper's sign and a gap above two standard errors of the
gap (✓), the sign within that noise or a tie (~), the sign reversed (✗)."""

import math

import pytest

from comparisons.verdict import HOLDS, REVERSED, UNDEFINED, WITHIN_NOISE, Summary, judge


def test_summary_is_mean_sample_sd_and_standard_error():
    s = Summary.of([80.0, 82.0, 84.0])
    assert (s.mean, s.sd, s.n) == (82.0, 2.0, 3)
    assert s.se == pytest.approx(2.0 / math.sqrt(3))


@pytest.mark.parametrize("ahead, behind, mark", [
    ([90, 91, 92], [80, 81, 82], HOLDS),  # gap 10, 2SE = 2*sqrt(1/3 + 1/3) = 1.63
    ([81, 83, 85], [80, 82, 84], WITHIN_NOISE),  # gap 1 < 2SE 3.27
    ([80, 82, 84], [80, 82, 84], WITHIN_NOISE),  # a tie
    ([80, 82, 84], [81, 83, 85], REVERSED),  # reversed within noise is still reversed
    ([70, 71, 72], [80, 81, 82], REVERSED),
])
def test_marks(ahead, behind, mark):
    assert judge(Summary.of(ahead), Summary.of(behind)).mark == mark


def test_the_gap_and_its_noise_are_reported():
    v = judge(Summary.of([90, 91, 92]), Summary.of([80, 81, 82]))
    assert v.gap == pytest.approx(10.0)
    assert v.two_se == pytest.approx(2 * math.sqrt(2 / 3))


def test_exactly_two_standard_errors_is_not_enough():
    ahead, behind = Summary(2.0, 1.0, 0.5, 4), Summary(0.0, 1.0, 0.5, 4)  # 2SE = 2*sqrt(0.5) = 1.414
    assert judge(ahead, behind).mark == HOLDS
    assert judge(Summary(math.sqrt(2), 1.0, 0.5, 4), behind).mark == WITHIN_NOISE


def test_lower_is_better_flips_the_sign():
    lower, higher = Summary.of([3.0]), Summary.of([3.5])
    assert judge(lower, higher, higher_is_better=False).gap == pytest.approx(0.5)
    assert judge(higher, lower, higher_is_better=False).mark == REVERSED


def test_a_single_value_has_no_spread_so_never_holds():
    v = judge(Summary.of([5.0]), Summary.of([1.0]))
    assert v.mark == WITHIN_NOISE and math.isnan(v.two_se)


def test_an_undefined_score_decides_nothing():
    """A NaN mean (STS-B's Pearson of constant predictions) is ?, not within noise."""
    assert judge(Summary.of([math.nan, 0.5, 0.6]), Summary.of([0.1, 0.2, 0.3])).mark == UNDEFINED
    assert judge(Summary.of([0.5]), Summary.of([math.nan])).mark == UNDEFINED
