"""Whether an encoder's earlier positions see later tokens: every layer's
outputs before and after the tokens past a cut are changed."""

import numpy as np

SEQ, CUT = 16, 7
VOCAB = 100  # ids fit the tiny configs' vocabularies


def inputs(word_ids):
    return {"input_word_ids": word_ids, "input_mask": np.ones_like(word_ids),
            "input_type_ids": np.zeros_like(word_ids)}


def outputs_before_and_after_changing_the_tail(encoder):
    """[layers, batch, SEQ, hidden] twice: for random ids, and for the same ids
    with every position after CUT drawn again."""
    rng = np.random.default_rng(0)
    ids = rng.integers(5, VOCAB, (2, SEQ)).astype("int32")
    changed = ids.copy()
    changed[:, CUT + 1:] = rng.integers(5, VOCAB, (2, SEQ - CUT - 1))
    assert (changed[:, CUT + 1:] != ids[:, CUT + 1:]).any()
    return [np.stack([np.asarray(layer) for layer in encoder(inputs(x))["encoder_outputs"]])
            for x in (ids, changed)]


def sees_only_earlier_tokens(encoder):
    """Positions up to CUT unchanged in every layer; later ones changed."""
    before, after = outputs_before_and_after_changing_the_tail(encoder)
    return (np.abs(before[:, :, :CUT + 1] - after[:, :, :CUT + 1]).max() < 1e-6
            and np.abs(before[:, :, CUT + 1:] - after[:, :, CUT + 1:]).max() > 1e-3)
