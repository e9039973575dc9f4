"""What a multiple-choice model's logits become: probabilities and the
predictions file (one JSON object per example, in input order):

    {"id": "16668", "probabilities": [0.1, 0.7, 0.1, 0.1], "prediction": 1, "label": 1}

`label` appears only for examples that have one.
"""

import json

import numpy as np

from utils.files import atomic_output


def softmax(logits):
    logits = np.asarray(logits, np.float64)
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return shifted / shifted.sum(axis=-1, keepdims=True)


def write_predictions(path, examples, logits):
    """`path` as JSON lines: id, probabilities, predicted index (and label) per example."""
    logits = np.asarray(logits)
    if logits.shape[0] != len(examples):
        raise ValueError(f"{len(examples)} examples but {logits.shape[0]} rows of logits")
    probabilities = softmax(logits)
    with atomic_output(path) as f:
        for example, probs in zip(examples, probabilities):
            record = {"id": example.example_id,
                      "probabilities": [round(float(p), 6) for p in probs],
                      "prediction": int(probs.argmax())}
            if example.label is not None:
                record["label"] = example.label
            f.write(json.dumps(record) + "\n")
