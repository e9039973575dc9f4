"""ELMo's system in `compare.py`: the biLM of BERT's Table 1 and the ELMo row
of its Table 7, used as its paper and this family's default use it: the biLM
frozen, a learned scalar mix of its layers, a task BiLSTM (the family's
`FeatureBased`). Pretrained as `run_pretraining.py --model=elmo` runs it, on
windows of `create_pretraining_data.py --model=elmo`, with the original's optimizer
(Adagrad at 0.2, accumulators from 1, no warmup, gradients clipped at 10)
and the full softmax where the vocabulary is no larger than the original's
8,192 sampled words.

Its vocabulary is of words (`build_vocab.py --model=elmo`, the same size as the
others' subword vocabularies, its three special tokens included): it sizes
the softmax only; the biLM reads every word as characters. Its windows are
`seq_length` words, so a step reads more text than a subword model's."""

from contracts.comparison import System, Vocabulary
from families.elmo.config import CharCNNOptions, ELMoConfig, LSTMOptions
from families.elmo.flops import pretraining_flops
from families.elmo.vocabulary import Vocabulary as WordVocabulary

SAMPLED_WORDS = 8192  # the original's n_negative_samples_batch: a larger vocabulary samples this many

def word_targets(path):
    """Each line's word ids, as its softmax predicts them (`<UNK>` for a word not in the file)."""
    vocabulary = WordVocabulary.from_file(path)
    return lambda lines: [[vocabulary.word_id(word) for word in line.split()] for line in lines]


VOCABULARY = Vocabulary(lambda corpus, size, path: [
    "build_vocab.py", "--model=elmo", f"--input_file={corpus}", f"--vocab_file={path}", f"--max_size={size}",
    "--min_count=2"], targets=word_targets)


def config(size, shape):
    """Two LSTMP layers a direction (the paper's depth, whatever the tier's
    layers), cells of the tier's feed-forward width projected to its hidden
    width; a character CNN of widths 1 to 5 whose filters grow with the width
    (hidden / 8 ... hidden; the original's 2,048 of widths 1 to 7 for 512),
    two highway layers, projected to the hidden width."""
    h = size.hidden
    filters = ((1, h // 8), (2, h // 8), (3, h // 4), (4, h // 2), (5, h))
    return ELMoConfig(
        lstm=LSTMOptions(dim=size.intermediate, projection_dim=h),
        char_cnn=CharCNNOptions(embedding_dim=max(4, h // 8), filters=filters, n_highway=2),
        n_tokens_vocab=shape.vocab_size, dropout=size.dropout)


def _sampled(shape):
    """Words the sampled softmax draws, or 0: the full softmax."""
    return SAMPLED_WORDS if shape.vocab_size > SAMPLED_WORDS else 0


def write_records(corpus, vocabulary, shape, seed, output):
    """Streams for `batch` rows of `seq_length`-word windows (the writer draws nothing at random)."""
    return ["create_pretraining_data.py", "--model=elmo", f"--input_file={corpus}", f"--output_file={output}",
            f"--vocab_file={vocabulary}", f"--batch_size={shape.batch}", f"--unroll_steps={shape.seq_length}",
            "--num_workers=2"]


def pretraining_flags(config_file, shape, vocabulary):
    return ["--model=elmo", f"--options_file={config_file}", f"--vocab_file={vocabulary}",
            f"--unroll_steps={shape.seq_length}", f"--n_negative_samples_batch={_sampled(shape)}"]


def optimizer_flags(learning_rate, warmup_steps):
    """None: the original's Adagrad (`run_pretraining.py --model=elmo` without `--optimizer`)."""
    return []


def flops(config, shape):
    return pretraining_flops(config, shape.seq_length, shape.batch, _sampled(shape))


SYSTEMS = (
    System("elmo", "ELMo", "elmo", VOCABULARY, config, records="elmo", write_records=write_records,
           pretraining_flags=pretraining_flags, flops=flops, optimizer_flags=optimizer_flags),
)
