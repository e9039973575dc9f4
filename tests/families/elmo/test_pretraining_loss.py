"""ELMo's pretraining loss against the original's training graph
(`bilm_training_reference.py`: `bilm.training.LanguageModel`, run in a
subprocess) on the same weights, inputs and starting LSTM state: each
direction's mean loss over the full softmax, the final states the next batch
starts from (two batches in a row, the first from a random state), and the
sampled softmax's per-token losses (`tf.nn.sampled_softmax_loss` given our
candidates and expected counts). Then our candidate sampler against
TensorFlow's (`tf.random.log_uniform_candidate_sampler`, unique).

Tolerance: the parity bound of `test_bilm_parity.py`, 1e-5 absolute, on
losses about log(40) = 3.7 and states up to the clips (3): float32 sums in
another order (our LSTM multiplies input and state apart; the softmax's
logits are summed by other kernels).
"""

import json
import os
import sys

import numpy as np
import pytest
import tensorflow as tf

from families.elmo.checkpoints.hdf5_names import PADDED_TABLES, hdf5_name
from families.elmo.config import ELMoConfig, LSTMOptions
from families.elmo.pretraining import features as E
from families.elmo.pretraining.candidate_sampler import log_uniform_candidates
from families.elmo.pretraining.log_uniform import expected_counts
from families.elmo.pretraining.pretrainer import ELMoPretrainer
from tests import warm_python

HERE = os.path.dirname(os.path.abspath(__file__))
BOUND = 1e-5
BATCH, STEPS, VOCAB, SAMPLED = 3, 5, 40, 12
CONFIGS = {
    # Two layers with projections and clips, skips, highways and a CNN projection.
    "chars": ELMoConfig.from_preset("elmo_tiny").replace(n_tokens_vocab=VOCAB, dropout=0.0),
    "tokens": ELMoConfig(lstm=LSTMOptions(dim=12, projection_dim=6, cell_clip=1.0, proj_clip=1.0),
                         char_cnn=None, n_tokens_vocab=VOCAB, dropout=0.0),
}


def random_case(config, seed):
    """(our pretrainer with random weights, its state, our inputs per batch, the
    original's feeds): weights normal x 0.5, padding rows left at zero."""
    rng = np.random.default_rng(seed)
    model = ELMoPretrainer(config)
    for v in model.weights:
        value = rng.normal(size=v.shape) * 0.5
        if hdf5_name(v.path) in PADDED_TABLES:
            value[0] = 0
        v.assign(value.astype(np.float32))
    state = [[tuple(rng.normal(size=(BATCH, d)).astype(np.float32) * 0.5
                    for d in (config.lstm.dim, config.lstm.projection_dim))
              for _ in range(config.lstm.num_layers)] for _ in E.DIRECTIONS]
    batches, feeds = [], {f"state_{i}": s for i, s in enumerate(tf.nest.flatten(state))}
    for k in range(2):
        batch = {}
        for d, (_, suffix) in enumerate(E.DIRECTIONS):
            if config.token_embeddings:
                batch[E.TOKEN_IDS + suffix] = rng.integers(0, VOCAB, (BATCH, STEPS)).astype(np.int32)
                feeds[f"{E.TOKEN_IDS}{suffix}_{k}"] = batch[E.TOKEN_IDS + suffix]
            else:  # our character ids are the original's + 1
                chars = rng.integers(1, 262, (BATCH, STEPS, 50)).astype(np.int32)
                batch[E.TOKENS_CHARACTERS + suffix] = chars
                feeds[f"{E.TOKENS_CHARACTERS}{suffix}_{k}"] = chars - 1
            batch[E.NEXT_TOKEN_ID + suffix] = rng.integers(0, VOCAB, (BATCH, STEPS)).astype(np.int32)
            feeds[f"{E.NEXT_TOKEN_ID}{suffix}_{k}"] = batch[E.NEXT_TOKEN_ID + suffix]
            candidates, tries = log_uniform_candidates(tf.constant([seed, 2 * k + d], tf.int64), SAMPLED, VOCAB)
            batch[f"sampled_{d}"] = (candidates, tries)
            feeds.update({f"candidates_{d}_{k}": candidates.numpy(),
                          f"true_expected_{d}_{k}": np.asarray(expected_counts(
                              batch[E.NEXT_TOKEN_ID + suffix], tries, SAMPLED, VOCAB)).reshape(-1),
                          f"sampled_expected_{d}_{k}": np.asarray(expected_counts(candidates, tries, SAMPLED, VOCAB))})
        batches.append(batch)
    return model, state, batches, feeds


def original_layout(model):
    """Our weights under the names the reference assigns them by (the
    original's tables have no padding row)."""
    out = {}
    for v in model.weights:
        name = hdf5_name(v.path) or v.path  # softmax/W, softmax/b
        out[name] = v.numpy()[1:] if name in PADDED_TABLES else v.numpy()
    return out


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """{case: (our results per batch, the original's)}."""
    pytest.importorskip("bilm", reason="the original biLM (pip install bilm==0.1.post5) is the oracle")
    root, ours = tmp_path_factory.mktemp("elmo_training"), {}
    for seed, (name, config) in enumerate(CONFIGS.items()):
        model, state, batches, feeds = random_case(config, seed)
        directory = root / name
        directory.mkdir()
        options = {**config.to_dict(), "bidirectional": True, "batch_size": BATCH, "unroll_steps": STEPS,
                   "n_negative_samples_batch": SAMPLED}
        if "char_cnn" in options:
            options["char_cnn"]["n_characters"] = 261  # the original trains so
        (directory / "options.json").write_text(json.dumps(options))
        np.savez(directory / "weights.npz", **original_layout(model))
        np.savez(directory / "feeds.npz", **feeds)
        results = []
        for batch in batches:
            full = model(batch, state=state)
            sampled = model(batch, state=state, sampled=[batch["sampled_0"], batch["sampled_1"]])
            results.append((full, sampled))
            state = full["lm_state"]
        ours[name] = results
    warm_python.run([sys.executable, os.path.join(HERE, "bilm_training_reference.py"),
                     *(str(root / name) for name in CONFIGS)], check=True, capture_output=True, timeout=600)
    return {name: (ours[name], dict(np.load(root / name / "reference.npz"))) for name in CONFIGS}


