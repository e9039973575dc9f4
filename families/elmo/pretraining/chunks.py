"""One chunk of documents -> ELMo pretraining records: the unit of work of the
offline writer (`data.pretraining.writer.write_pretraining_data` with
`processor_class=ELMoChunkProcessor`).

A chunk is one stream of sentences (each line a sentence, its words those of
`characters.split_words`), cut into windows for `batch_size` rows
(`windows.windows`). A whole chunk goes to one output shard (chunk index mod
shards), so each shard holds whole batches in stream order, which the LSTM
state carried from batch to batch needs. No randomness: the output does not
depend on the number of workers.
"""

import collections
import dataclasses

from data.pretraining.example_encoding import encode_examples
from data.pretraining.tfrecord_writer import frame_records
from families.elmo.characters import split_words
from families.elmo.pretraining import features as E
from families.elmo.pretraining.vocabulary import LMVocabulary
from families.elmo.pretraining.windows import windows


@dataclasses.dataclass(frozen=True)
class ELMoDataConfig:
    """The original's `batch_size` (rows: the training batch) and `unroll_steps`
    (inputs per window); its training defaults."""

    batch_size: int = 128
    unroll_steps: int = 20

    def __post_init__(self):
        for name in ("batch_size", "unroll_steps"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"--{name}={value} must be a positive integer")


class ELMoChunkProcessor:
    """Splits a chunk's lines into words, looks them up and writes its windows.

    Example:
    >>> processor = ELMoChunkProcessor(ELMoDataConfig(batch_size=4, unroll_steps=8), "vocab.txt")
    >>> blobs, shard_counts, counts = processor(Chunk(0, 0, 0, [["A sentence.", "Another one."], ["Doc two."]]))
    """

    strict_utf8 = True  # the original reads text strictly: a bad byte stops it
    family = "elmo"

    def __init__(self, config, vocab_file, do_lower_case=False, num_shards=1):
        del do_lower_case  # words are kept as written, as the original's
        self.config = config
        self.vocab = LMVocabulary.from_file(vocab_file)
        self.num_shards = num_shards

    def metadata_settings(self):
        """What run_pretraining.py --model=elmo must agree with (`records_metadata`)."""
        return {**dataclasses.asdict(self.config), "vocab_size": self.vocab.size,
                "vocab_file": self.vocab.path, "vocab_sha1": self.vocab.sha1}

    def no_output_reason(self, input_files):
        c = self.config
        return (f"no records from {', '.join(input_files)}: every line is blank, or no chunk of "
                f"documents fills {c.batch_size} rows (batch_size) of {c.unroll_steps} tokens "
                f"(unroll_steps)")

    def __call__(self, chunk):
        """One blob of framed records per shard (all in `chunk.first_shard`),
        the record count per shard, and counts for the summary, of a
        `corpus_reader.Chunk`."""
        counts = collections.Counter(documents=len(chunk.documents))
        sentences = []
        for document in chunk.documents:
            for line in document:
                words = split_words(line)
                counts["lines_without_words"] += not words
                if words:
                    sentences.append(words)
        c = self.config
        features, left_over = windows(sentences, self.vocab, c.batch_size, c.unroll_steps)
        count = len(features[E.TOKEN_IDS])
        blobs, shard_counts = [b""] * self.num_shards, [0] * self.num_shards
        if count:
            shard = chunk.first_shard(self.num_shards)
            records = encode_examples(features, E.feature_layout(c.unroll_steps))
            blobs[shard] = frame_records(records).flat().tobytes()
            shard_counts[shard] = count
        inputs = features[E.TOKEN_IDS]
        counts.update(sentences=len(sentences), words=sum(map(len, sentences)), instances=count,
                      tokens=inputs.size, left_over=left_over,
                      unknown=int((inputs == self.vocab.unk).sum()))
        return blobs, shard_counts, counts


def summary_lines(counts):
    """Human-readable summary of a run's counts."""
    get = counts.get
    tokens = max(get("tokens", 0), 1)
    seconds = max(get("seconds", 0.0), 1e-9)
    return [
        f"files {get('files', 0)}, lines {get('lines', 0)}, {get('bytes', 0) / 1e6:.1f} MB",
        f"documents {get('documents', 0)}, sentences {get('sentences', 0)}, words {get('words', 0)}, "
        f"lines without words {get('lines_without_words', 0)}",
        f"windows {get('instances', 0)}, {get('tokens', 0)} inputs each way (<S> included), "
        f"<UNK> {get('unknown', 0) / tokens:.2%} of them; {get('left_over', 0)} inputs left over in "
        f"the last, partial batch of each chunk (dropped, as the original does)",
        f"{seconds:.1f} s, {get('instances', 0) / seconds:.0f} windows/s",
    ]
