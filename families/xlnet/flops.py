"""Training FLOPs of one XLNet pretraining step, as `XLNetPretrainer` computes
it (`contracts.flops` says what is counted)."""

from contracts.flops import TRAINING, attention, dense


def _relative_attention(queries, keys, positions, width):
    """Content, position and segment scores of `queries` against `keys`
    (positions: the relative encodings scored before the shift), and mixing."""
    return (attention(queries, keys, width) + dense(queries, width, positions)
            + dense(queries, width, 2))


def pretraining_flops(config, seq_len, num_predict, batch):
    """FLOPs of one training step of `batch` rows of `seq_len` tokens with
    `num_predict` targets each. Keys are the memory (`config.mem_len`, zeros on
    the first step, counted alike) and the content stream; the relative
    encodings cover klen + qlen distances, projected once per batch (per row
    with `bi_data`). The content stream queries from every position; the
    query stream projects its `num_predict` queries, places them at their
    positions through `target_mapping` (a product with the one-hot mapping),
    attends from all `seq_len` rows as the original does, maps back, and runs
    the output projection and feed-forward block on its targets only; the tied
    LM head scores the targets."""
    c = config
    width, d = c.n_head * c.d_head, c.d_model
    keys = c.mem_len + seq_len
    positions = keys + seq_len if c.attn_type == "bi" else keys + 1
    per_row = (2 * dense(keys, d, width)  # k and v over memory + content
               + dense(seq_len, d, width)  # content queries
               + _relative_attention(seq_len, keys, positions, width)
               + dense(seq_len, width, d) + dense(seq_len, d, c.d_inner) + dense(seq_len, c.d_inner, d)
               + dense(num_predict, d, width)  # query-stream queries
               + 2 * dense(num_predict, seq_len, width)  # placed by target_mapping and back
               + _relative_attention(seq_len, keys, positions, width)
               + dense(num_predict, width, d) + dense(num_predict, d, c.d_inner)
               + dense(num_predict, c.d_inner, d))
    encodings = dense(positions, d, width) * (batch if c.bi_data else 1)
    head = dense(num_predict, d, c.n_token)
    return TRAINING * (c.n_layer * (batch * per_row + encodings) + batch * head)
