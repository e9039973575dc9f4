"""Names, widths and kinds of the pretraining TFRecord features, in the
google-research layout, so files made here train there and the reverse;
packed rows (`families.bert.pretraining.sequence_packing`) add two features of their own."""

INPUT_IDS = "input_ids"
INPUT_MASK = "input_mask"
SEGMENT_IDS = "segment_ids"
MASKED_LM_POSITIONS = "masked_lm_positions"
MASKED_LM_IDS = "masked_lm_ids"
MASKED_LM_WEIGHTS = "masked_lm_weights"
NEXT_SENTENCE_LABELS = "next_sentence_labels"
NEXT_SENTENCE_POSITIONS = "next_sentence_positions"
NEXT_SENTENCE_WEIGHTS = "next_sentence_weights"

INT = "int64"
FLOAT = "float"
BYTES = "bytes"  # a list of byte strings (words), for records that carry text


def feature_layout(max_seq_length, label_width, next_sentence_labels=True,
                   max_sequences_per_pack=0):
    """Ordered {name: (width, kind)} of one serialized example; with
    `max_sequences_per_pack`, of a packed row (`families.bert.pretraining.sequence_packing`), whose
    `next_sentence_labels` are that many wide and `masked_lm_weights` fractional."""
    layout = {
        INPUT_IDS: (max_seq_length, INT),
        INPUT_MASK: (max_seq_length, INT),
        SEGMENT_IDS: (max_seq_length, INT),
        MASKED_LM_POSITIONS: (label_width, INT),
        MASKED_LM_IDS: (label_width, INT),
        MASKED_LM_WEIGHTS: (label_width, FLOAT),
    }
    if next_sentence_labels and max_sequences_per_pack:
        layout[NEXT_SENTENCE_POSITIONS] = (max_sequences_per_pack, INT)
        layout[NEXT_SENTENCE_LABELS] = (max_sequences_per_pack, INT)
        layout[NEXT_SENTENCE_WEIGHTS] = (max_sequences_per_pack, FLOAT)
    elif next_sentence_labels:
        layout[NEXT_SENTENCE_LABELS] = (1, INT)
    return layout
