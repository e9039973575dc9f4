"""The SQuAD SavedModel's choice when no row of a request has a candidate span
(every context empty or blank): BERT's v1.1 reader and XLNet's beam answer
"" with the one certain entry (score 0, probability 1) instead of gathering
from an empty candidate table."""

import collections

import pytest
import tensorflow as tf

from families.xlnet.question_answering.graph_beam import choose_beam_answers
from tasks.question_answering.graph_answers import Candidates, choose_answers
from tasks.question_answering.serving import QuestionAnsweringOptions

ROWS, N_BEST = 3, 4
Spans = collections.namedtuple("Spans", "keys starts ends")  # as the n-best search keeps them


def no_candidates():
    ids, logits = tf.zeros([0], tf.int64), tf.zeros([0], tf.float32)
    return Candidates(ids, ids, ids, ids, logits, logits, tf.zeros([0], tf.float64),
                      tf.zeros([0], tf.bool))


@pytest.mark.parametrize("choose,v2", [(choose_answers, False), (choose_beam_answers, False),
                                       (choose_beam_answers, True)])
def test_a_request_without_candidates_answers_nothing(choose, v2):
    options = QuestionAnsweringOptions(48, 16, 12, N_BEST, 8, v2, 0.0)
    nothing = tf.zeros([ROWS, N_BEST], tf.int64)
    kept_spans = Spans(tf.fill([ROWS, N_BEST], ""), nothing - 1, nothing - 1)
    null_odds = tf.constant([0.5, -1.0, 2.0], tf.float64) if v2 else None
    choice = choose(no_candidates(), null_odds, nothing, tf.zeros([ROWS], tf.int64), kept_spans,
                    options)
    assert choice.answered.numpy().tolist() == [False] * ROWS
    assert choice.chosen.numpy().tolist() == [0] * ROWS
    assert choice.score.numpy().tolist() == [0.0] * ROWS
    assert choice.probability.numpy().tolist() == [1.0] * ROWS
    if v2:
        assert choice.null_odds.numpy().tolist() == [0.5, -1.0, 2.0]
