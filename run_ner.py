"""Fine-tunes any family (BERT, XLNet, OpenAI GPT, ELMo: the config picks it) for token
tagging: CoNLL-2003 NER, any IOB-tagged token file, or a plain tag set such as
CoNLL-2003's part of speech. The task is `tasks/tagging/`.

    python run_ner.py --data_dir=conll2003 --vocab_file=uncased_L-12_H-768_A-12/vocab.txt \\
        --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json \\
        --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \\
        --do_train --do_eval --do_predict --max_seq_length=128 --train_batch_size=32 \\
        --learning_rate=5e-5 --num_train_epochs=3 --output_dir=/tmp/ner

`data_dir` holds `train.txt`, `dev.txt`, `test.txt` (or `eng.train`, `eng.testa`,
`eng.testb`): `word ... tag` lines, IOB1 or IOB2, `-DOCSTART-` lines and blank
lines between sentences. `--do_eval` writes `eval_results.txt` with conlleval's
entity-level precision, recall and F1, overall and per type (`eval_PER_f1`, ...);
`--do_predict` writes `predictions.txt` (`word gold predicted`) for
`perl conlleval.pl < predictions.txt`.

`--tag_column` picks the tag column (CoNLL-2003: NER -1, chunks 2, part of
speech 1). `--tag_scheme=chunks` (the default) reads IOB chunk tags as above;
`--tag_scheme=tags` reads a plain tag set (part of speech): its labels are
every tag of the train and dev files, and `eval_results.txt` holds token accuracy
(`eval_accuracy`, which the chunk scheme writes too):

    python run_ner.py --data_dir=conll2003 --tag_column=1 --tag_scheme=tags \\
        --init_checkpoint=uncased_L-12_H-768_A-12 --do_train --do_eval --output_dir=/tmp/pos

The feature-based approach of the paper (section 5.4): `--feature_based
--feature_layers=concat_last_four` freezes the encoder and trains a 2-layer
BiLSTM (`--lstm_units` per direction) over the chosen layers; it wants a larger
learning rate than fine-tuning (e.g. 1e-3).

`--crf` ends any of these models in a linear-chain CRF over each window's
words (the ELMo paper's NER output layer): trained by its negative
log-likelihood, tagged by Viterbi in evaluation, predictions and the served
model.

`--bert_config_file` and `--vocab_file` may be left out when they lie beside
`--init_checkpoint` (original release and Hugging Face directories). A
fine-tuning run leaves `export_meta.json` in `--output_dir`, so
`python -m export.export_model` can export it later; `--export_dir` writes the
TF Serving SavedModel (text in, entities out; a plain tag set: each word's tag) right
away.

XLNet: the config picks the family (`xlnet_config.json` beside the checkpoint,
`--bert_config_file=xlnet_config.json` or `--preset=xlnet_base_cased`), the
vocabulary is `--spiece_model_file` (or `spiece.model` beside the checkpoint)
and `--do_lower_case` defaults to false; each word's pieces are SentencePiece's
for the word alone, windows are `A <sep> <cls>` padded on the left:

    python run_ner.py --data_dir=conll2003 \\
        --init_checkpoint=xlnet_cased_L-12_H-768_A-12/xlnet_model.ckpt \\
        --spiece_model_file=xlnet_cased_L-12_H-768_A-12/spiece.model \\
        --do_train --do_eval --do_predict --learning_rate=3e-5 --output_dir=/tmp/ner_xlnet
"""

from absl import app, flags, logging

from export.export_model import fine_tune_and_export
from tasks.tagging.conll_reader import TAG_SCHEMES
from tasks.tagging.feature_based_tagger import LAYER_COMBINATIONS
from tasks.tagging.task import SPLIT_FILES, TaggingConfig, TaggingTask
from training.flag_groups import (check_fine_tuning_flags, define_fine_tuning_flags,
                                  define_model_flags, define_text_flags, do_lower_case_from_flags,
                                  feature_head_from_flags, model_files_from_flags,
                                  settings_from_flags)
