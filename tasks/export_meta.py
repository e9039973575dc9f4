"""`export_meta.json`: what a fine-tuning run leaves in its output_dir so that
`python -m export.export_model --output_dir=...` can export it later.

The contract (JSON object; runners write it with `write_export_meta`):

    format_version          1
    task                    "classification" | "regression" | "squad" | "ner" | "multiple_choice"
    bert_config             the encoder's BertConfig as a dict (bert_config.json fields)
    causal_attention        bool, the left-to-right ablation's encoder (default false)
    do_lower_case           bool
    max_seq_length          int
    label_list              classification: class names in logit order; ner: tag names
                            in logit order; null otherwise
    paired                  classification/regression: inputs are sentence pairs
    doc_stride              squad and ner: pieces between window starts (ner default 64)
    squad                   squad only: {max_query_length, n_best_size, max_answer_length,
                            version_2_with_negative, null_score_diff_threshold}
    task_model              the task model's Keras config (`keras.saving.serialize_keras_object`,
                            encoder config inside); the export rebuilds the model from it
                            whatever its class or encoder family. Files written before this
                            field existed lack it: their model is rebuilt from `task`,
                            `bert_config`, `causal_attention` and `label_list`

`vocab.txt` is copied beside it, so the output_dir is self-contained. The
fine-tuned weights are the run's checkpoints (`checkpoints.loader` reads an
output_dir) or any checkpoint given to the exporter.
"""

import dataclasses
import json
import os
import shutil

from modeling.config import BertConfig
from utils.files import atomic_write_text, read_json_object

EXPORT_META_FILE = "export_meta.json"
VOCAB_FILE = "vocab.txt"
FORMAT_VERSION = 1
TASKS = ("classification", "regression", "squad", "ner", "multiple_choice")
SQUAD_OPTIONS = ("max_query_length", "n_best_size", "max_answer_length",
                 "version_2_with_negative", "null_score_diff_threshold")
NER_DOC_STRIDE = 64


class ExportMetaError(ValueError):
    """An export_meta.json that cannot be used; the message names file and field."""


@dataclasses.dataclass(frozen=True)
class ExportMeta:
    """A fine-tuned model's task, encoder config and text processing."""

    task: str
    bert_config: BertConfig
    vocab_file: str
    do_lower_case: bool = True
    max_seq_length: int = 128
    label_list: tuple = None
    paired: bool = False
    doc_stride: int = None
    squad: dict = None
    causal_attention: bool = False
    task_model: dict = None

    def __post_init__(self):
        if self.task_model is not None and not isinstance(self.task_model, dict):
            raise ExportMetaError("task_model must be a Keras config object, not "
                                  f"{type(self.task_model).__name__}")
        if self.task not in TASKS:
            raise ExportMetaError(f"task {self.task!r} is not one of {TASKS}")
        if self.task in ("classification", "ner") and not self.label_list:
            raise ExportMetaError(f"task {self.task!r} needs label_list")
        if self.task == "squad":
            missing = [k for k in SQUAD_OPTIONS if k not in (self.squad or {})]
            if missing or self.doc_stride is None:
                raise ExportMetaError(f"task 'squad' needs doc_stride and squad options {missing}")
            unknown = sorted(set(self.squad) - set(SQUAD_OPTIONS))
            if unknown:
                raise ExportMetaError(f"unknown squad option(s) {unknown}; expected {SQUAD_OPTIONS}")
        if self.max_seq_length > self.bert_config.max_position_embeddings:
            raise ExportMetaError(f"max_seq_length {self.max_seq_length} exceeds "
                                  f"max_position_embeddings {self.bert_config.max_position_embeddings}")

    def to_json(self):
        values = dataclasses.asdict(self)
        values.pop("vocab_file")
        values["bert_config"] = self.bert_config.to_dict()
        values["label_list"] = None if self.label_list is None else list(self.label_list)
        return json.dumps({"format_version": FORMAT_VERSION, **values}, indent=2) + "\n"


def write_export_meta(output_dir, meta):
    """Writes `export_meta.json` and copies the vocab beside it; returns the path."""
    os.makedirs(output_dir, exist_ok=True)
    vocab_copy = os.path.join(output_dir, VOCAB_FILE)
    if not (os.path.exists(vocab_copy) and os.path.samefile(meta.vocab_file, vocab_copy)):
        shutil.copyfile(meta.vocab_file, vocab_copy)
    path = os.path.join(output_dir, EXPORT_META_FILE)
    atomic_write_text(path, meta.to_json())
    return path


def read_export_meta(output_dir):
    """The `ExportMeta` a run left in `output_dir` (vocab: the copy beside it)."""
    path = os.path.join(output_dir, EXPORT_META_FILE)
    values = read_json_object(path, ExportMetaError,
                              "not found: the run must write it (tasks.export_meta."
                              "write_export_meta) before it can be exported")
    if values.pop("format_version", None) != FORMAT_VERSION:
        raise ExportMetaError(f"{path}: format_version must be {FORMAT_VERSION}")
    known = {f.name for f in dataclasses.fields(ExportMeta)} - {"vocab_file"}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ExportMetaError(f"{path}: unknown field(s) {unknown}")
    try:
        config = BertConfig.from_dict(values.pop("bert_config"), source=f"{path}: bert_config")
        labels = values.pop("label_list", None)
        return ExportMeta(bert_config=config, vocab_file=os.path.join(output_dir, VOCAB_FILE),
                          label_list=None if labels is None else tuple(labels), **values)
    except (KeyError, TypeError, ValueError) as e:
        raise ExportMetaError(f"{path}: {e}") from None
