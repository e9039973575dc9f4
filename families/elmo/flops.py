"""Training FLOPs of one ELMo pretraining step, as `ELMoPretrainer` computes
it (`contracts.flops` says what is counted)."""

from contracts.flops import TRAINING, dense

DIRECTIONS = 2  # the forward and the backward LM, each over its own stream


def char_cnn_flops(cnn, projection_dim):
    """One token's character CNN: each filter width w slides over the
    `max_characters_per_token` characters (valid padding), a product of w x
    embedding_dim by its filters at each place; each highway layer's carry and
    transform products; the projection to the LSTM's width when the filters'
    count differs from it."""
    convolutions = sum(dense(cnn.max_characters_per_token - width + 1, width * cnn.embedding_dim, number)
                       for width, number in cnn.filters)
    highways = (cnn.n_highway or 0) * 2 * dense(1, cnn.n_filters, cnn.n_filters)
    projection = dense(1, cnn.n_filters, projection_dim) if cnn.n_filters != projection_dim else 0
    return convolutions + highways + projection


def lstm_flops(lstm, input_dim):
    """One token through one direction's LSTMP stack: per layer the input
    and the projected state to the four gates, then the cell's projection
    (the first layer's input is `input_dim`, later ones the projection)."""
    state = min(lstm.dim, lstm.projection_dim)
    total, inputs = 0, input_dim
    for _ in range(lstm.num_layers):
        total += dense(1, inputs + state, 4 * lstm.dim)
        if lstm.projection_dim < lstm.dim:
            total += dense(1, lstm.dim, lstm.projection_dim)
        inputs = state
    return total


def pretraining_flops(config, unroll_steps, batch, sampled=None):
    """FLOPs of one training step of `batch` rows of `unroll_steps` tokens, in
    each direction: the token representation (the character CNN, or nothing
    for a token embedding, a lookup), which `ELMoPretrainer` computes for each
    direction's stream; the LSTMP stack; the softmax over the word vocabulary
    (`n_tokens_vocab`) or, with `sampled` words, over those (shared by the
    batch) plus each token's true word."""
    lstm = config.lstm
    width = min(lstm.dim, lstm.projection_dim)
    tokens = 0 if config.char_cnn is None else char_cnn_flops(config.char_cnn, lstm.projection_dim)
    if sampled:
        softmax = dense(1, width, sampled) + dense(1, width, 1)
    else:
        softmax = dense(1, width, config.n_tokens_vocab)
    per_token = tokens + lstm_flops(lstm, lstm.projection_dim) + softmax
    return TRAINING * DIRECTIONS * batch * unroll_steps * per_token
