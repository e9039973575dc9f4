"""Pretraining batches straight from raw text shards, with new instances and
new masks every epoch (dynamic masking), in the same feature dict as the
TFRecord reader.

Lines are tokenized in the graph (`GraphTokenizer`, identical to the Python
tokenizer); every `lines_per_chunk` lines, the sentence pairs and
next-sentence labels are built by the offline writer's own algorithm
(`InstanceBuilder`, through `tf.numpy_function`), and each batch is then
masked with TensorFlow ops (`tf_masking`). A document cut by a chunk
boundary counts as two documents, and random next segments come from the
same chunk. Every pass over the data is a fresh draw, so there is no
dupe_factor here: repeat the dataset instead.
"""

import random

import numpy as np
import tensorflow as tf

from data.pretraining import features as F
from families.bert.pretraining.config import PretrainingDataConfig
from data.pretraining.corpus_reader import expand_input_files
from families.bert.pretraining.instances import InstanceBuilder, to_arrays
from families.bert.pretraining.masking import next_token_targets
from families.bert.pretraining.tf_masking import DynamicMasker
from data.text.vocab import Vocab

# A line of only these characters ends a document (Python's str.isspace()).
_BLANK_LINE = "[" + "".join(f"\\x{{{c:x}}}" for c in range(0x3001) if chr(c).isspace()) + "]*"


def text_pretraining_dataset(
    input_files,
    vocab,
    batch_size,
    config=PretrainingDataConfig(),
    do_lower_case=True,
    tokenizer=None,
    lines_per_chunk=4096,
    shuffle_buffer=10_000,
    repeat=False,
    drop_remainder=False,
):
    """Batched pretraining features from text files in the original format.

    `vocab`: a vocab file or `Vocab`; `tokenizer`: anything with
    `tokenize(tf.string [batch]) -> int RaggedTensor [batch, (words), (pieces)]`,
    by default `GraphTokenizer(vocab, do_lower_case)`.

    Example:
    >>> dataset = text_pretraining_dataset("corpus/*.txt", "vocab.txt", 32, repeat=True)
    >>> sorted(next(iter(dataset)))
    ['input_ids', 'input_mask', 'masked_lm_ids', ...]
    """
    vocab = vocab if isinstance(vocab, Vocab) else Vocab.from_file(vocab)
    if tokenizer is None:
        from data.text.graph_tokenizer import GraphTokenizer

        tokenizer = GraphTokenizer(vocab, do_lower_case)
    builder = _ChunkInstances(config, vocab)
    lines = tf.data.TextLineDataset(expand_input_files(input_files))
    if repeat:
        lines = lines.repeat()
    dataset = lines.batch(lines_per_chunk).enumerate()
    dataset = dataset.map(lambda index, chunk: builder(index, chunk, tokenizer), num_parallel_calls=tf.data.AUTOTUNE)
    dataset = dataset.unbatch().shuffle(shuffle_buffer, seed=config.random_seed, reshuffle_each_iteration=True)
    dataset = dataset.batch(batch_size, drop_remainder=drop_remainder)
    if not config.left_to_right:
        masker = DynamicMasker(vocab, config.masking)
        seed = tf.constant(config.random_seed, tf.int64)
        dataset = dataset.enumerate().map(lambda index, features: masker(features, tf.stack([seed, index])))
    return dataset.prefetch(tf.data.AUTOTUNE)


class _ChunkInstances:
    """Tokenized lines of one chunk -> unmasked instance features."""

    def __init__(self, config, vocab):
        self.config = config
        self.builder = InstanceBuilder(
            config.max_seq_length, config.short_seq_prob, config.next_sentence_prediction, vocab.cls_id, vocab.sep_id
        )
        self.names = [F.INPUT_IDS, F.INPUT_MASK, F.SEGMENT_IDS]
        if config.left_to_right:
            self.names += [F.MASKED_LM_POSITIONS, F.MASKED_LM_IDS, F.MASKED_LM_WEIGHTS]
        if config.next_sentence_prediction:
            self.names.append(F.NEXT_SENTENCE_LABELS)

    def __call__(self, index, lines, tokenizer):
        pieces = tokenizer.tokenize(lines).merge_dims(1, 2)
        blank = tf.strings.regex_full_match(lines, _BLANK_LINE)
        types = [tf.float32 if name == F.MASKED_LM_WEIGHTS else tf.int32 for name in self.names]
        arrays = tf.numpy_function(
            self.build,
            [tf.cast(pieces.flat_values, tf.int32), pieces.row_splits, blank, index],
            types,
            stateful=False,
        )
        seq = self.config.max_seq_length
        features = {}
        for name, array in zip(self.names, arrays):
            array.set_shape([None, 1 if name == F.NEXT_SENTENCE_LABELS else seq])
            features[name] = array
        return features

    def build(self, ids, row_splits, blank, index):
        documents, document = [], []
        for line, is_blank in enumerate(blank):
            sentence = ids[row_splits[line] : row_splits[line + 1]].tolist()
            if is_blank and document:
                documents.append(document)
                document = []
            elif sentence:
                document.append(sentence)
        if document:
            documents.append(document)
        seed = np.random.SeedSequence([self.config.random_seed, int(index)]).generate_state(1)[0]
        instances = self.builder.build(documents, 1, random.Random(int(seed)))
        seq = self.config.max_seq_length
        arrays = to_arrays(instances, seq)
        values = {
            F.INPUT_IDS: arrays.input_ids,
            F.INPUT_MASK: np.arange(seq) < arrays.lengths[:, None],
            F.SEGMENT_IDS: arrays.segment_ids,
            F.NEXT_SENTENCE_LABELS: arrays.is_random_next[:, None],
        }
        if self.config.left_to_right:
            targets = next_token_targets(arrays.input_ids, arrays.lengths)
            values.update(
                {
                    F.MASKED_LM_POSITIONS: targets.positions,
                    F.MASKED_LM_IDS: targets.label_ids,
                    F.MASKED_LM_WEIGHTS: targets.weights,
                }
            )
        return [values[name].astype(np.float32 if name == F.MASKED_LM_WEIGHTS else np.int32) for name in self.names]
