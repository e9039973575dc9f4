"""Names, widths and kinds of the pretraining TFRecord features, in the
google-research layout, so files made here train there and the reverse."""

INPUT_IDS = "input_ids"
INPUT_MASK = "input_mask"
SEGMENT_IDS = "segment_ids"
MASKED_LM_POSITIONS = "masked_lm_positions"
MASKED_LM_IDS = "masked_lm_ids"
MASKED_LM_WEIGHTS = "masked_lm_weights"
NEXT_SENTENCE_LABELS = "next_sentence_labels"

INT = "int64"
FLOAT = "float"


def feature_layout(max_seq_length, label_width, next_sentence_labels=True):
    """Ordered {name: (width, kind)} of one serialized example."""
    layout = {
        INPUT_IDS: (max_seq_length, INT),
        INPUT_MASK: (max_seq_length, INT),
        SEGMENT_IDS: (max_seq_length, INT),
        MASKED_LM_POSITIONS: (label_width, INT),
        MASKED_LM_IDS: (label_width, INT),
        MASKED_LM_WEIGHTS: (label_width, FLOAT),
    }
    if next_sentence_labels:
        layout[NEXT_SENTENCE_LABELS] = (1, INT)
    return layout
