"""The LM loss `results.json` reports against the unigram prior, from what each
family's pretraining logs: the loss of its language model alone."""

import math

import pytest

from comparisons.results import lm_loss

# Last logged steps as the cpu tier's pretraining runs wrote them (2026-12-01, BERT's and LTR's; GPT's,
# XLNet's and ELMo's keys as their pretraining tasks name their metrics).
LOGGED = [
    ({"loss": 6.637, "masked_lm_accuracy": 0.1095, "masked_lm_loss": 6.243, "next_sentence_accuracy": 0.8235,
      "next_sentence_loss": 0.3977}, 6.243),
    ({"loss": 5.441, "masked_lm_accuracy": 0.1876, "masked_lm_loss": 5.451}, 5.451),
    ({"loss": 5.9, "lm_accuracy": 0.12, "lm_loss": 5.8}, 5.8),
    ({"loss": 5.7, "perplexity": 300.0, "forward_perplexity": 290.0, "backward_perplexity": 310.0},
     math.log(300.0)),
]


@pytest.mark.parametrize("logged, expected", LOGGED, ids=["bert", "ltr", "gpt_or_xlnet", "elmo"])
def test_the_lm_loss_leaves_out_the_next_sentence_loss(logged, expected):
    assert lm_loss(logged) == pytest.approx(expected, rel=1e-12)


def test_a_log_without_an_lm_loss_has_none():
    assert lm_loss({"examples_per_second": 200.0}) is None
