"""`export_meta.json`: what a fine-tuning run leaves in its output_dir so that
`python -m export.export_model --output_dir=...` can export it later.

The contract (JSON object; runners write it with `write_export_meta`):

    format_version          1
    task                    the task's name in `contracts.task_registry`: "classification",
                            "question_answering", "tagging", "multiple_choice". Files of
                            earlier versions say "regression" (a classification with one
                            output), "squad" or "ner": the aliases their records list
    encoder_family          the encoder family's name ("bert", ...): it picks the config
                            type and the text side (`contracts.registry`)
    encoder_config          the encoder's config as a dict (for BERT: bert_config.json fields)
    bert_config             BERT only: encoder_config again, for readers of the BERT format.
                            Files written before `encoder_family` existed have only this:
                            they are read as BERT
    causal_attention        older files only: the left-to-right ablation's encoder, now the
                            encoder config's `causal_attention`; read into it
    do_lower_case           bool
    max_seq_length          int
    label_list              classification: class names in logit order (null: a regression,
                            one output); tagging: tag names in logit order; null otherwise
    paired                  classification: inputs are sentence pairs
    both_orders             classification: each pair is encoded as (A, B) and
                            (B, A), the pooled vectors summed (GPT's similarity tasks);
                            false when absent
    doc_stride              question_answering and tagging: pieces between window starts
                            (tagging's default 64)
    tag_scheme              tagging only: "chunks" (IOB tags, served as entities) or "tags" (a
                            plain tag set such as part of speech, served as a tag per word);
                            null or absent (other tasks, older files): chunks for tagging
    squad                   question_answering only: {max_query_length, n_best_size, max_answer_length,
                            version_2_with_negative, null_score_diff_threshold}
    export_precision        what the SavedModel this run exported computes in: "float32", or
                            "bfloat16" (the encoder's weights and compute; head and outputs
                            float32); null or absent when the run exported none (a later
                            `python -m export.export_model` names its own, recorded in the
                            SavedModel's `assets.extra/bert_garden_export.json`)
    task_model              the task model's Keras config (`keras.saving.serialize_keras_object`,
                            encoder config inside); the export rebuilds the model from it
                            whatever its class or encoder family. Files written before this
                            field existed lack it: their model is rebuilt from `task`,
                            `bert_config` (with `causal_attention`) and `label_list`

The family's vocabulary file is copied beside it (`vocab.txt` for BERT,
`spiece.model` for XLNet) and its config file written (`bert_config.json`,
`xlnet_config.json`), so the output_dir is self-contained and serves as
`--init_checkpoint` of a later run or conversion, as a release directory does.
The fine-tuned weights are the run's checkpoints (`checkpoints.loader` reads an
output_dir) or any checkpoint given to the exporter.
"""

import dataclasses
import json
import os
import shutil

from contracts import registry, task_registry
from modeling.encoder_interface import exceeds_positions
from utils.files import atomic_write_text, read_json_object

EXPORT_META_FILE = "export_meta.json"
FORMAT_VERSION = 1
LEGACY_FAMILY = "bert"  # the family of files that record only `bert_config`
LEGACY_CAUSAL = "causal_attention"  # where older files record BERT's causal mask
EXPORTED_PRECISIONS = ("float32", "bfloat16")


class ExportMetaError(ValueError):
    """An export_meta.json that cannot be used; the message names file and field."""


@dataclasses.dataclass(frozen=True)
class ExportMeta:
    """A fine-tuned model's task, encoder config and text processing;
    `vocab_file` is the family's vocabulary file (`vocab.txt`, `spiece.model`),
    None for a model that runs without one (ELMo's character biLM)."""

    task: str
    encoder_config: object  # the family's config, e.g. a BertConfig
    vocab_file: str
    do_lower_case: bool = True
    max_seq_length: int = 128
    label_list: tuple = None
    paired: bool = False
    both_orders: bool = False
    doc_stride: int = None
    squad: dict = None
    tag_scheme: str = None
    task_model: dict = None
    export_precision: str = None

    def __post_init__(self):
        if self.task_model is not None and not isinstance(self.task_model, dict):
            raise ExportMetaError("task_model must be a Keras config object, not "
                                  f"{type(self.task_model).__name__}")
        try:
            record = task_registry.task(self.task)
        except task_registry.UnknownTaskError as e:
            raise ExportMetaError(str(e)) from None
        if record.serve is None:
            raise ExportMetaError(f"task {self.task!r} is not exported")
        object.__setattr__(self, "task", record.name)  # an earlier version's name, read as today's
        if self.export_precision not in (None, *EXPORTED_PRECISIONS):
            raise ExportMetaError(f"export_precision must be one of {list(EXPORTED_PRECISIONS)}, "
                                  f"got {self.export_precision!r}")
        if self.both_orders and not self.paired:
            raise ExportMetaError("both_orders needs paired inputs")
        if record.check_meta:
            record.check_meta(self)
        if exceeds_positions(self.encoder_config, self.max_seq_length):
            raise ExportMetaError(f"max_seq_length {self.max_seq_length} exceeds "
                                  f"max_position_embeddings {self.encoder_config.max_position_embeddings}")

    @property
    def task_record(self):
        """The task's `contracts.task_record.TaskRecord`."""
        return task_registry.task(self.task)

    @property
    def encoder_family(self):
        return registry.family_of(self.encoder_config).name

    def text_side(self):
        """The family's `TextSide` over `vocab_file`."""
        return registry.text_side_for(self.encoder_family, self.vocab_file, self.do_lower_case)

    def to_json(self):
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        del values["vocab_file"], values["encoder_config"]
        config = self.encoder_config.to_dict()
        encoder = {"encoder_family": self.encoder_family, "encoder_config": config}
        if self.encoder_family == LEGACY_FAMILY:
            encoder["bert_config"] = config
        values["label_list"] = None if self.label_list is None else list(self.label_list)
        return json.dumps({"format_version": FORMAT_VERSION, "task": values.pop("task"),
                           **encoder, **values}, indent=2) + "\n"


