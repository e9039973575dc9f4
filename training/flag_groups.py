"""The flags several command lines share, each defined once here, with the
original google-research/bert names. A runner calls the groups it needs, with
its own defaults where the original's differ (SQuAD: `max_seq_length=384`),
then its task's own flags.

    define_model_flags       bert_config_file, init_checkpoint, preset
    define_text_flags        vocab_file (and each family's own vocabulary flag, as XLNet's
                             spiece_model_file), do_lower_case, max_seq_length
    define_training_flags    do_train, do_eval, train_batch_size, eval_batch_size,
                             learning_rate (pretraining and fine-tuning)
    define_fine_tuning_flags the training flags and data_dir, eval_train, do_predict,
                             predict_batch_size, num_train_epochs, warmup_proportion,
                             skip_bad_rows, fine_tune_encoder, lstm_units, lstm_layers,
                             export_dir, export_precision
    define_export_flag       export_dir (also for the export command lines)
    define_export_precision_flag  export_precision (the serving exports' command lines)

`model_files_from_flags`, `do_lower_case_from_flags`, `feature_head_from_flags`
and `settings_from_flags` read them back;
`check_fine_tuning_flags` makes the usage checks every fine-tuning runner makes.
"""

from absl import app, flags

from checkpoints.companion_files import resolve_model_files
from contracts import registry
from contracts.family import UnsupportedTaskError
from training.fine_tuning import FineTuningSettings
from training.precision import EXPORT_CHOICES

FLAGS = flags.FLAGS
# What a SavedModel's --export_dir may be (`export/export_dir.py`).
EXPORT_DIR_HELP = ("A new or empty folder (e.g. <base>/1), an earlier export (replaced) or a TF "
                   "Serving base path holding numbered version folders (the export becomes the "
                   "next version); any other folder is refused.")


def define_model_flags():
    flags.DEFINE_string("bert_config_file", None, "bert_config.json (or XLNet's "
                        "xlnet_config.json) of the model (default: the config beside "
                        "--init_checkpoint, or --preset).")
    flags.DEFINE_string(
        "init_checkpoint", None,
        "Initial weights: a TF1 BERT or XLNet checkpoint, a Hugging Face directory, a Model "
        "Garden checkpoint, our weights.safetensors, or a run's output_dir / checkpoint prefix.")
    flags.DEFINE_string("preset", None, "A named config (e.g. bert_base_uncased, "
                        "xlnet_base_cased) instead of --bert_config_file.")


def define_text_flags(max_seq_length=128, length_help="Tokens per example after WordPiece.",
                      vocab_help="The model's vocabulary: WordPiece vocab.txt (XLNet: spiece.model; "
                                 "default: the one beside --init_checkpoint).",
                      lower_case=True):
    """`max_seq_length=None` leaves that flag out; `lower_case=False` leaves out
    the families' own vocabulary flags and `do_lower_case` (for command lines
    that read ids, not text)."""
    flags.DEFINE_string("vocab_file", None, vocab_help)
    if lower_case:
        for name, family in family_vocabulary_flags().items():
            flags.DEFINE_string(name, None, f"{family.title}'s {family.text_side.model_file_name} "
                                "(the original's flag; --vocab_file takes it too; default: the one "
                                "beside --init_checkpoint).")
        flags.DEFINE_bool("do_lower_case", True, "Lower-case the input (uncased models). Left "
                          "out: true for BERT, false for XLNet (the original's --uncased).")
    if max_seq_length is not None:
        flags.DEFINE_integer("max_seq_length", max_seq_length, length_help)


def define_training_flags(unit="Examples", train_batch_size=32, learning_rate=5e-5,
                          train_help="Fine-tune on the train split.",
                          eval_help="Metrics on the dev split, to eval_results.txt.",
                          eval_batch_size=True):
    """`unit`: what a batch counts ("Windows" for SQuAD and NER);
    `eval_batch_size=False` leaves that flag out (SQuAD evaluates its predictions)."""
    flags.DEFINE_bool("do_train", False, train_help)
    flags.DEFINE_bool("do_eval", False, eval_help)
    flags.DEFINE_integer("train_batch_size", train_batch_size,
                         f"{unit} per update (all replicas, all micro-batches).")
    if eval_batch_size:
        flags.DEFINE_integer("eval_batch_size", 8, f"{unit} per evaluation batch.")
    flags.DEFINE_float("learning_rate", learning_rate, "Peak learning rate.")


