"""Learning-rate selection and the trainability gate: a rate whose run stayed
at the label prior comes after every rate that trained, the best slice score
wins, and a run that fails the gate at the best rate is retried at the next."""

import math

from comparisons.arms import Arm, Run
from comparisons.protocol import Protocol
from comparisons.selection import ranked
from training.label_prior import LEFT_PRIOR, left_prior


def test_the_gate_is_a_training_loss_below_the_priors_share():
    assert left_prior({"train_loss": 0.3, "prior_loss": 0.693})
    assert not left_prior({"train_loss": 0.68, "prior_loss": 0.693})  # stuck at ln 2
    assert not left_prior({"train_loss": LEFT_PRIOR * 0.693, "prior_loss": 0.693})  # at the line: not below it
    assert not left_prior({"prior_loss": 0.693})  # no training loss recorded: not shown to have trained
    assert not left_prior({"train_loss": math.nan, "prior_loss": 0.693})


def test_rates_that_trained_rank_by_score_and_the_others_after_them_by_their_fall():
    outcomes = {1e-4: {"score": 70.0, "trained": True}, 1e-3: {"score": 75.0, "trained": True},
                3e-3: {"score": 90.0, "trained": False, "train_loss": 0.69, "prior_loss": 0.69},
                1e-2: {"score": 50.0, "trained": False, "train_loss": 0.65, "prior_loss": 0.69},
                3e-4: {"score": 75.0, "trained": True}}
    # a tie goes to the smaller rate; a high slice score does not lift a rate that stayed at the prior
    assert ranked(outcomes) == [3e-4, 1e-3, 1e-4, 1e-2, 3e-3]
    assert ranked({1e-3: {"score": math.nan, "trained": True}, 1e-4: {"score": 50.0, "trained": True}}) == [1e-4, 1e-3]
    assert ranked({1e-3: {"score": 80.0, "trained": False}}) == [1e-3]  # no losses recorded: tried last


class GateOnly(Protocol):
    """The protocol's fine-tuning step with its runner replaced: each learning
    rate's run trains or not as `trains` says."""

    def __init__(self, slice_outcomes, trains, tmp_path):
        self.slice_outcomes, self.trains, self.tried, self.output_dir = slice_outcomes, trains, [], str(tmp_path)

    def ranking(self, arm, task):
        return ranked(self.slice_outcomes)

    def train_once(self, unit, run, learning_rate, data_flags, output_dir):
        self.tried.append(learning_rate)
        trained = self.trains[learning_rate]
        return {"learning_rate": learning_rate, "score": 60.0 if trained else 50.0, "trained": trained,
                "train_loss": 0.2 if trained else 0.69, "prior_loss": 0.69}


SLICE = {1e-3: {"score": 70.0, "trained": True}, 3e-4: {"score": 60.0, "trained": True},
         3e-3: {"score": 50.0, "trained": False, "train_loss": 0.69, "prior_loss": 0.69}}


def test_a_run_stuck_at_the_prior_is_retried_at_the_next_rate_and_scored_only_there(tmp_path):
    protocol = GateOnly(SLICE, {1e-3: False, 3e-4: True, 3e-3: True}, tmp_path)
    protocol.task_flags = {"sst_2": []}
    outcome = protocol.fine_tune(Run(Arm("bert"), "sst_2"))
    assert protocol.tried == [1e-3, 3e-4]
    assert outcome["score"] == 60.0 and outcome["learning_rate"] == 3e-4
    assert [a["learning_rate"] for a in outcome["attempts"]] == [1e-3, 3e-4]


def test_a_run_that_trains_at_no_rate_is_failed_after_trying_every_rate(tmp_path):
    protocol = GateOnly(SLICE, {1e-3: False, 3e-4: False, 3e-3: False}, tmp_path)
    protocol.task_flags = {"sst_2": []}
    outcome = protocol.fine_tune(Run(Arm("bert"), "sst_2"))
    assert protocol.tried == [1e-3, 3e-4, 3e-3]  # the rate that failed on the slice too, last
    assert outcome["score"] is None and not outcome["trained"] and len(outcome["attempts"]) == 3
