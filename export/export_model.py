"""Exports a fine-tuned run as a TF Serving SavedModel: one command per output_dir.

  python -m export.export_model --output_dir=/tmp/mrpc_output --export_dir=/models/mrpc/1

reads `export_meta.json` (see `tasks/export_meta.py`) and the newest
checkpoint in `--output_dir` (or `--checkpoint`, any layout
`checkpoints.loader` reads), rebuilds the task model in float32 from the
Keras config recorded there and writes the task's SavedModel (the
`export/serving_*.py` that `SERVING` names) to `--export_dir`. TF Serving
wants it under a numbered version directory of the model's base path, as
above; a base path that holds version folders already gets the next one, an
earlier export is replaced, and any other folder is refused
(`export/export_dir.py`). The fine-tuning runners call `fine_tune_and_export`
(or, after a sweep, `export_after_training`), which leaves `export_meta.json`
in their output_dir and, with their `--export_dir`, writes the SavedModel from
the newest checkpoint right away (the folder checked before training).
"""

import keras
from absl import app, flags, logging

from checkpoints.loader import load_into
from export.export_dir import saved_model_dir
from export.serving_classification import save_classification
from export.serving_multiple_choice import save_multiple_choice
from export.serving_question_answering import QuestionAnsweringOptions, save_question_answering
from export.serving_tagging import save_tagging
from modeling.encoder_interface import build_encoder
from modeling.task_models import (SequenceClassifier, MultipleChoiceClassifier, SpanLabeler,
                                  TokenClassifier)
from tasks.fine_tuning import fine_tune
from tasks.export_meta import (EXPORT_META_FILE, NER_DOC_STRIDE, read_export_meta,
                               write_export_meta)
from tasks.flag_groups import EXPORT_DIR_HELP, define_export_flag
from tasks.input_errors import reporting_input_errors


class ExportError(ValueError):
    """Weights that do not fit the exported model."""


def build_task_model(meta):
    """A fresh float32 model of `meta`, shaped as the runner built it: from its
    recorded Keras config, whatever its class or encoder family."""
    if meta.task_model is None:
        return _task_model_from_fields(meta)
    policy = keras.config.dtype_policy()
    keras.config.set_dtype_policy("float32")
    try:
        return keras.saving.deserialize_keras_object(meta.task_model)
    except (KeyError, TypeError, ValueError) as e:
        raise ExportError(f"{EXPORT_META_FILE}: task_model: {e}") from None
    finally:
        keras.config.set_dtype_policy(policy)


def _task_model_from_fields(meta):
    """The reader for export_meta.json files written before `task_model` existed:
    BERT task models rebuilt from `task`, `bert_config` (with the older files'
    `causal_attention`) and `label_list`."""
    encoder = build_encoder(meta.encoder_config, dtype="float32")
    if meta.task == "classification":
        return SequenceClassifier(encoder, len(meta.label_list))
    if meta.task == "regression":
        return SequenceClassifier(encoder, 1)
    if meta.task == "squad":
        return SpanLabeler(encoder)
    if meta.task == "ner":
        return TokenClassifier(encoder, len(meta.label_list))
    return MultipleChoiceClassifier(encoder)


def _assign(model, weights):
    """Fills `model` from a checkpoint path or from another model's variables
    (matched by path); every trainable variable must be found."""
    if isinstance(weights, str):
        report = load_into(model, weights)
        logging.info(report.summary())
        missing = set(report.missing)
    else:
        values = {v.path: v for v in weights.variables}
        missing = set()
        for variable in model.variables:
            source = values.get(variable.path)
            if source is None or tuple(source.shape) != tuple(variable.shape):
                missing.add(variable.path)
            else:
                variable.assign(source.numpy().astype(variable.dtype))
    untrained = sorted(v.path for v in model.trainable_variables if v.path in missing)
    if untrained:
        raise ExportError(f"weights lack {len(untrained)} trained variable(s) of the "
                          f"{type(model).__name__}: " + ", ".join(untrained))


