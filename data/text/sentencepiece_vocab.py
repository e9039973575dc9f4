"""Learns XLNet's SentencePiece model (`spiece.model`) from a text corpus.

The trainer settings follow the original XLNet release: a unigram model,
`<unk> <s> </s>` at 0, 1, 2, the control symbols `<cls> <sep> <pad> <mask>
<eod>` at 3..7 and the user-defined `<eop>` at 8 (user-defined, so a literal
"<eop>" in text becomes that one piece, as in the original's data), then the
original's user-defined punctuation. Lines are the sentences; blank lines are
skipped.
"""

import io

import sentencepiece as spm

from data.pretraining.corpus_reader import CorpusError, expand_input_files
from utils.files import atomic_write_bytes

SPECIAL_SYMBOLS = {"<unk>": 0, "<s>": 1, "</s>": 2, "<cls>": 3, "<sep>": 4, "<pad>": 5,
                   "<mask>": 6, "<eod>": 7, "<eop>": 8}
CONTROL_SYMBOLS = ("<cls>", "<sep>", "<pad>", "<mask>", "<eod>")
# The trainer reads these as CSV: '""""' is the one-character piece '"'.
USER_DEFINED_SYMBOLS = ("<eop>", ".", "(", ")", '""""', "-", "–", "£", "€")


def read_sentences(files):
    """Non-blank lines of `files`; invalid UTF-8 or a corpus without text is
    an error naming the file (and line)."""
    sentences = []
    for path in files:
        with open(path, "rb") as f:
            for line_no, raw in enumerate(f, start=1):
                try:
                    line = raw.decode("utf-8").strip()
                except UnicodeDecodeError as e:
                    raise CorpusError(f"{path}:{line_no}: invalid UTF-8 ({e.reason})") from None
                if line:
                    sentences.append(line)
    if not sentences:
        raise CorpusError(f"empty corpus: no text lines in {', '.join(files)}")
    return sentences


def train_sentencepiece(input_files, model_file, vocab_size, character_coverage=0.99995,
                        hard_vocab_limit=True, seed_sentencepiece_size=1_000_000):
    """Learns the model from `input_files` (paths or globs) and writes it to
    `model_file` atomically; returns the serialized model."""
    sentences = read_sentences(expand_input_files(input_files))
    model = io.BytesIO()
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences), model_writer=model, model_type="unigram",
            vocab_size=vocab_size, character_coverage=character_coverage,
            unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
            control_symbols=",".join(CONTROL_SYMBOLS),
            user_defined_symbols=",".join(USER_DEFINED_SYMBOLS),
            hard_vocab_limit=hard_vocab_limit, seed_sentencepiece_size=seed_sentencepiece_size,
            shuffle_input_sentence=True, minloglevel=2)
    except RuntimeError as e:  # e.g. a vocab_size the corpus cannot fill
        raise CorpusError(f"{input_files}: sentencepiece could not learn a model: {e}") from None
    data = model.getvalue()
    check_special_symbols(spm.SentencePieceProcessor(model_proto=data), model_file)
    atomic_write_bytes(model_file, data)
    return data


def check_special_symbols(sp, name):
    """Raises naming the model when a special symbol is not at XLNet's id."""
    for piece, expected in SPECIAL_SYMBOLS.items():
        if sp.piece_to_id(piece) != expected:
            raise ValueError(f"{name}: {piece} has id {sp.piece_to_id(piece)}, XLNet expects {expected}")
