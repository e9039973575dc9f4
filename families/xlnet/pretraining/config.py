"""Settings of XLNet pretraining-data generation, with the original
data_utils.py flag names, validated before any work starts."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class XLNetDataConfig:
    """What decides the records a corpus gives (the original's defaults).

    Each record is `seq_len` tokens: the first `reuse_len` continue the
    previous record of the same stream row (what memory caches), then
    `A <sep> B <sep> <cls>`. `bsz_per_host` stream rows are cut from each
    chunk of the corpus and written batch after batch, so record k of batch
    t+1 continues record k of batch t; with `bi_data` each of the
    `num_core_per_host` slices of a batch (one per replica and micro-batch in
    training) holds forward rows, then the same rows read backwards, as the
    backbone's `bi_data` expects of its batch. `num_predict` targets per record,
    in spans of 1-5 pieces, about `mask_beta` masked per `mask_alpha` tokens.
    """

    seq_len: int = 512
    reuse_len: int = 256
    bsz_per_host: int = 32
    num_core_per_host: int = 1
    bi_data: bool = True
    num_predict: int = 85
    mask_alpha: int = 6
    mask_beta: int = 1
    use_eod: bool = True
    random_seed: int = 12345

    def __post_init__(self):
        _check(self.seq_len >= 5, "seq_len must be >= 5 (reuse, A <sep> B <sep> <cls>)")
        _check(0 < self.reuse_len < self.seq_len - 3,
               "reuse_len must be in [1, seq_len - 3) (the original steps through the text by it)")
        _check(self.bsz_per_host >= 1, "bsz_per_host must be >= 1")
        _check(self.num_core_per_host >= 1 and self.bsz_per_host % self.num_core_per_host == 0,
               "bsz_per_host must be a multiple of num_core_per_host")
        _check(not self.bi_data or self.bsz_per_core % 2 == 0,
               "bi_data needs an even bsz_per_host / num_core_per_host (forward and backward halves)")
        _check(self.mask_beta >= 1 and self.mask_alpha >= self.mask_beta,
               "need mask_alpha >= mask_beta >= 1")
        _check(self.num_predict >= 1, "num_predict must be >= 1")
        reuse_goal, rest_goal = self.num_predict_split
        _check(reuse_goal <= self.reuse_len and rest_goal <= self.seq_len - self.reuse_len,
               f"num_predict {self.num_predict} does not fit: {reuse_goal} targets go to the "
               f"reuse_len={self.reuse_len} tokens, {rest_goal} to the other {self.seq_len - self.reuse_len}")
        _check(self.random_seed >= 0, "random_seed must be >= 0")

    @property
    def bsz_per_core(self):
        return self.bsz_per_host // self.num_core_per_host

    @property
    def num_predict_split(self):
        """Targets sampled in the reuse part and in the rest, as the original."""
        rest = self.num_predict // 2
        return self.num_predict - rest, rest


def _check(condition, message):
    if not condition:
        raise ValueError(message)
