"""The record of a model family: everything shared code may ask of it."""

import dataclasses
import os

TASKS = ("classification", "question_answering", "tagging", "multiple_choice", "feature_extraction")


@dataclasses.dataclass(frozen=True)
class QuestionAnswering:
    """A family's own SQuAD layout and head, where it is not BERT's span head:
    `windows` lays a window out in Python (as
    `data.question_answering.features.QuestionFirst`), `head` is the task's
    head (as `tasks.question_answering_heads.StartEndHead`), `graph_head` its
    reader in the SavedModel (as
    `tasks.question_answering_graph_heads.StartEndReader`); `flags` the
    integer flags `run_squad.py` defines for its head, (name, default, help),
    each a field of `tasks.question_answering.QuestionAnsweringConfig`."""

    windows: type
    head: type
    graph_head: type
    flags: tuple = ()


@dataclasses.dataclass(frozen=True)
class FeatureBased:
    """A family whose tasks read its encoder as features by default (ELMo, as
    its paper): the encoder frozen, its `encoder_outputs` mixed into one vector
    per token by the Keras layer `mix(dtype=, name=)` makes (called as
    `mix(layers, mask)`: ELMo's `ScalarMix`, a fine-tuning weight whose own
    regularization losses join the training loss), then a task BiLSTM of
    `lstm_units` per direction and `lstm_layers` (`modeling.feature_based_models`).
    `--fine_tune_encoder` trains the encoder too."""

    mix: object
    lstm_units: int = 200
    lstm_layers: int = 2


@dataclasses.dataclass(frozen=True)
class Family:
    """What a family declares, in its own home, for tasks, runners, checkpoints
    and exports to use it without naming it.

    `name` is what `export_meta.json` records as `encoder_family` and what
    `--family` flags take; `title` how people write it ("BERT", "XLNet").
    `config_type` is its encoder config (a
    `modeling.json_config.JsonConfig` with presets), `encoder_type` the Keras
    encoder built from one (see `modeling.encoder_interface`), `text_side` its
    `data.text.text_side.TextSide` class (vocabulary file names, lower-case
    default, tokenizers, packing); `tiny_preset` a preset small enough for
    tests and demos. `command_lines` are its own scripts at the repository root
    (data writers, vocabulary builders). `hub_model(config)` makes what the TF Hub encoder
    SavedModel holds (None: the encoder alone). `hub_module(export_dir, encoder)`
    writes a TF Hub module of the family's own published layout (ELMo's) that
    `export.export_hub` adds beside the pair, in `<export_dir>/<name>`. `checkpoint_formats` are the
    `checkpoints.formats.CheckpointFormat`s it reads beyond our own;
    `saved_weights(fmt, by_path, model)` reads our own weights of it ("ours",
    "trainer": {variable path: array}) otherwise than by path, or None.
    `convert(init_checkpoint, output_dir, output_format, config, vocab_file,
    do_lower_case)` writes one of its checkpoints in one of `output_formats`;
    `convert_flags` are (name, help) string flags of its own that
    `convert_checkpoint.py` defines and, when given, passes to `convert` by name.
    `pretraining` names the module of its part of `run_pretraining.py`
    (`define_flags()`, `build_task()`, `check_run(files, replicas, slices)`,
    optionally `optimizer_config()`: its own optimizer, or None for the shared one);
    `comparison` the module listing its `SYSTEMS` in `compare.py`
    (`comparisons.systems.System`), pretrained as that command line runs them.
    `foreign_config(directory)` reads the config of another project's layout
    in `directory` (a Hugging Face `config.json`, a keras-hub preset) when it
    is one of this family's, else gives None; `foreign_vocabulary(directory)`
    names such a layout's vocabulary file, or None. `question_answering` is
    its own SQuAD layout and head, None for BERT's span head. `feature_based`
    (a `FeatureBased`) makes every task read the encoder as frozen features
    under a task BiLSTM instead of fine-tuning it with one dense layer (None:
    fine-tuned). `tasks` are the fine-tuning
    tasks it supports; a runner refuses the others with a clear error.
    `language_model(config)` makes what a generation SavedModel holds
    (`export.serving_generation`): a Keras model from the encoder inputs to
    `next_token_logits` [batch, vocab], the scores of the token after each
    row's last real token, holding the encoder as `encoder`; None for a family
    that does not generate left to right.
    """

    name: str
    title: str
    config_type: type
    encoder_type: type
    text_side: type
    tiny_preset: str
    hub_model: object = None
    hub_module: object = None
    checkpoint_formats: tuple = ()
    saved_weights: object = None
    convert: object = None
    output_formats: tuple = ()
    convert_flags: tuple = ()
    pretraining: str = None
    comparison: str = None
    foreign_config: object = None
    foreign_vocabulary: object = None
    question_answering: QuestionAnswering = None
    feature_based: FeatureBased = None
    command_lines: tuple = ()
    tasks: tuple = TASKS
    language_model: object = None

    @property
    def config_file(self):
        """The name of the config file its checkpoints carry beside them."""
        return self.config_type.config_file_name

    def config_in(self, directory):
        """The config of another project's layout in `directory`, or None."""
        return self.foreign_config(directory) if self.foreign_config else None

    def vocabulary_in(self, directory):
        """The family's vocabulary file in `directory` (its own name, or a
        foreign layout's), or None."""
        found = self.foreign_vocabulary(directory) if self.foreign_vocabulary else None
        candidate = found or os.path.join(directory, self.text_side.model_file_name)
        return candidate if os.path.isfile(candidate) else None

    def build_encoder(self, config, **kwargs):
        """A fresh encoder of `config`; `kwargs` go to the encoder's constructor."""
        return self.encoder_type(config, **kwargs)

    def check_task(self, task):
        """Raises `UnsupportedTaskError` unless the family supports `task`."""
        if task not in self.tasks:
            raise UnsupportedTaskError(f"the {self.name} family does not support {task}; it supports "
                                       + ", ".join(self.tasks))


class UnsupportedTaskError(ValueError):
    """A task a family's record does not list."""
