"""Token tagging (CoNLL-2003 NER and any IOB-tagged token file), as in the paper:
a label on each word's first word piece, no CRF, entity-level F1 as conlleval.
Any encoder family: its text side gives each word's pieces and packs the windows.

`tag_scheme` says what the tags are: "chunks" (IOB chunk tags: NER, CoNLL-2003's
chunk column; labels O plus B-/I- of each type, scored by conlleval's entity F1)
or "tags" (a plain tag set: CoNLL-2003's part of speech; labels every tag of the
train file, scored by token accuracy). Both write `accuracy`, the share of
words tagged right.

With `crf` every model ends in a linear-chain CRF (`modeling.crf`) over each
window's labelled words, in order, as the ELMo paper's NER model: trained by
its negative log-likelihood, tagged by Viterbi (evaluation, predictions and
the served model alike).

Two models: fine-tuning (`modeling.task_models.TokenClassifier`, a dense
layer over the last layer, everything trained) and the feature-based approach
(`tasks.tagging.feature_based_tagger.FeatureBasedTagger`: the encoder frozen, a
combination of its layers fed to a randomly initialised BiLSTM).

Split files in `data_dir`: `train.txt`, `dev.txt` (or `valid.txt`) and
`test.txt`, or the original release's `eng.train`, `eng.testa`, `eng.testb`.
"""

import dataclasses
import os

import keras
import numpy as np
import tensorflow as tf
from absl import logging

from contracts import registry
from data.text.text_side import text_side_of
from export.export_meta import ExportMeta
from modeling.crf import TRANSITIONS_OUTPUT, negative_log_likelihood, viterbi_tags
from modeling.encoder_interface import build_encoder
from modeling.feature_based_models import feature_based
from tasks.tagging.conll_reader import TAG_SCHEMES, check_labels, labels_from_sentences, read_tagged_file
from tasks.tagging.feature_based_tagger import LAYER_COMBINATIONS, FeatureBasedTagger
from tasks.tagging.features import build_tagging_features
from tasks.tagging.metrics import conlleval_report, entity_scores, token_accuracy
from tasks.tagging.model import FeatureBasedTokenClassifier, TokenClassifier
from tasks.tagging.predictions import values_per_word, write_conll_predictions
from training.array_dataset import array_dataset
from training.label_prior import prior_cross_entropy
from training.task import FineTuningTask

SPLIT_FILES = {"train": ("train.txt", "eng.train"),
               "dev": ("dev.txt", "valid.txt", "eng.testa"),
               "test": ("test.txt", "eng.testb")}
PREDICTIONS_FILE = "predictions.txt"
BERT_LSTM_UNITS = 768  # the feature-based tagger's BiLSTM (the paper's section 5.4)


def find_split_file(data_dir, split):
    """The file of `split` in `data_dir`: the first of its `SPLIT_FILES` names found."""
    if split not in SPLIT_FILES:
        raise ValueError(f"unknown split {split!r}; expected one of {sorted(SPLIT_FILES)}")
    for name in SPLIT_FILES[split]:
        path = os.path.join(data_dir, name)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"no {split} file in {data_dir!r}: expected one of "
                            + ", ".join(SPLIT_FILES[split]))


