"""XLNet's system in `compare.py`: the permutation LM with partial prediction
and segment recurrence, the size of BERT's systems. Pretrained as
`run_pretraining.py --model=xlnet` runs it, on records of
`create_pretraining_data.py --model=xlnet`, over a SentencePiece model of
`build_vocab.py --model=xlnet` (cased, as the released XLNets), with the
original's optimizer (`train_gpu.py` at its default `weight_decay=0`: TF1's
bias-corrected `AdamOptimizer`, linear warmup and decay)."""

from contracts.comparison import System, Vocabulary, shared_optimizer
from families.xlnet.config import XLNetConfig
from families.xlnet.flops import pretraining_flops

VOCABULARY = Vocabulary(lambda corpus, size, path: [
    "build_vocab.py", "--model=xlnet", f"--input_file={corpus}", f"--model_file={path}", f"--vocab_size={size}"])


def _reuse_len(shape):
    """The permuted block and the memory: half of each record, as the original's 256 of 512."""
    return shape.seq_length // 2


def config(size, shape):
    return XLNetConfig(
        n_token=shape.vocab_size, n_layer=size.layers, d_model=size.hidden, n_head=size.heads,
        d_head=size.hidden // size.heads, d_inner=size.intermediate, dropout=size.dropout,
        dropatt=size.dropout, mem_len=_reuse_len(shape), reuse_len=_reuse_len(shape))


def write_records(corpus, vocabulary, shape, seed, output):
    return ["create_pretraining_data.py", "--model=xlnet", f"--input_file={corpus}", f"--output_file={output}",
            f"--sp_path={vocabulary}", f"--seq_len={shape.seq_length}",
            f"--reuse_len={_reuse_len(shape)}", f"--num_predict={shape.predictions}",
            f"--bsz_per_host={shape.batch}", "--nobi_data", f"--random_seed={seed}", "--num_workers=2"]


def pretraining_flags(config_file, shape, vocabulary):
    return ["--model=xlnet", f"--xlnet_config_file={config_file}", f"--seq_len={shape.seq_length}",
            f"--reuse_len={_reuse_len(shape)}", f"--perm_size={_reuse_len(shape)}",
            f"--num_predict={shape.predictions}", f"--mem_len={_reuse_len(shape)}", "--nobi_data"]


def optimizer_flags(learning_rate, warmup_steps):
    return ["--optimizer=adam", *shared_optimizer(learning_rate, warmup_steps)]


def flops(config, shape):
    return pretraining_flops(config, shape.seq_length, shape.predictions, shape.batch)


SYSTEMS = (
    System("xlnet", "XLNet", "xlnet", VOCABULARY, config, records="xlnet", write_records=write_records,
           pretraining_flags=pretraining_flags, flops=flops, optimizer_flags=optimizer_flags),
)
