"""Pretrained weights into a model built around an encoder, with the one rule
every user of a pretrained checkpoint follows: the encoder must come from it
whole (a checkpoint of another family or size is refused, not half loaded),
except the weights its family creates in fine-tuning."""

from absl import logging

from checkpoints.loader import CheckpointMismatchError, load_into


def load_pretrained(model, encoder, path):
    """Loads `path` into `model` (which holds `encoder`, or is it); returns the
    `LoadReport`, whose `missing` may still list weights outside the encoder (a
    task's head) and the encoder's `fine_tuning_weights`."""
    report = load_into(model, path)
    logging.info(report.summary())
    required = ({v.path for v in encoder.weights}
                - {v.path for v in getattr(encoder, "fine_tuning_weights", ())})
    missing = [p for p in report.missing if p in required]
    if missing:
        raise CheckpointMismatchError(
            f"{path} has no value for {len(missing)} encoder variables, e.g. {missing[:3]}: "
            "is it a checkpoint of this model family?")
    return report
