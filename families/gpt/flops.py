"""Training FLOPs of one GPT pretraining step, as `GPTPretrainingTask`
computes it (`contracts.flops` says what is counted)."""

from contracts.flops import TRAINING, dense, transformer_layer


def pretraining_flops(config, seq_length, batch):
    """FLOPs of one training step of `batch` windows of `seq_length` tokens:
    the decoder (BERT's layer shape under a causal mask, which the product
    computes in full; a feed-forward of 4 x `n_embd`), and the tied LM head
    scoring every position over the BPE tokens (pretraining has no special
    rows): each position predicts the next token."""
    h = config.n_embd
    decoder = config.n_layer * transformer_layer(seq_length, h, config.intermediate_size)
    head = dense(seq_length, h, config.n_vocab)
    return TRAINING * batch * (decoder + head)
