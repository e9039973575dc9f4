"""One chunk of documents -> framed GPT pretraining records: the unit of work
of the offline writer (`data.pretraining.writer.write_pretraining_data` with
`processor_class=GPTChunkProcessor`).

A chunk is one token stream (`families.gpt.pretraining.records`), cut into
windows; window i of a chunk goes to shard (`chunk.first_shard` + i) mod shards. Nothing is
drawn at random (training shuffles the windows), so the output depends on the
corpus, the settings and `--documents_per_chunk` only, not on the workers.
"""

import collections
import dataclasses

from data.pretraining import features as F
from data.pretraining.example_encoding import encode_examples
from data.pretraining.tfrecord_writer import frame_records, shard_blobs
from data.pretraining.writer import framed_summary
from families.gpt.pretraining.records import NEWLINE_PIECE, feature_layout, windows
from families.gpt.tokenizer import GPTTokenizer

_LINES_PER_CALL = 1024  # lines the graph tokenizer takes at once


class GPTChunkProcessor:
    """Tokenizes a chunk with GPT's BPE and writes its windows.

    Example:
    >>> processor = GPTChunkProcessor(GPTDataConfig(max_seq_length=512), "encoder_bpe_40000.json", True)
    >>> blobs, shard_counts, counts = processor(Chunk(0, 0, 0, [["A sentence.", "Another one."], ["Doc two."]]))
    """

    strict_utf8 = True  # bad bytes are an error naming the file and line, not dropped text
    family = "gpt"

    def __init__(self, config, vocab_file, do_lower_case=True, num_shards=1):
        del do_lower_case  # GPT's pipeline lower-cases always
        self.config, self.vocab_file, self.num_shards = config, vocab_file, num_shards
        tokenizer = GPTTokenizer.from_file(vocab_file)
        self.encode_batch = _batch_encoder(tokenizer, config.original_tokenizer)
        self.n_vocab = tokenizer.bpe.n_vocab
        self.newline_id = tokenizer.bpe.encoder.get(NEWLINE_PIECE)
        if self.newline_id is None:
            raise ValueError(f"{vocab_file}: no newline piece {NEWLINE_PIECE!r}, which ends each document "
                             "in the records (the release and build_bpe_vocab.py have it)")
        self.layout = feature_layout(config.max_seq_length)

    def metadata_settings(self):
        """What run_pretraining.py --model=gpt must agree with (`records_metadata`):
        the writer's settings and the BPE vocabulary's size (`vocab_size`)."""
        return {**dataclasses.asdict(self.config), "vocab_size": self.n_vocab, "vocab_file": self.vocab_file}

    @staticmethod
    def no_output_reason(input_files):
        return f"no tokens in {', '.join(input_files)}: every line is blank"

    def __call__(self, chunk):
        """One blob of framed records per shard, the record count per shard,
        and counts for the summary, of a `corpus_reader.Chunk`."""
        counts = collections.Counter()
        input_ids, input_mask = windows(self.stream(chunk.documents, counts), self.config.max_seq_length)
        framed = frame_records(encode_examples({F.INPUT_IDS: input_ids, F.INPUT_MASK: input_mask},
                                               self.layout)).to_bytes()
        blobs, shard_counts = shard_blobs(framed, self.num_shards, chunk.first_shard(self.num_shards))
        lengths = input_mask.sum(axis=1)
        counts["instances"] += len(lengths)
        counts["tokens"] += int(lengths.sum())
        counts["targets"] += int((lengths - 1).sum())
        counts["padded"] += int((lengths < self.config.max_seq_length).sum())
        return blobs, shard_counts, counts

    def stream(self, documents, counts):
        """The chunk's ids: each document's lines, then the newline piece."""
        lines = [line for document in documents for line in document]
        encoded = []
        for start in range(0, len(lines), _LINES_PER_CALL):
            encoded += self.encode_batch(lines[start:start + _LINES_PER_CALL])
        stream, line = [], 0
        for document in documents:
            for ids in encoded[line:line + len(document)]:
                stream += ids
                counts["lines_without_tokens"] += not ids
            line += len(document)
            stream.append(self.newline_id)
        counts["documents"] += len(documents)
        counts["corpus_tokens"] += len(stream)
        return stream


def _batch_encoder(tokenizer, original):
    """lines -> their ids: the original Python pipeline, or the text side's
    in-graph tokenizer (whose TensorFlow a writer of the original's ids does
    not load)."""
    if original:
        return lambda lines: [tokenizer.encode(line) for line in lines]
    from families.gpt.text_side import GPTText
    return GPTText(tokenizer).encode_batch


def summary_lines(counts):
    """Human-readable summary of a run's counts."""
    get = counts.get
    instances = max(get("instances", 0), 1)
    return framed_summary(counts, [
        f"documents {get('documents', 0)}, {get('corpus_tokens', 0)} tokens (a newline ending each "
        f"document), lines without tokens {get('lines_without_tokens', 0)}",
        f"records {get('instances', 0)} ({get('padded', 0)} padded: the last of a chunk), "
        f"{get('tokens', 0)} tokens, {get('targets', 0)} predicted "
        f"({get('tokens', 0) / instances:.1f} tokens per record)"])
