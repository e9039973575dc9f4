"""One chunk of documents -> framed XLNet pretraining records: the unit of
work of the offline writer (`writer.write_pretraining_data` with
`processor_class=XLNetChunkProcessor`).

A chunk is one token stream, as one input file is in the original: lines are
the sentences, an `<eod>` ends each document, and the stream is cut into
`bsz_per_host` rows (`xlnet_records`). A whole chunk goes to one output shard
(`Chunk.first_shard`), so each shard holds whole batches in stream order,
which is what memory across batches needs. Randomness comes from
(random_seed, the number of the chunk's first document in the corpus), so the
output does not depend on the number of workers or machines, nor on which
one runs a chunk.
"""

import collections
import dataclasses
import random

import numpy as np

from families.xlnet.pretraining import features as X
from data.pretraining.example_encoding import encode_examples
from data.pretraining.tfrecord_writer import frame_records
from data.pretraining.writer import framed_summary
from families.xlnet.pretraining.records import CLS_ID, EOD_ID, SEP_ID, records
from families.xlnet.pretraining.spans import start_piece_table
from families.xlnet.tokenizer import XLNetTokenizer


class XLNetChunkProcessor:
    """Tokenizes a chunk with SentencePiece and writes its records.

    Example:
    >>> processor = XLNetChunkProcessor(XLNetDataConfig(seq_len=128, reuse_len=64), "spiece.model", False)
    >>> blobs, shard_counts, counts = processor(Chunk(0, 0, 0, [["A sentence.", "Another one."], ["Doc two."]]))
    """

    strict_utf8 = True  # the original reads text strictly: a bad byte stops it
    family = "xlnet"

    def __init__(self, config, sp_path, uncased, num_shards=1):
        self.config = config
        self.sp_path, self.uncased = sp_path, uncased
        self.num_shards = num_shards
        self.tokenizer = XLNetTokenizer(sp_path, lower=uncased)
        self.starts = start_piece_table(self.tokenizer.sp)

    def metadata_settings(self):
        """What run_pretraining.py --model=xlnet must agree with (`records_metadata`):
        the writer's settings, and the SentencePiece model's size (`vocab_size`)."""
        return {**dataclasses.asdict(self.config), "vocab_size": self.tokenizer.sp.get_piece_size(),
                "sp_path": self.sp_path, "uncased": self.uncased}

    def no_output_reason(self, input_files):
        c = self.config
        return (f"no records from {', '.join(input_files)}: every line is blank, or no chunk of "
                f"documents fills {c.bsz_per_host} rows (bsz_per_host) of more than {c.seq_len} "
                f"tokens (seq_len)")

    def __call__(self, chunk):
        """One blob of framed records per shard (all in `chunk.first_shard`),
        the record count per shard, and counts for the summary."""
        counts = collections.Counter()
        data, sent_ids = self.stream(chunk.documents, counts)
        seed = np.random.SeedSequence([self.config.random_seed, chunk.first_document]).generate_state(2)
        features = records(data, sent_ids, self.config, self.starts, random.Random(int(seed[0])),
                           np.random.RandomState(int(seed[1])))
        count = len(features[X.INPUT])
        blobs, shard_counts = [b""] * self.num_shards, [0] * self.num_shards
        if count:
            shard = chunk.first_shard(self.num_shards)
            blobs[shard] = frame_records(encode_examples(features, X.feature_layout(self.config.seq_len))).flat().tobytes()
            shard_counts[shard] = count
        self._count(features, counts)
        return blobs, shard_counts, counts

    def stream(self, documents, counts):
        """(token ids, sentence ids) of the chunk: the sentence id flips after
        every line; `<eod>` closes each document on its last sentence's id, as
        the original's blank line does."""
        data, sent_ids, sent_id = [], [], True
        for document in documents:
            for line in document:
                ids = self.tokenizer.encode_ids(line)
                data += ids
                sent_ids += [sent_id] * len(ids)
                sent_id = not sent_id
                counts["lines_without_tokens"] += not ids
            if self.config.use_eod:
                data.append(EOD_ID)
                sent_ids.append(not sent_id)
        counts["documents"] += len(documents)
        counts["corpus_tokens"] += len(data)
        return np.array(data, dtype=np.int64), np.array(sent_ids, dtype=bool)

    def _count(self, features, counts):
        inputs = features[X.INPUT]
        counts["instances"] += len(inputs)
        counts["tokens"] += inputs.size
        masked = features[X.IS_MASKED] > 0
        counts["targets"] += int(masked.sum())
        counts["function_targets"] += int((masked & ((inputs == SEP_ID) | (inputs == CLS_ID))).sum())
        counts["continuations"] += int(features[X.LABEL].sum())


def summary_lines(counts):
    """Human-readable summary of a run's counts."""
    get = counts.get
    instances = max(get("instances", 0), 1)
    return framed_summary(counts, [
        f"documents {get('documents', 0)}, {get('corpus_tokens', 0)} tokens (<eod> included), "
        f"lines without tokens {get('lines_without_tokens', 0)}",
        f"records {get('instances', 0)}, {get('tokens', 0) / max(get('corpus_tokens', 0), 1):.1f}x the corpus "
        f"tokens (windows overlap by reuse_len, random Bs repeat text); B continues A in "
        f"{get('continuations', 0) / instances:.1%}",
        f"targets {get('targets', 0)} ({get('targets', 0) / instances:.1f} per record), "
        f"of which <sep>/<cls> {get('function_targets', 0)} (not predicted)"])
