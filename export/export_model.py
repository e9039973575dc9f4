"""Exports a fine-tuned run as a TF Serving SavedModel: one command per output_dir.

  python -m export.export_model --output_dir=/tmp/mrpc_output --export_dir=/models/mrpc/1

reads `export_meta.json` (see `export/export_meta.py`) and the newest
checkpoint in `--output_dir` (or `--checkpoint`, any layout
`checkpoints.loader` reads), rebuilds the task model from the Keras config
recorded there, its encoder in `--export_precision` (float32, or bfloat16
weights and compute with the head and outputs in float32; `auto`: bfloat16
where this machine computes it natively, `training.precision`), and writes the
task's SavedModel (the `export/serving_*.py` that `SERVING` names) to
`--export_dir`. TF Serving
wants it under a numbered version directory of the model's base path, as
above; a base path that holds version folders already gets the next one, an
earlier export is replaced, and any other folder is refused
(`export/export_dir.py`). The fine-tuning runners call `fine_tune_and_export`
(or, after a sweep, `export_after_training`), which leaves `export_meta.json`
in their output_dir and, with their `--export_dir`, writes the SavedModel from
the newest checkpoint right away (the folder checked before training).
"""

import dataclasses

import keras
from absl import app, flags, logging

from checkpoints.loader import load_into
from export.export_dir import saved_model_dir
from export.export_meta import EXPORT_META_FILE, read_export_meta, write_export_meta
from modeling.encoder_interface import build_encoder
from training.fine_tuning import fine_tune
from training.flag_groups import EXPORT_DIR_HELP, define_export_flag, define_export_precision_flag
from training.input_errors import reporting_input_errors
from training.precision import resolve_export


class ExportError(ValueError):
    """Weights that do not fit the exported model."""


def build_task_model(meta, precision="float32"):
    """A fresh model of `meta`, shaped as the runner built it: from its recorded
    Keras config, whatever its class or encoder family (its task's home,
    imported through the registry, has registered the class). `precision`
    "bfloat16": the encoder's weights and compute in bfloat16; the output layers
    keep float32 whatever the policy (`modeling.heads.OUTPUT_DTYPE`), as in
    mixed-precision training."""
    record = meta.task_record
    if meta.task_model is None:
        return record.model_from_fields(meta, build_encoder(meta.encoder_config, dtype=precision))
    policy = keras.config.dtype_policy()
    keras.config.set_dtype_policy(precision)
    try:
        return keras.saving.deserialize_keras_object(meta.task_model)
    except (KeyError, TypeError, ValueError) as e:
        raise ExportError(f"{EXPORT_META_FILE}: task_model: {e}") from None
    finally:
        keras.config.set_dtype_policy(policy)


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
                variable.assign(keras.ops.cast(source, variable.dtype))
    untrained = sorted(v.path for v in model.trainable_variables if v.path in missing)
    if untrained:
        raise ExportError(f"weights lack {len(untrained)} trained variable(s) of the "
                          f"{type(model).__name__}: " + ", ".join(untrained))


def export_model(meta, export_dir, weights, precision="float32"):
    """Writes the SavedModel of `meta.task` with `weights` (a checkpoint path or
    the trained Keras model) to `export_dir` (or its next version,
    `saved_model_dir`), computing in `precision` (`float32`, `bfloat16` or
    `auto`: `training.precision.resolve_export`); returns its path."""
    export_dir = saved_model_dir(export_dir, keep=[weights] if isinstance(weights, str) else [])
    precision, why = resolve_export(precision)
    logging.info("export precision %s (%s)", precision, why)
    model = build_task_model(meta, precision)
    _assign(model, weights)
    return meta.task_record.serve(export_dir, model, meta)


def export_for_runner(model, meta, export_dir, precision="float32"):
    """Exports a Keras model trained in this process (any dtype policy; the export
    computes in `precision`), e.g. from a notebook; runners export from their
    checkpoints with `export_after_training`."""
    return export_model(meta, export_dir, model, precision)


def export_after_training(meta, output_dir, export_dir, trained, precision="float32"):
    """What a fine-tuning runner leaves for export: `export_meta.json` in
    `output_dir` after training (or when exporting), and the SavedModel in
    `export_dir` when one is given, in `precision` (recorded in the meta as
    `export_precision`). `meta` None: a model that is not exported."""
    if meta is None or not (trained or export_dir):
        return
    if export_dir:
        meta = dataclasses.replace(meta, export_precision=resolve_export(precision)[0])
    write_export_meta(output_dir, meta)
    if export_dir:
        logging.info("Wrote the serving SavedModel to %s",
                     export_model(meta, export_dir, output_dir, meta.export_precision))


def check_export_dir(export_dir, output_dir):
    """Raises ExportDirError before a run trains when its `export_dir` (None:
    no export) could not take the export it ends with: a folder of other
    files, or one that holds the run's `output_dir`."""
    if export_dir:
        saved_model_dir(export_dir, keep=[output_dir])


def fine_tune_and_export(task, options, settings, export_dir, export_precision="float32"):
    """A fine-tuning runner's whole job once its task is built: `fine_tune`, then
    on the chief `export_after_training` (export_meta.json after training, the
    SavedModel in `export_precision` with `export_dir`, refused before training
    where it could not go). Returns `fine_tune`'s `RunResult`."""
    check_export_dir(export_dir, options.output_dir)
    export_precision, _ = resolve_export(export_precision)  # before training: a bad value fails first
    outcome = fine_tune(task, options, settings)
    if outcome.is_chief:
        export_after_training(task.export_meta(), options.output_dir, export_dir,
                              settings.do_train, export_precision)
    return outcome


def define_flags():
    flags.DEFINE_string("output_dir", None, "Fine-tuning output_dir holding export_meta.json.")
    define_export_flag(f"SavedModel directory to write. {EXPORT_DIR_HELP}")
    define_export_precision_flag()
    flags.DEFINE_string("checkpoint", None, "Weights to export; default: the newest checkpoint "
                        "in --output_dir.")
    flags.mark_flags_as_required(["output_dir", "export_dir"])


@reporting_input_errors
def main(argv):
    del argv
    f = flags.FLAGS
    meta = read_export_meta(f.output_dir)
    path = export_model(meta, f.export_dir, f.checkpoint or f.output_dir, f.export_precision)
    logging.info("wrote the %s SavedModel to %s", meta.task, path)


if __name__ == "__main__":
    define_flags()
    app.run(main)