@pytest.mark.slow  # the original's training graph in a process of its own: 21 s at load 9
@pytest.mark.parametrize("name", list(CONFIGS))
def test_losses_and_carried_states_are_the_training_graphs(name, compared):
    ours, reference = compared[name]
    for k, (full, sampled) in enumerate(ours):
        losses = [float(np.mean(full[f"{direction}_token_losses"])) for direction, _ in E.DIRECTIONS]
        print(f"{name} batch {k}: losses {losses} vs {reference[f'losses_{k}']}")  # pytest -s
        np.testing.assert_allclose(losses, reference[f"losses_{k}"], rtol=0, atol=BOUND)
        np.testing.assert_allclose(np.mean(losses), reference[f"total_loss_{k}"], rtol=0, atol=BOUND)
        for i, value in enumerate(tf.nest.flatten(full["lm_state"])):
            np.testing.assert_allclose(value, reference[f"state_{k}_{i}"], rtol=0, atol=BOUND, err_msg=f"state {i}")
        for d, (direction, _) in enumerate(E.DIRECTIONS):
            np.testing.assert_allclose(np.reshape(sampled[f"{direction}_token_losses"], -1),
                                       reference[f"sampled_losses_{d}_{k}"], rtol=0, atol=BOUND)


def test_the_cases_exercise_accidental_hits_and_the_state():
    """Some targets are among the candidates (their logits masked), and the
    second batch's losses depend on the state the first one ended with."""
    model, state, batches, _ = random_case(CONFIGS["chars"], 0)
    batch = batches[0]
    hits = np.isin(batch[E.NEXT_TOKEN_ID], batch["sampled_0"][0].numpy())
    assert 0 < hits.sum() < hits.size
    from_zero = model(batch)["forward_token_losses"]
    assert np.abs(np.asarray(model(batch, state=state)["forward_token_losses"]) - from_zero).max() > 0.01


def test_candidates_follow_tensorflows_sampler():
    """Expected counts: TensorFlow's sampler reports them for its own number of
    tries, which its counts of two ids give back; ours from that number agree.
    Draws: over 400 batches each, how often every one of the 12 most likely ids
    is drawn, ours against TensorFlow's, within 5 standard deviations of the
    difference of two binomial shares."""
    vocab, sampled, batches = 200, 20, 400
    true = tf.constant([[0], [7], [150]], tf.int64)
    theirs = tf.random.log_uniform_candidate_sampler(true, 1, sampled, unique=True, range_max=vocab, seed=3)
    p = np.log((np.arange(vocab) + 2.0) / (np.arange(vocab) + 1.0)) / np.log(vocab + 1.0)
    ids = theirs.sampled_candidates.numpy()
    tries = np.log1p(-theirs.sampled_expected_count.numpy()) / np.log1p(-p[ids])
    assert np.ptp(tries) < 1e-2 * tries.mean()
    tries = int(round(float(tries.mean())))
    np.testing.assert_allclose(expected_counts(ids, tries, sampled, vocab), theirs.sampled_expected_count, rtol=1e-5)
    np.testing.assert_allclose(np.reshape(expected_counts(true, tries, sampled, vocab), -1),
                               np.reshape(theirs.true_expected_count, -1), rtol=1e-5)

    ours_drawn, theirs_drawn = np.zeros(vocab), np.zeros(vocab)
    for i in range(batches):
        candidates, tries = log_uniform_candidates(tf.constant([5, i], tf.int64), sampled, vocab)
        assert len(set(candidates.numpy())) == sampled and int(tries) >= sampled
        ours_drawn[candidates.numpy()] += 1
        theirs_drawn[tf.random.log_uniform_candidate_sampler(
            true, 1, sampled, unique=True, range_max=vocab, seed=1000 + i).sampled_candidates.numpy()] += 1
    share = (ours_drawn + theirs_drawn)[:12] / (2 * batches)
    sigma = np.sqrt(2 * share * (1 - share) / batches)
    assert np.all(np.abs(ours_drawn[:12] - theirs_drawn[:12]) / batches <= 5 * sigma + 1e-9)


def test_mixed_bfloat16_runs_the_softmax_in_float32():
    """Under mixed_bfloat16 the biLM computes in bfloat16 and the softmax, full
    or sampled, in float32 on float32 weights: losses in float32, within
    bfloat16's precision of float32's (8 significant bits per rounding, a few
    dozen roundings deep: 5% of the largest loss)."""
    model, state, batches, _ = random_case(CONFIGS["chars"], 0)
    mixed = ELMoPretrainer(CONFIGS["chars"], dtype="mixed_bfloat16")
    mixed.set_weights(model.get_weights())
    batch = batches[0]
    for sampled in (None, [batch["sampled_0"], batch["sampled_1"]]):
        expected = np.asarray(model(batch, state=state, sampled=sampled)["backward_token_losses"])
        got = mixed(batch, state=state, sampled=sampled)["backward_token_losses"]
        assert got.dtype == tf.float32
        assert np.abs(np.asarray(got) - expected).max() <= 0.05 * expected.max()
