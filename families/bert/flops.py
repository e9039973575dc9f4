"""Training FLOPs of one BERT pretraining step, as `BertPretrainer` computes it
(`contracts.flops` says what is counted)."""

from contracts.flops import TRAINING, dense, transformer_layer


def pretraining_flops(config, seq_length, predictions, objective, batch):
    """FLOPs of one training step of `batch` sequences of `seq_length` tokens:
    the encoder, the masked-LM head (transform, then the tied decoder) at its
    `predictions` slots (every position for `ltr`: each predicts the next
    token), and for `mlm_nsp` the pooler and the next-sentence classifier."""
    h = config.hidden_size
    encoder = config.num_hidden_layers * transformer_layer(seq_length, h, config.intermediate_size)
    slots = seq_length if objective == "ltr" else predictions
    heads = dense(slots, h, h) + dense(slots, h, config.vocab_size)
    if objective == "mlm_nsp":
        heads += dense(1, h, h) + dense(1, h, 2)
    return TRAINING * batch * (encoder + heads)