def define_fine_tuning_flags(unit="Examples", train_batch_size=32, learning_rate=5e-5,
                             eval_help="Metrics on the dev split, to eval_results.txt.",
                             predict_help="Predictions on the test split.",
                             data_dir="Directory of the train/dev/test files.",
                             eval_batch_size=True, skip_bad_rows=False, export_help=""):
    """The training flags and what fine-tuning adds; `data_dir=None` leaves that
    flag out (SQuAD names its files)."""
    eval_help += (" With --do_train also train_loss (the task's loss over the last tenth of the "
                  "steps) and prior_loss (the best constant predictor's on the train split).")
    define_training_flags(unit, train_batch_size, learning_rate, eval_help=eval_help,
                          eval_batch_size=eval_batch_size)
    if data_dir:
        flags.DEFINE_string("data_dir", None, data_dir)
    if eval_batch_size:
        flags.DEFINE_bool("eval_train", False, "With --do_eval, also score the train split: its metrics "
                          "as train_split_<name> (how well the run fit its training data; one more pass "
                          "over it).")
    flags.DEFINE_bool("do_predict", False, predict_help)
    flags.DEFINE_integer("predict_batch_size", 8, f"{unit} per prediction batch.")
    flags.DEFINE_float("num_train_epochs", 3.0, "Passes over the train split (may be "
                       "fractional).")
    flags.DEFINE_float("warmup_proportion", 0.1, "Share of the steps with linear warmup.")
    if skip_bad_rows:
        flags.DEFINE_bool("skip_bad_rows", False, "Skip malformed rows with a count instead of "
                          "stopping at the first.")
    flags.DEFINE_bool("fine_tune_encoder", False, "A feature-based family (ELMo): train the encoder "
                      "too, instead of keeping it frozen under its learned layer mix and task "
                      "BiLSTM. Other families always fine-tune theirs.")
    flags.DEFINE_integer("lstm_units", None, "Units per direction of a feature-based head's task "
                         "BiLSTM (a feature-based family's, as ELMo's: default its record's, 200; "
                         "run_ner.py's --feature_based tagger: 768).", lower_bound=1)
    flags.DEFINE_integer("lstm_layers", None, "Layers of that BiLSTM (default 2, or the family "
                         "record's).", lower_bound=1)
    define_export_flag("Write the serving SavedModel here after training"
                       + (f": {export_help}" if export_help else ".") + f" {EXPORT_DIR_HELP}")
    define_export_precision_flag()


def define_export_flag(help_text):
    flags.DEFINE_string("export_dir", None, help_text)


def define_export_precision_flag():
    flags.DEFINE_enum("export_precision", "float32", list(EXPORT_CHOICES),
                      "What the serving SavedModel's encoder computes in: bfloat16 (its weights stored "
                      "in bfloat16; the task head, softmax, CRF and outputs stay float32), float32, or "
                      "auto: bfloat16 where this machine computes it natively (a GPU, TPU, or a CPU "
                      "with amx_bf16 or avx512_bf16), float32 elsewhere. See docs/serving.md.")


def check_fine_tuning_flags(required=("data_dir",), flag_values=FLAGS):
    """Usage errors: nothing to do (no --do_train, --do_eval or --do_predict), or
    a flag of `required` unset."""
    if not any(flag_values[name].value for name in ("do_train", "do_eval", "do_predict")):
        raise app.UsageError("at least one of --do_train, --do_eval, --do_predict is required")
    for name in required:
        if not flag_values[name].value:
            raise app.UsageError(f"--{name} is required")


def family_vocabulary_flags():
    """{flag name: family} of the families' own vocabulary flags other than
    --vocab_file (XLNet's --spiece_model_file)."""
    return {f.config_type.vocab_file_flag.lstrip("-"): f for f in registry.families()
            if f.config_type.vocab_file_flag != "--vocab_file"}


def vocab_file_from_flags():
    """--vocab_file or a family's own vocabulary flag (XLNet's
    --spiece_model_file); None when none is given."""
    given = [name for name in ("vocab_file", *family_vocabulary_flags())
             if name in FLAGS and FLAGS[name].value]
    if len(given) > 1:
        raise app.UsageError(f"give one of --{' or --'.join(given)}, not several")
    return FLAGS[given[0]].value if given else None


def model_files_from_flags(task=None):
    """(vocabulary file, encoder config) from --vocab_file or --spiece_model_file,
    --bert_config_file, --preset and what lies beside --init_checkpoint
    (`checkpoints.companion_files`): the config picks the family, the family its
    vocabulary (BERT's vocab.txt, XLNet's spiece.model). A `task` (one of
    `contracts.task_registry`) the family's record does not list is a usage error."""
    vocab_file, config = resolve_model_files(vocab_file_from_flags(), FLAGS.bert_config_file, FLAGS.preset,
                                             FLAGS.init_checkpoint)
    if task is not None:
        try:
            registry.family_of(config).check_task(task)
        except UnsupportedTaskError as e:
            raise app.UsageError(str(e)) from None
    return vocab_file, config


def do_lower_case_from_flags(config):
    """--do_lower_case when given, else the default of `config`'s family (BERT
    lower-cases as the original run_classifier.py; XLNet does not, as its
    original's --uncased), so a cased XLNet is not lower-cased unasked."""
    if FLAGS["do_lower_case"].present:
        return FLAGS.do_lower_case
    return registry.text_side_type(registry.family_of(config).name).do_lower_case_default


def feature_head_from_flags(encoder_config, feature_based=False, flag_values=FLAGS):
    """{"lstm_units", "lstm_layers"} of --lstm_units and --lstm_layers (None when
    left out). Given for a model without a task BiLSTM (a family that is not
    feature-based, unless the runner's `feature_based` model is asked for) they
    are a usage error, not ignored."""
    head = {name: flag_values[name].value for name in ("lstm_units", "lstm_layers")}
    given = [f"--{name}" for name, value in head.items() if value is not None]
    family = registry.family_of(encoder_config)
    if given and not (feature_based or family.feature_based):
        raise app.UsageError(f"{' and '.join(given)} size a feature-based head's task BiLSTM; the "
                             f"{family.name} family is fine-tuned under a dense head")
    return head


def settings_from_flags(**overrides):
    """`FineTuningSettings` from the fine-tuning flags (and `optimizer`); `overrides`
    replace fields (e.g. a sweep's learning rate)."""
    values = {field: FLAGS[field].value for field in (
        "do_train", "do_eval", "do_predict", "train_batch_size", "eval_batch_size",
        "predict_batch_size", "learning_rate", "num_train_epochs", "warmup_proportion",
        "optimizer", "eval_train") if field in FLAGS}
    return FineTuningSettings(**{**values, **overrides})
