"""BERT's part of `run_pretraining.py`: its flags (google-research's names)
and its task from them."""

from absl import app, flags

from checkpoints.companion_files import check_vocab_fits, config_source, resolve_encoder_config
from data.pretraining import features as F
from data.text.vocab import Vocab
from families.bert.pretrainer import OBJECTIVES
from families.bert.pretraining.config import MaskingOptions
from families.bert.pretraining.task import PretrainingTask
from families.bert.pretraining.tf_masking import DynamicMasker

FLAGS = flags.FLAGS


def define_flags():
    flags.DEFINE_integer("max_predictions_per_seq", 20, "Masked-LM predictions per sequence.")
    flags.DEFINE_enum("objective", "mlm_nsp", OBJECTIVES,
                      "mlm_nsp (BERT), mlm (No-NSP ablation) or ltr (left-to-right LM, causal mask).")
    flags.DEFINE_bool("dynamic_masking", False,
                      "Re-mask the training records with fresh masks every epoch (needs --vocab_file).")
    flags.DEFINE_float("masked_lm_prob", 0.15, "Share of tokens masked by --dynamic_masking.")
    flags.DEFINE_bool("do_whole_word_mask", False, "--dynamic_masking masks whole words.")
    flags.DEFINE_integer("max_sequences_per_pack", 0,
                         "Read packed rows of up to this many instances (pack_pretraining_data.py); "
                         "0: one instance per row.")


def dynamic_masker():
    """The `--dynamic_masking` masker, or None."""
    if not FLAGS.dynamic_masking:
        return None
    if not FLAGS.vocab_file:
        raise app.UsageError("--dynamic_masking needs --vocab_file.")
    return DynamicMasker(Vocab.from_file(FLAGS.vocab_file), MaskingOptions(
        max_predictions_per_seq=FLAGS.max_predictions_per_seq,
        masked_lm_prob=FLAGS.masked_lm_prob, do_whole_word_mask=FLAGS.do_whole_word_mask))


def build_task():
    """(task, its config, where the config comes from, the record features holding token ids)."""
    config = resolve_encoder_config(FLAGS.bert_config_file, FLAGS.preset, FLAGS.init_checkpoint)
    source = config_source(FLAGS.bert_config_file, FLAGS.preset, FLAGS.init_checkpoint)
    if FLAGS.vocab_file:
        check_vocab_fits(config, source, FLAGS.vocab_file)
    task = PretrainingTask(
        config, FLAGS.input_file, FLAGS.max_seq_length, FLAGS.max_predictions_per_seq,
        objective=FLAGS.objective, init_checkpoint=FLAGS.init_checkpoint,
        dynamic_masker=dynamic_masker(), seed=FLAGS.seed,
        max_sequences_per_pack=FLAGS.max_sequences_per_pack)
    return task, task.config, source, (F.INPUT_IDS, F.MASKED_LM_IDS)


def check_run(files, replicas, slices):
    """BERT's records need nothing beyond the reader's checks."""
