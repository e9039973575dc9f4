"""The contract between a task and the shared loops: `training/trainer.py` trains,
evaluates and predicts any `Task`; `training/fine_tuning.py` runs a whole
fine-tuning job (train, evaluate the dev splits, predict the test splits) of
any `FineTuningTask`. Runners (`run_*.py`) parse flags, build one task and
hand it to those loops; nothing else about a task lives in a runner.

Every hook has one signature:

    build_model()                            a fresh Keras model
    initialize(model)                        load `init_checkpoint` (pretrained weights)
    build_dataset(split, batch_size, training, input_context=None)
                                             tf.data of (features, labels) dicts
    input_name(split)                        what the split is read from, for messages
    loss(labels, outputs)                    float32 loss per example [batch]
    build_metrics()                          streaming Keras metrics
    update_metrics(metrics, labels, outputs) one batch into them
    gathered(labels, outputs)                what evaluation and prediction collect of a batch
    evaluate(predictions)                    whole-split metrics (dict) from gathered outputs
    initial_state(batch_size)                what a replica's training step carries to the next
                                             (XLNet's memory), or None
    forward(model, features, state, training)
                                             (outputs, next state) of one batch

and a `FineTuningTask` adds:

    eval_splits, test_splits                 the splits `--do_eval` / `--do_predict` read
    num_examples(split)                      examples one epoch over the split trains on
    prior_loss()                             `loss` of the best constant predictor on the train
                                             split (the label prior's), the floor a run that
                                             learned must fall below
    write_predictions(split, predictions, output_dir)
                                             the prediction files; returns their paths
    export_meta()                            the `ExportMeta` of the fine-tuned model,
                                             None when it cannot be exported; it records
                                             `task_model_config()`

Tasks make their encoder with `modeling.encoder_interface.build_encoder` and
rely only on that interface's inputs and outputs. Their text comes from the
encoder family's text side (`data.text.text_side.text_side_of(config)`: tokenizer, special tokens,
packing): classification, multiple choice,
tagging (each word's pieces from the text side, word by word) and question
answering (its windows laid out and its head picked by the family:
`tasks.question_answering.features.window_layout`,
`tasks.question_answering.heads.question_answering_head`) take any family's.
"""

import abc

import keras
from keras import ops

from checkpoints.pretrained import load_pretrained


class Task(abc.ABC):
    """One pretraining or fine-tuning problem.

    Datasets yield `(features, labels)` pairs of dicts of tensors. `loss`
    returns one value per example so the trainer can average over the global
    batch under any distribution strategy (and with gradient accumulation).
    """

    init_checkpoint = None  # Pretrained weights `initialize` loads (a path), or None.

    @abc.abstractmethod
    def build_model(self):
        """A fresh Keras model (built under the trainer's strategy scope) with an
        `encoder` attribute."""

    def initialize(self, model):
        """Loads `init_checkpoint` into a fresh model; every encoder variable
        must come from it, except its `fine_tuning_weights` (the task's head
        may start from scratch)."""
        if not self.init_checkpoint:
            return
        load_pretrained(model, model.encoder, self.init_checkpoint)

    @abc.abstractmethod
    def build_dataset(self, split, batch_size, training, input_context=None):
        """`tf.data.Dataset` of (features, labels) for `split` ("train", "dev", "test")."""

    def input_name(self, split):
        """What `split` is read from, for messages: its file(s), or the split's name."""
        return f"split {split!r}"

    @abc.abstractmethod
    def loss(self, labels, outputs):
        """Per-example float32 loss [batch]; the trainer averages over the global batch."""

    def training_loss(self, labels, outputs):
        """What training minimises: `loss` plus the auxiliary loss a family's
        encoder adds through the task model (`auxiliary_loss` [batch], already
        weighted: GPT's language-model loss times `lm_coef`). Evaluation
        reports `loss` alone, and the trainer logs it apart as `task_loss`."""
        loss = self.loss(labels, outputs)
        if "auxiliary_loss" in outputs:
            loss += ops.cast(outputs["auxiliary_loss"], loss.dtype)
        return loss

    def build_metrics(self):
        """Streaming Keras metrics, created under the strategy scope."""
        return []

    def update_metrics(self, metrics, labels, outputs):
        """Update the metrics from `build_metrics` with one batch."""

    def gathered(self, labels, outputs):
        """What evaluation and prediction collect of one batch's real rows, in
        the graph: its labels and outputs. Batches are concatenated, so every
        shape beyond the batch must be the same in each."""
        return {**labels, **outputs}

    def evaluate(self, predictions):
        """Metrics that need the whole split (F1 over spans, SQuAD EM/F1, MCC, ...):
        `predictions` is what the trainer's predict loop gathered (the model's
        outputs and the dataset's labels, one row per example). Returns a dict."""
        return {}

    def initial_state(self, batch_size):
        """State one replica's training step hands to the next, for its
        `batch_size` rows of one micro-batch: a nest of tensors (XLNet's memory
        of the previous segment, since consecutive batches continue each row),
        or None. The trainer keeps it per replica and micro-batch, passes no
        gradient through it and does not checkpoint it."""
        return None

    def forward(self, model, features, state, training):
        """(outputs, next state) of `model` on one batch; `state` is
        `initial_state`'s or the previous step's, None when there is none."""
        return model(features, training=training), state


class FineTuningTask(Task):
    """A task `training.fine_tuning.fine_tune` runs end to end; see the module docstring.

    Class attributes say how evaluation is written: `eval_results_file` (`.txt`:
    the original's `key = value` lines; `.json`: one JSON object),
    `eval_from_predictions` (evaluating a split is `evaluate` of its predictions
    alone, no loss: SQuAD, whose prediction windows carry no labels) and
    `eval_loss_twice` (also `loss` beside `eval_loss`, as the original
    run_classifier.py writes it).
    """

    eval_splits = ("dev",)
    test_splits = ("test",)
    eval_results_file = "eval_results.txt"
    eval_from_predictions = False
    eval_loss_twice = False

    @property
    def init_checkpoint(self):
        return self.config.init_checkpoint

    @abc.abstractmethod
    def num_examples(self, split):
        """Examples (or windows) in `split`: what one epoch trains on."""

    @abc.abstractmethod
    def write_predictions(self, split, predictions, output_dir):
        """Writes `split`'s prediction file(s) into `output_dir` from what the
        trainer's predict loop gathered; returns the list of paths written."""

    @abc.abstractmethod
    def prior_loss(self):
        """The mean `loss` over the train split of the best predictor that
        ignores its input (`training.label_prior`: cross-entropy: the entropy of
        the labels as the loss weights them; squared error: their variance).
        A training loss that stays near it learned only the label prior."""

    def task_model_config(self):
        """The Keras config of the model `build_model` makes, for `export_meta.json`:
        the export rebuilds the model from it without knowing its class or family."""
        return keras.saving.serialize_keras_object(self.build_model())

    @abc.abstractmethod
    def export_meta(self):
        """The `export.export_meta.ExportMeta` the export rebuilds this task's
        model from, or None when the model is not exported."""