from training.input_errors import reporting_input_errors
from training.run_options import RunOptions, define_flags

define_flags()
define_model_flags()
define_text_flags(128, "Word pieces (XLNet: SentencePiece pieces) per window; longer "
                  "sentences are split into overlapping windows.")
define_fine_tuning_flags(
    unit="Windows", data_dir="Directory of the train/dev/test token files.",
    eval_help="Entity-level scores (tag scheme chunks) or token accuracy (tags) on the dev split, "
              "to eval_results.txt.",
    predict_help="Tags for --predict_split, to predictions.txt.",
    export_help="fine-tuned models only. Serving reads each text as one sentence, without "
                "document context, and returns its entities (--tag_scheme=tags: each word's tag).")
# Additions.
flags.DEFINE_integer("doc_stride", 64, "Word pieces between the starts of consecutive windows "
                     "of a sentence longer than one window.")
flags.DEFINE_bool("document_context", False, "Fill each window with the neighbouring "
                  "sentences of its document (unlabelled context).")
flags.DEFINE_list("labels", None, "The labels (default: chunks: O plus B-/I- of every type in "
                  "the train and dev files; tags: every tag in them, sorted).")
flags.DEFINE_integer("tag_column", -1, "Column of the tag (0 is the word; CoNLL-2003: NER -1, "
                     "chunks 2, part of speech 1).")
flags.DEFINE_enum("tag_scheme", "chunks", list(TAG_SCHEMES), "chunks: IOB1/IOB2 chunk tags "
                  "(NER, chunking), scored by conlleval's entity F1; tags: a plain tag set (part "
                  "of speech), scored by token accuracy. Both write eval_accuracy.")
flags.DEFINE_enum("predict_split", "test", list(SPLIT_FILES), "Split that --do_predict tags.")
flags.DEFINE_bool("feature_based", False, "Freeze the (BERT) encoder and train a BiLSTM over "
                  "--feature_layers (paper section 5.4).")
flags.DEFINE_enum("feature_layers", "concat_last_four", list(LAYER_COMBINATIONS),
                  "Which encoder layers feed the BiLSTM.")
flags.DEFINE_bool("crf", False, "A linear-chain CRF over each window's words on top (transitions "
                  "learned with the model; the loss its negative log-likelihood, tags by Viterbi).")
flags.DEFINE_bool("trim_padding", True, "Cut each batch to its longest window, and evaluate "
                  "and predict from short windows to long (turn off on TPUs, which need fixed "
                  "shapes).")

FLAGS = flags.FLAGS


@reporting_input_errors
def main(_):
    check_fine_tuning_flags()
    if FLAGS.export_dir and FLAGS.feature_based:
        raise app.UsageError("--export_dir exports fine-tuned models; not with --feature_based")
    options = RunOptions.from_flags()
    vocab_file, encoder_config = model_files_from_flags("tagging")
    config = TaggingConfig(
        data_dir=FLAGS.data_dir,
        vocab_file=vocab_file,
        encoder_config=encoder_config,
        do_lower_case=do_lower_case_from_flags(encoder_config), max_seq_length=FLAGS.max_seq_length,
        doc_stride=FLAGS.doc_stride, document_context=FLAGS.document_context,
        labels=tuple(FLAGS.labels) if FLAGS.labels else None, tag_column=FLAGS.tag_column,
        tag_scheme=FLAGS.tag_scheme,
        init_checkpoint=FLAGS.init_checkpoint, feature_based=FLAGS.feature_based,
        feature_layers=FLAGS.feature_layers,
        **feature_head_from_flags(encoder_config, FLAGS.feature_based),
        predict_split=FLAGS.predict_split,
        trim_padding=FLAGS.trim_padding, fine_tune_encoder=FLAGS.fine_tune_encoder, crf=FLAGS.crf,
        seed=FLAGS.seed)
    outcome = fine_tune_and_export(TaggingTask(config), options, settings_from_flags(),
                                   FLAGS.export_dir, FLAGS.export_precision)
    if outcome.results:
        logging.info("Dev results: %s", outcome.results)


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    app.run(main)