@dataclasses.dataclass
class TaggingConfig:
    """`labels`: the label list (default: chunks: every type in the train file, B- and I-;
    tags: every tag in the train file). `tag_scheme`: "chunks" or "tags" (`TAG_SCHEMES`).
    `feature_layers`: a layer combination (`LAYER_COMBINATIONS`) with `feature_based`.
    `trim_padding`: cut each batch to its longest window, and evaluate and
    predict from the shortest window to the longest (not for TPUs, which need
    fixed shapes). `encoder_config` is the encoder's config (any family:
    an `XLNetConfig` too) and `vocab_file` that family's vocabulary file."""

    data_dir: str
    vocab_file: str
    encoder_config: object  # the encoder config of any family
    do_lower_case: bool = True
    max_seq_length: int = 128
    doc_stride: int = 64
    document_context: bool = False
    labels: tuple = None
    tag_column: int = -1
    tag_scheme: str = "chunks"
    init_checkpoint: str = None
    dropout_rate: float = None  # default: the encoder's hidden_dropout_prob
    feature_based: bool = False
    feature_layers: str = "concat_last_four"
    lstm_units: int = None  # default: 768 for BERT's feature_based, the record's (ELMo: 200)
    lstm_layers: int = None  # default: 2, or the record's
    fine_tune_encoder: bool = False  # a feature-based family (ELMo): train its encoder too
    crf: bool = False  # a linear-chain CRF over each window's labelled words
    predict_split: str = "test"
    trim_padding: bool = True
    seed: int = 12345

    def __post_init__(self):
        if self.tag_scheme not in TAG_SCHEMES:
            raise ValueError(f"tag_scheme must be one of {TAG_SCHEMES}, got {self.tag_scheme!r}")
        if self.feature_layers not in LAYER_COMBINATIONS:
            raise ValueError(f"feature_layers must be one of {LAYER_COMBINATIONS}, "
                             f"got {self.feature_layers!r}")


