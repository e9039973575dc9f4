"""One chunk of documents -> serialized, framed pretraining records: the
unit of work of the offline writer, independent of every other chunk.

Each chunk draws its randomness from (random_seed, chunk index), so the
output depends on the seed and the corpus, not on how many processes share
the work.
"""

import collections
import random

import numpy as np

from data.pretraining import features as F
from data.pretraining.example_encoding import encode_examples
from families.bert.pretraining.instances import InstanceBuilder, to_arrays
from families.bert.pretraining.masking import Masker, next_token_targets
from data.pretraining.tfrecord_writer import frame_records, shard_blobs
from data.text.cached_tokenizer import CachedTokenizer
from data.text.tokenization import FullTokenizer

# Instances serialized together: large enough for whole-array NumPy work to
# pay off, small enough to keep the byte matrices of a batch in tens of MB.
_ENCODE_BATCH = 4096


class ChunkProcessor:
    """Tokenizes, builds instances, masks and serializes one chunk.

    Example:
    >>> processor = ChunkProcessor(config, "vocab.txt", do_lower_case=True)
    >>> blobs, shard_counts, counts = processor(0, [["A sentence.", "Another one."], ["Doc two."]])
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

    def __call__(self, chunk_index, documents):
        """The chunk's framed TFRecord records as one blob per output shard
        (record i of the chunk goes to shard (chunk_index + i) % num_shards),
        the record count per shard, and counts for the summary."""
        counts = collections.Counter()
        tokenized = self.tokenize(documents, counts)
        seed = [self.config.random_seed, chunk_index]
        rng = random.Random(int(np.random.SeedSequence(seed).generate_state(1)[0]))
        self.builder.short_targets = 0
        instances = self.builder.build(tokenized, self.config.dupe_factor, rng)
        counts["short_targets"] += self.builder.short_targets
        masking_rng = np.random.default_rng(seed)
        parts, shard_counts = [[] for _ in range(self.num_shards)], [0] * self.num_shards
        for start in range(0, len(instances), _ENCODE_BATCH):
            features = self.features(instances[start : start + _ENCODE_BATCH], masking_rng, counts)
            framed = frame_records(encode_examples(features, self.layout))
            blobs, batch_counts = shard_blobs(framed, self.num_shards, (chunk_index + start) % self.num_shards)
            for shard in range(self.num_shards):
                parts[shard].append(blobs[shard])
                shard_counts[shard] += batch_counts[shard]
        return [b"".join(p) for p in parts], shard_counts, counts

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
        max_tokens = self.config.max_seq_length - (3 if self.config.next_sentence_prediction else 2)
        tokenized = []
        for document in documents:
            sentences = [ids for ids in map(self.tokenizer.encode, document) if ids]
            counts["documents_read"] += 1
            counts["lines_without_tokens"] += len(document) - len(sentences)
            counts["long_lines"] += sum(len(ids) > max_tokens for ids in sentences)
            counts["single_sentence_documents"] += len(sentences) == 1
            if sentences:
                tokenized.append(sentences)
        counts["documents"] += len(tokenized)
        counts["corpus_tokens"] += sum(len(ids) for document in tokenized for ids in document)
        return tokenized

    def features(self, instances, rng, counts):
        """Arrays of every feature of the instances, LM targets included."""
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
