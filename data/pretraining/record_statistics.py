"""Statistics of pretraining TFRecords, ours or the original script's: how
many tokens are LM targets, how targets were replaced, the next-sentence
balance and the length distribution. Used to check that generated data
follows the algorithm.

Example:
  python -m data.pretraining.record_statistics --input_file='out/*.tfrecord' --vocab_file=vocab.txt
"""

import sys

import numpy as np

from data.pretraining import features as F


def read_examples(paths):
    """All examples of TFRecord files as {feature name: [examples, width] array}."""
    import tensorflow as tf

    columns = {}
    for serialized in tf.data.TFRecordDataset(list(paths)).as_numpy_iterator():
        example = tf.train.Example.FromString(serialized)
        for name, feature in example.features.feature.items():
            values = feature.float_list.value if feature.HasField("float_list") else feature.int64_list.value
            columns.setdefault(name, []).append(np.array(values))
    return {name: np.stack(rows) for name, rows in columns.items()}


def statistics(examples, mask_id, max_seq_length):
    """Shares that the algorithm fixes, computed from decoded examples."""
    lengths = examples[F.INPUT_MASK].sum(axis=1)
    weights = examples[F.MASKED_LM_WEIGHTS] > 0
    rows = np.arange(len(lengths))[:, None]
    shown = examples[F.INPUT_IDS][rows, examples[F.MASKED_LM_POSITIONS]][weights]
    labels = examples[F.MASKED_LM_IDS][weights]
    targets = max(int(weights.sum()), 1)
    stats = {
        "instances": len(lengths),
        "mean_length": float(lengths.mean()),
        "full_length_share": float((lengths == max_seq_length).mean()),
        "under_half_length_share": float((lengths < max_seq_length / 2).mean()),
        "target_share_of_tokens": weights.sum() / lengths.sum(),
        "mask_share": (shown == mask_id).sum() / targets,
        "kept_share": (shown == labels).sum() / targets,
    }
    stats["random_share"] = 1.0 - stats["mask_share"] - stats["kept_share"]
    if F.NEXT_SENTENCE_LABELS in examples:
        stats["random_next_share"] = float(examples[F.NEXT_SENTENCE_LABELS].mean())
    return stats


def main(argv):
    # Flags are defined only when run as a script: the original
    # create_pretraining_data module, often imported beside this one, defines
    # --input_file and --vocab_file too.
    from absl import flags

    from data.pretraining.corpus_reader import expand_input_files
    from data.text.vocab import Vocab

    flags.DEFINE_string("input_file", None, "TFRecord file(s) or glob(s), comma-separated.")
    flags.DEFINE_string("vocab_file", None, "Vocabulary the records were written with.")
    flags.DEFINE_integer("max_seq_length", 128, "Sequence length of the records.")
    flags.FLAGS(argv)
    examples = read_examples(expand_input_files(flags.FLAGS.input_file))
    mask_id = Vocab.from_file(flags.FLAGS.vocab_file).mask_id
    for name, value in statistics(examples, mask_id, flags.FLAGS.max_seq_length).items():
        print(f"{name:>24}: {value:.4f}" if isinstance(value, float) else f"{name:>24}: {value}")


if __name__ == "__main__":
    main(sys.argv)
