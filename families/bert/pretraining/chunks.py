"""One chunk of documents -> serialized, framed pretraining records: the
unit of work of both writers (the local process pool and the Beam
pipeline), independent of every other chunk.

Each document draws its instances from a generator seeded with
(random_seed, the document's number in the corpus), and then the key of the
stream its masking draws from (`masking.BlockDraws`); the chunk
shuffles its records with (random_seed, its first document's number), so the
output depends on the seed and the corpus, not on how many processes or
machines share the work, nor on which one runs a chunk. Random next segments
come from the other documents of the chunk.
"""

import collections
import hashlib
import random
import struct

import numpy as np

from data.pretraining import features as F
from data.pretraining.example_encoding import encode_examples
from families.bert.pretraining.instances import InstanceBuilder, to_arrays
from families.bert.pretraining.masking import BlockDraws, Masker, next_token_targets
from data.pretraining.tfrecord_writer import frame_records, shard_blobs
from data.text.cached_tokenizer import CachedTokenizer
from data.text.tokenization import FullTokenizer

# Instances serialized together: large enough for whole-array NumPy work to
# pay off, small enough to keep the byte matrices of a batch in tens of MB.
_ENCODE_BATCH = 4096
# Streams of the run seed: a document's instances and masking, a chunk's shuffle.
_DOCUMENT, _CHUNK = 0, 1


