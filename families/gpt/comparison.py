"""OpenAI GPT's system in `compare.py`: the left-to-right Transformer LM of
BERT's Table 1, the size of BERT's systems (its feed-forward 4 x the width,
as the tiers' sizes are). Pretrained as `run_pretraining.py --model=gpt` runs
it, on windows of `create_pretraining_data.py --model=gpt`, over a BPE vocabulary of
`build_vocab.py --model=gpt` learnt from the same corpus at the same size (the three
special tokens fine-tuning adds counted in it)."""

import glob
import os

from contracts.comparison import System, Vocabulary, shared_optimizer
from families.gpt.bpe import SPECIAL_TOKENS
from families.gpt.config import GPTConfig
from families.gpt.flops import pretraining_flops


def _encoder_file(path):
    """The `encoder_bpe_<merges>.json` written beside `path`."""
    found = glob.glob(os.path.join(os.path.dirname(path), "encoder_bpe_*.json"))
    if len(found) != 1:
        raise FileNotFoundError(f"expected one encoder_bpe_<n>.json beside {path}, found {found}")
    return found[0]


VOCABULARY = Vocabulary(lambda corpus, size, path: [
    "build_vocab.py", "--model=gpt", f"--input_file={corpus}", f"--output_dir={os.path.dirname(path)}",
    f"--vocab_size={size}"], written=_encoder_file)


def config(size, shape):
    """The tier's size; `n_vocab` the BPE pieces (the vocabulary size less the
    special tokens, which fine-tuning adds as rows of their own)."""
    if size.intermediate != 4 * size.hidden:
        raise ValueError(f"GPT's feed-forward is 4 x its width; the tier's size has {size.intermediate} "
                         f"for width {size.hidden}")
    return GPTConfig(
        n_vocab=shape.vocab_size - len(SPECIAL_TOKENS), n_ctx=shape.seq_length, n_embd=size.hidden,
        n_head=size.heads, n_layer=size.layers, embd_pdrop=size.dropout, attn_pdrop=size.dropout,
        resid_pdrop=size.dropout)


def write_records(corpus, vocabulary, shape, seed, output):
    """Windows of `seq_length` BPE ids (the writer draws nothing at random: `seed` unused),
    tokenized by the original Python pipeline: on this project's CPU host it
    took a fifth of the in-graph tokenizer's CPU time, and the two give the
    same ids on 99.9% of sentences (docs/families/gpt-text.md)."""
    return ["create_pretraining_data.py", "--model=gpt", f"--input_file={corpus}", f"--output_file={output}",
            f"--vocab_file={vocabulary}", f"--max_seq_length={shape.seq_length}", "--original_tokenizer",
            "--num_workers=2"]


def pretraining_flags(config_file, shape, vocabulary):
    return ["--model=gpt", f"--bert_config_file={config_file}", f"--max_seq_length={shape.seq_length}",
            f"--vocab_file={vocabulary}"]


def optimizer_flags(learning_rate, warmup_steps):
    """The original's optimizer (bias-corrected Adam, warmup then cosine decay),
    as the main job's: with BERT's (no bias correction) at the cpu tier's 2e-3,
    GPT stayed at the unigram plateau (held-out perplexity 557) for all its 578
    steps; with Adam it was at 187 after 300."""
    return ["--optimizer=adam", "--learning_rate_schedule=cosine", *shared_optimizer(learning_rate, warmup_steps)]


def flops(config, shape):
    return pretraining_flops(config, shape.seq_length, shape.batch)


SYSTEMS = (
    System("gpt", "OpenAI GPT", "gpt", VOCABULARY, config, records="gpt", write_records=write_records,
           pretraining_flags=pretraining_flags, flops=flops, optimizer_flags=optimizer_flags),
)