def write_export_meta(output_dir, meta):
    """Writes `export_meta.json`, the encoder's config file and a copy of the
    vocabulary's files beside it; returns the path."""
    os.makedirs(output_dir, exist_ok=True)
    text_side = registry.text_side_type(meta.encoder_family)
    sources = text_side.vocabulary_files(meta.vocab_file) if meta.vocab_file else ()
    for source, name in zip(sources, text_side.vocabulary_file_names()):
        copy = os.path.join(output_dir, name)
        if not (os.path.exists(copy) and os.path.samefile(source, copy)):
            shutil.copyfile(source, copy)
    meta.encoder_config.to_json_file(os.path.join(output_dir, meta.encoder_config.config_file_name))
    path = os.path.join(output_dir, EXPORT_META_FILE)
    atomic_write_text(path, meta.to_json())
    return path


def read_export_meta(output_dir):
    """The `ExportMeta` a run left in `output_dir` (vocab: the copy beside it)."""
    path = os.path.join(output_dir, EXPORT_META_FILE)
    values = read_json_object(path, ExportMetaError,
                              "not found: the run must write it (export.export_meta."
                              "write_export_meta) before it can be exported")
    if values.pop("format_version", None) != FORMAT_VERSION:
        raise ExportMetaError(f"{path}: format_version must be {FORMAT_VERSION}")
    known = ({f.name for f in dataclasses.fields(ExportMeta)} - {"vocab_file"}
             | {"encoder_family", "bert_config", LEGACY_CAUSAL})
    unknown = sorted(set(values) - known)
    if unknown:
        raise ExportMetaError(f"{path}: unknown field(s) {unknown}")
    family, config_field, config_values = _encoder_fields(path, values)
    try:
        config = registry.config_from_dict(family, config_values, source=f"{path}: {config_field}")
        if values.pop(LEGACY_CAUSAL, False):
            config = config.replace(causal_attention=True)
        labels = values.pop("label_list", None)
        vocab_file = os.path.join(output_dir, registry.vocab_file_name(family))
        if not os.path.isfile(vocab_file) and not registry.text_side_type(family).needs_vocabulary(config):
            vocab_file = None  # a run without a vocabulary (ELMo's character biLM)
        return ExportMeta(encoder_config=config, vocab_file=vocab_file,
                          label_list=None if labels is None else tuple(labels), **values)
    except (KeyError, TypeError, ValueError) as e:
        raise ExportMetaError(f"{path}: {e}") from None


def _encoder_fields(path, values):
    """(family, the field its config is read from, that config's dict), taken
    out of `values`: `encoder_family` + `encoder_config`, or (older files)
    `bert_config` alone. A `bert_config` beside `encoder_config` must be equal."""
    family = values.pop("encoder_family", LEGACY_FAMILY)
    bert_config = values.pop("bert_config", None)
    config = values.pop("encoder_config", None)
    if family not in registry.names():
        raise ExportMetaError(f"{path}: encoder_family {family!r} is not one of "
                              f"{sorted(registry.names())}")
    if config is None:
        if bert_config is None or family != LEGACY_FAMILY:
            raise ExportMetaError(f"{path}: encoder_config is missing")
        return family, "bert_config", bert_config
    if bert_config is not None and bert_config != config:
        raise ExportMetaError(f"{path}: bert_config differs from encoder_config")
    return family, "encoder_config", config