class ChunkProcessor:
    """Tokenizes, builds instances, masks and serializes one chunk.

    Example:
    >>> processor = ChunkProcessor(config, "vocab.txt", do_lower_case=True)
    >>> blobs, shard_counts, counts = processor(Chunk(0, 0, 0, [["A sentence.", "Another one."], ["Doc two."]]))
    """

    strict_utf8 = False  # invalid bytes are replaced, then dropped, as the original's 'ignore'
    family = "bert"

    def __init__(self, config, vocab_file, do_lower_case, num_shards=1):
        self.config = config
        self.vocab_file, self.do_lower_case = vocab_file, do_lower_case
        self.num_shards = num_shards
        self.tokenizer = CachedTokenizer(FullTokenizer(vocab_file, do_lower_case))
        vocab = self.tokenizer.vocab
        self.builder = InstanceBuilder(
            config.max_seq_length,
            config.short_seq_prob,
            config.next_sentence_prediction,
            vocab.cls_id,
            vocab.sep_id,
        )
        self.masker = Masker(
            config.masking,
            len(vocab),
            vocab.cls_id,
            vocab.sep_id,
            vocab.mask_id,
            self.tokenizer.continuation_table(),
        )
        self.layout = F.feature_layout(config.max_seq_length, config.label_width, config.next_sentence_prediction)

    def __call__(self, chunk):
        """The chunk's framed TFRecord records as one blob per output shard
        (dealt round-robin from `chunk.first_shard`), the record count per
        shard, and counts for the summary."""
        counts = collections.Counter()
        tokenized = [self.tokenize_document(d, counts) for d in chunk.documents]
        numbers = [chunk.first_document + i for i, sentences in enumerate(tokenized) if sentences]
        tokenized = [sentences for sentences in tokenized if sentences]
        counts["documents"] += len(tokenized)
        self.builder.short_targets = 0
        records, batch, keys, generators, sizes = [], [], [], [], []
        for index, number in enumerate(numbers):
            rng = seeded_random(self.config.random_seed, _DOCUMENT, number)
            instances = self.builder.passes(tokenized, index, self.config.dupe_factor, rng)
            batch += instances
            keys.append(rng.getrandbits(64))  # its masking stream, drawn when its batch is full
            generators.append(rng)
            sizes.append(len(instances))
            if len(batch) >= _ENCODE_BATCH or index == len(numbers) - 1:
                features = self.features(batch, BlockDraws(keys, sizes, generators), counts)
                records += frame_records(encode_examples(features, self.layout)).to_bytes()
                batch, keys, generators, sizes = [], [], [], []
        counts["short_targets"] += self.builder.short_targets
        seeded_random(self.config.random_seed, _CHUNK, chunk.first_document).shuffle(records)
        blobs, shard_counts = shard_blobs(records, self.num_shards, chunk.first_shard(self.num_shards))
        return blobs, shard_counts, counts

    def metadata_settings(self):
        """What run_pretraining.py must agree with (`records_metadata`), in its
        flag names: `max_predictions_per_seq` is the width of the masked_lm_*
        features (max_seq_length for ltr)."""
        c = self.config
        return {"max_seq_length": c.max_seq_length, "max_predictions_per_seq": c.label_width,
                "next_sentence_labels": c.next_sentence_prediction, "objective": c.objective,
                "max_sequences_per_pack": 0, "vocab_size": len(self.tokenizer.vocab),
                "vocab_file": self.vocab_file, "do_lower_case": self.do_lower_case,
                "dupe_factor": c.dupe_factor, "random_seed": c.random_seed}

    @staticmethod
    def no_output_reason(input_files):
        return f"no documents in {', '.join(input_files)}: every line is blank or has no tokens"

    def tokenize(self, documents, counts):
        """Documents of token-id sentences; lines with no tokens are skipped and
        documents left empty are dropped, as in the original."""
        tokenized = [sentences for sentences in (self.tokenize_document(d, counts) for d in documents) if sentences]
        counts["documents"] += len(tokenized)
        return tokenized

    def tokenize_document(self, document, counts):
        """The token-id sentences of one document (none if no line has a token)."""
        max_tokens = self.config.max_seq_length - (3 if self.config.next_sentence_prediction else 2)
        sentences = [ids for ids in map(self.tokenizer.encode, document) if ids]
        counts["documents_read"] += 1
        counts["lines_without_tokens"] += len(document) - len(sentences)
        counts["long_lines"] += sum(len(ids) > max_tokens for ids in sentences)
        counts["single_sentence_documents"] += len(sentences) == 1
        counts["corpus_tokens"] += sum(len(ids) for ids in sentences)
        return sentences

    def features(self, instances, rng, counts):
        """Arrays of every feature of the instances, LM targets included;
        `rng` draws the masking (a generator or `BlockDraws`)."""
        arrays = to_arrays(instances, self.config.max_seq_length)
        if self.config.left_to_right:
            targets = next_token_targets(arrays.input_ids, arrays.lengths)
        else:
            targets = self.masker(arrays.input_ids, arrays.lengths, rng)
        features = {
            F.INPUT_IDS: targets.input_ids,
            F.INPUT_MASK: (np.arange(self.config.max_seq_length) < arrays.lengths[:, None]).astype(np.int64),
            F.SEGMENT_IDS: arrays.segment_ids,
            F.MASKED_LM_POSITIONS: targets.positions,
            F.MASKED_LM_IDS: targets.label_ids,
            F.MASKED_LM_WEIGHTS: targets.weights,
        }
        if self.config.next_sentence_prediction:
            features[F.NEXT_SENTENCE_LABELS] = arrays.is_random_next[:, None]
        self._count(features, targets, arrays.lengths, arrays.is_random_next, counts)
        return features

    def _count(self, features, targets, lengths, is_random_next, counts):
        counts["instances"] += len(lengths)
        counts["tokens"] += int(lengths.sum())
        counts["random_next"] += int(is_random_next.sum())
        counts["full_length"] += int((lengths == self.config.max_seq_length).sum())
        chosen = targets.weights > 0
        counts["targets"] += int(chosen.sum())
        if not self.config.left_to_right:
            rows = np.arange(len(lengths))[:, None]
            shown = features[F.INPUT_IDS][rows, targets.positions][chosen]
            labels = targets.label_ids[chosen]
            counts["replaced_by_mask"] += int((shown == self.masker.mask_id).sum())
            counts["kept"] += int((shown == labels).sum())


def seeded_random(*words):
    """A `random.Random` seeded with a hash of non-negative integers (the run seed, a stream, a number)."""
    digest = hashlib.blake2b(struct.pack(f"<{len(words)}Q", *words), digest_size=16).digest()
    return random.Random(int.from_bytes(digest, "little"))