class TaggingTask(FineTuningTask):
    """Datasets yield features {input_word_ids, input_mask, input_type_ids} int32
    [batch, seq] and labels {label_ids int32 [batch, seq], label_weights float32
    [batch, seq] (1 at the first piece of each word the window predicts),
    word_index int32 [batch, seq], sentence_index int32 [batch]}; the model's
    `logits` are [batch, seq, num_labels] (with `crf` beside its
    `crf_transitions`, and what evaluation gathers holds the Viterbi `tags`).

    Example:
    >>> task = TaggingTask(TaggingConfig("conll2003", "vocab.txt", config))
    >>> model = task.build_model(); task.initialize(model)
    >>> features, labels = next(iter(task.build_dataset("dev", 8, training=False)))
    >>> model(features)["logits"].shape
    (8, 128, 9)
    """

    eval_loss_twice = True

    def __init__(self, config):
        self.config = config
        self.text_side = text_side_of(config)
        if config.feature_based and not registry.family(self.text_side.family).layer_combinations:
            raise ValueError(f"feature_based: the layer combinations read BERT's embedding layer; "
                             f"the {self.text_side.family} encoder is fine-tuned, or read by its "
                             f"record's feature-based model")
        self._sentences, self._read_sentences = {}, {}
        self._features = {}
        self._labels = list(config.labels) if config.labels else None

    # --- Data --------------------------------------------------------------

    @property
    def test_splits(self):
        return (self.config.predict_split,)

    @property
    def labels(self):
        """The label list, from the config or else from the train and dev files: a
        tag only dev holds (a rare part of speech in a subset) is a label the
        model never learns and is scored on, not an error."""
        if self._labels is None:
            splits = ["train", *(s for s in self.eval_splits if self._has_split(s))]
            self._labels = labels_from_sentences([s for split in splits for s in self._read(split)],
                                                 self.config.tag_scheme)
            logging.info("Labels from the %s files: %s", " and ".join(splits), self._labels)
        return self._labels

    def _has_split(self, split):
        try:
            find_split_file(self.config.data_dir, split)
        except FileNotFoundError:
            return False
        return True

    def _read(self, split):
        if split not in self._read_sentences:
            path = find_split_file(self.config.data_dir, split)
            self._read_sentences[split] = read_tagged_file(path, self.config.tag_column, self.config.tag_scheme)
        return self._read_sentences[split]

    def sentences(self, split):
        """The split's `TaggedSentence`s (read once, tags checked against `labels`)."""
        if split not in self._sentences:
            sentences = self._read(split)
            check_labels(sentences, self.labels)
            self._sentences[split] = sentences
        return self._sentences[split]

    def features(self, split):
        """The split's `TaggingFeatures` (built once)."""
        if split not in self._features:
            config = self.config
            self._features[split] = build_tagging_features(
                self.sentences(split), self.text_side,
                {label: i for i, label in enumerate(self.labels)}, config.max_seq_length,
                config.doc_stride, config.document_context)
        return self._features[split]

    def num_examples(self, split):
        """Windows in the split (one per sentence unless a sentence is too long)."""
        return len(self.features(split))

    def prior_loss(self):
        """The entropy of the train tags at the labelled positions, each weighted
        as `loss` weights it: by 1 / the window's labelled words (the mean over
        them), or with a CRF by 1 and times the mean words per window (its sum
        over them, the chain's loss when the tags are drawn alone)."""
        features = self.features("train")
        weights = features.label_weights.astype(np.float64)
        if not self.config.crf:
            weights = weights / np.maximum(weights.sum(axis=1, keepdims=True), 1.0)
        return prior_cross_entropy(features.label_ids, weights)

    def build_dataset(self, split, batch_size, training, input_context=None):
        """Training: shuffled, repeated, full batches. Otherwise one pass, in
        order or, with `trim_padding`, from the shortest window to the longest
        (outputs are matched to words by `sentence_index` and `word_index`)."""
        features = self.features(split)
        labels = {"label_ids": features.label_ids, "label_weights": features.label_weights,
                  "word_index": features.word_index, "sentence_index": features.sentence_index}
        trim = self.config.trim_padding
        lengths = features.inputs["input_mask"].sum(axis=-1) if trim else None
        dataset = array_dataset(features.inputs, labels, batch_size, training, self.config.seed,
                                input_context, lengths)
        if trim:
            dataset = dataset.map(self._trim_padding, num_parallel_calls=tf.data.AUTOTUNE)
        return dataset.prefetch(tf.data.AUTOTUNE)

    def _trim_padding(self, features, labels):
        """Cuts a batch to its longest window on the text side's padding side,
        the per-position labels with it."""
        per_position = _per_position(labels)
        trimmed = self.text_side.trim_padding({**features, **per_position})
        return ({k: trimmed[k] for k in features},
                {**labels, **{k: trimmed[k] for k in per_position}})

    def gathered(self, labels, outputs):
        """Labels and logits, the per-position ones padded back to
        `max_seq_length` (`trim_padding` cuts each batch to its own width)."""
        values = {**labels, **outputs}
        if TRANSITIONS_OUTPUT in values:  # the same in every row: decoded here, not kept
            del values[TRANSITIONS_OUTPUT]
            values["tags"] = _viterbi(labels, outputs)
        return {**values, **self.text_side.restore_padding(_per_position(values),
                                                           self.config.max_seq_length)}

    # --- Model -------------------------------------------------------------

    def build_model(self):
        config = self.config
        dropout = config.dropout_rate
        if dropout is None:
            dropout = config.encoder_config.hidden_dropout_prob
        encoder = build_encoder(config.encoder_config)
        if config.feature_based:
            return FeatureBasedTagger(encoder, len(self.labels), config.feature_layers,
                                      config.lstm_units or BERT_LSTM_UNITS, config.lstm_layers or 2,
                                      dropout, crf=config.crf)
        if feature_based(encoder):
            return FeatureBasedTokenClassifier(encoder, len(self.labels), dropout, config.lstm_units,
                                               config.lstm_layers, config.fine_tune_encoder,
                                               crf=config.crf)
        return TokenClassifier(encoder, len(self.labels), dropout_rate=dropout, crf=config.crf)

    def loss(self, labels, outputs):
        """Cross-entropy averaged over the window's labelled pieces (0 if it has
        none); with a CRF its negative log-likelihood of the window's labelled
        words (their sum, as the chain scores them together)."""
        logits = keras.ops.cast(outputs["logits"], "float32")
        if TRANSITIONS_OUTPUT in outputs:
            return negative_log_likelihood(logits, outputs[TRANSITIONS_OUTPUT], labels["label_ids"],
                                           labels["label_weights"] > 0)
        per_piece = keras.losses.sparse_categorical_crossentropy(
            labels["label_ids"], logits, from_logits=True)
        weights = keras.ops.cast(labels["label_weights"], "float32")
        return (keras.ops.sum(per_piece * weights, axis=1)
                / keras.ops.maximum(keras.ops.sum(weights, axis=1), 1.0))

    def build_metrics(self):
        if self.config.crf:
            return [keras.metrics.Accuracy(name="token_accuracy")]
        return [keras.metrics.SparseCategoricalAccuracy(name="token_accuracy")]

    def update_metrics(self, metrics, labels, outputs):
        predicted = (_viterbi(labels, outputs) if self.config.crf
                     else keras.ops.cast(outputs["logits"], "float32"))
        for metric in metrics:
            metric.update_state(labels["label_ids"], predicted, sample_weight=labels["label_weights"])

    # --- Outputs -----------------------------------------------------------

    def _predicted(self, predictions):
        """The predicted label id at each position: Viterbi's tags with a CRF, else the argmax."""
        if "tags" in predictions:
            return predictions["tags"]
        return np.argmax(predictions["logits"], -1)

    def _tags_per_word(self, predictions, values):
        label_weights, word_index, sentence_index = (
            predictions[k] for k in ("label_weights", "word_index", "sentence_index"))
        by_sentence = values_per_word(label_weights, word_index, sentence_index, values)
        return {s: [self.labels[i] for i in ids] for s, ids in by_sentence.items()}

    def _gold_and_predicted(self, predictions):
        """(gold, predicted) tags of each word of the sentences in `predictions`."""
        gold = self._tags_per_word(predictions, predictions["label_ids"])
        predicted = self._tags_per_word(predictions, self._predicted(predictions))
        order = sorted(gold)
        return [gold[s] for s in order], [predicted[s] for s in order]

    def scores(self, predictions):
        """`EntityScores` over the sentences in `predictions` (gathered labels and logits)."""
        return entity_scores(*self._gold_and_predicted(predictions))

    def evaluate(self, predictions):
        """Chunks: entity-level precision, recall and F1, overall and per type
        (`PER_f1`, ...), and token `accuracy`; tags: token `accuracy`."""
        if self.config.tag_scheme == "tags":
            return {"accuracy": token_accuracy(*self._gold_and_predicted(predictions))}
        scores = self.scores(predictions)
        logging.info("conlleval:\n%s", conlleval_report(scores))
        return scores.as_dict()

    def write_predictions(self, split, predictions, output_dir):
        """`predictions.txt` (`word gold predicted`, conlleval's input)."""
        sentences = self.sentences(split)
        predicted = self._tags_per_word(predictions, self._predicted(predictions))
        lengths = {s: len(tags) for s, tags in predicted.items()}
        expected = {s: len(sentence.words) for s, sentence in enumerate(sentences)}
        if lengths != expected:
            raise ValueError(f"predictions cover {len(lengths)} of the {len(sentences)} "
                             f"sentences of the {split} split, or not all their words")
        path = os.path.join(output_dir, PREDICTIONS_FILE)
        write_conll_predictions(path, sentences, [predicted[s] for s in range(len(sentences))])
        return [path]

    def export_meta(self):
        """None for the feature-based model, which is not exported."""
        config = self.config
        if config.feature_based:
            return None
        return ExportMeta("tagging", config.encoder_config, config.vocab_file, config.do_lower_case,
                          config.max_seq_length, tuple(self.labels), doc_stride=config.doc_stride,
                          tag_scheme=config.tag_scheme, task_model=self.task_model_config())


def _viterbi(labels, outputs):
    """The CRF's best tags of each window's labelled words, -1 elsewhere: int32 [batch, seq]."""
    return viterbi_tags(outputs["logits"], outputs[TRANSITIONS_OUTPUT], labels["label_weights"] > 0)


def _per_position(values):
    """The [batch, seq, ...] entries of a batch's labels and outputs: all but
    the per-row ones (`sentence_index`, an encoder's `auxiliary_loss`)."""
    return {k: v for k, v in values.items() if v.shape.rank >= 2}