def _save_classification(export_dir, model, meta):
    labels = meta.label_list if meta.task == "classification" else None
    return save_classification(export_dir, model, meta.text_side(), meta.max_seq_length, labels,
                               meta.paired, meta.both_orders)


def _save_tagging(export_dir, model, meta):
    return save_tagging(export_dir, model, meta.text_side(), meta.max_seq_length,
                        meta.label_list, meta.doc_stride or NER_DOC_STRIDE, meta.tag_scheme or "chunks")


def _save_multiple_choice(export_dir, model, meta):
    return save_multiple_choice(export_dir, model, meta.text_side(), meta.max_seq_length)


def _save_question_answering(export_dir, model, meta):
    options = QuestionAnsweringOptions(max_seq_length=meta.max_seq_length,
                                       doc_stride=meta.doc_stride, **meta.squad)
    return save_question_answering(export_dir, model, meta.text_side(), options)


# export_meta.json's `task` -> the serving module's save function.
SERVING = {"classification": _save_classification, "regression": _save_classification,
           "ner": _save_tagging, "multiple_choice": _save_multiple_choice,
           "squad": _save_question_answering}


def export_model(meta, export_dir, weights):
    """Writes the SavedModel of `meta.task` with `weights` (a checkpoint path or
    the trained Keras model) to `export_dir` (or its next version,
    `saved_model_dir`); returns its path."""
    save = SERVING.get(meta.task)
    if save is None:
        raise ExportError(f"{EXPORT_META_FILE}: task {meta.task!r} has no serving module; "
                          f"export/export_model.py SERVING knows {sorted(SERVING)}")
    export_dir = saved_model_dir(export_dir, keep=[weights] if isinstance(weights, str) else [])
    model = build_task_model(meta)
    _assign(model, weights)
    return save(export_dir, model, meta)


def export_for_runner(model, meta, export_dir):
    """Exports a Keras model trained in this process (any dtype policy; the export
    computes in float32), e.g. from a notebook; runners export from their
    checkpoints with `export_after_training`."""
    return export_model(meta, export_dir, model)


def export_after_training(meta, output_dir, export_dir, trained):
    """What a fine-tuning runner leaves for export: `export_meta.json` in
    `output_dir` after training (or when exporting), and the SavedModel in
    `export_dir` when one is given. `meta` None: a model that is not exported."""
    if meta is None or not (trained or export_dir):
        return
    write_export_meta(output_dir, meta)
    if export_dir:
        logging.info("Wrote the serving SavedModel to %s",
                     export_model(meta, export_dir, output_dir))


def check_export_dir(export_dir, output_dir):
    """Raises ExportDirError before a run trains when its `export_dir` (None:
    no export) could not take the export it ends with: a folder of other
    files, or one that holds the run's `output_dir`."""
    if export_dir:
        saved_model_dir(export_dir, keep=[output_dir])


def fine_tune_and_export(task, options, settings, export_dir):
    """A fine-tuning runner's whole job once its task is built: `fine_tune`, then
    on the chief `export_after_training` (export_meta.json after training, the
    SavedModel with `export_dir`, refused before training where it could not
    go). Returns `fine_tune`'s `RunResult`."""
    check_export_dir(export_dir, options.output_dir)
    outcome = fine_tune(task, options, settings)
    if outcome.is_chief:
        export_after_training(task.export_meta(), options.output_dir, export_dir,
                              settings.do_train)
    return outcome


def define_flags():
    flags.DEFINE_string("output_dir", None, "Fine-tuning output_dir holding export_meta.json.")
    define_export_flag(f"SavedModel directory to write. {EXPORT_DIR_HELP}")
    flags.DEFINE_string("checkpoint", None, "Weights to export; default: the newest checkpoint "
                        "in --output_dir.")
    flags.mark_flags_as_required(["output_dir", "export_dir"])


@reporting_input_errors
def main(argv):
    del argv
    f = flags.FLAGS
    meta = read_export_meta(f.output_dir)
    path = export_model(meta, f.export_dir, f.checkpoint or f.output_dir)
    logging.info("wrote the %s SavedModel to %s", meta.task, path)


if __name__ == "__main__":
    define_flags()
    app.run(main)
