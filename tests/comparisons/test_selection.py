"""Learning-rate selection and the trainability gate: a rate whose run stayed
at the label prior (or did not fit its training data) is not tried while
another trained, the best slice score wins, and a run that fails the gate at
the best rate is retried at the next."""

import math

from comparisons.selection import ranked
from training.label_prior import FIT_SHARE, LEFT_PRIOR, fits, left_prior


def test_the_gate_is_a_training_loss_below_the_priors_share():
    assert left_prior({"train_loss": 0.3, "prior_loss": 0.693})
    assert not left_prior({"train_loss": 0.68, "prior_loss": 0.693})  # stuck at ln 2
    assert not left_prior({"train_loss": LEFT_PRIOR * 0.693, "prior_loss": 0.693})  # at the line: not below it
    assert not left_prior({"prior_loss": 0.693})  # no training loss recorded: not shown to have trained
    assert not left_prior({"train_loss": math.nan, "prior_loss": 0.693})


def test_a_run_fits_when_its_train_score_closes_half_the_gap_from_chance():
    assert FIT_SHARE == 0.5
    assert fits(75.0, chance=50.0) and not fits(74.9, chance=50.0)  # SST-2-like: majority 50 -> 75
    assert fits(50.0, chance=0.0) and not fits(4.5, chance=0.0)  # NER: no entity found scores F1 0
    assert not fits(math.nan, chance=0.0) and not fits(None, chance=0.0)


def test_rates_that_trained_rank_by_score_and_a_stuck_arm_tries_its_furthest_fall_once():
    outcomes = {1e-4: {"score": 70.0, "trained": True}, 1e-3: {"score": 75.0, "trained": True},
                3e-3: {"score": 90.0, "trained": False, "train_loss": 0.69, "prior_loss": 0.69},
                1e-2: {"score": 50.0, "trained": False, "train_loss": 0.65, "prior_loss": 0.69},
                3e-4: {"score": 75.0, "trained": True}}
    # a tie goes to the smaller rate; a high slice score does not lift a rate that stayed at the prior
    assert ranked(outcomes) == [3e-4, 1e-3, 1e-4]
    assert ranked({1e-3: {"score": math.nan, "trained": True}, 1e-4: {"score": 50.0, "trained": True}}) == [1e-4, 1e-3]
    # none trained: only the rate whose loss fell furthest (none recorded: the smallest rate)
    stuck = {lr: o for lr, o in outcomes.items() if not o["trained"]}
    assert ranked(stuck) == [1e-2]
    assert ranked({1e-3: {"score": 80.0, "trained": False}, 1e-4: {"score": 70.0, "trained": False}}) == [1e-4]

