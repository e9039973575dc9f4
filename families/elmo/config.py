"""`ELMoConfig`: the original biLM's `options.json`, read and written key for
key (so a released options file round-trips exactly), validated, with the
released sizes as presets."""

import dataclasses
import typing

from modeling.json_config import ConfigError, JsonConfig

ACTIVATIONS = ("relu", "tanh")
N_CHARACTERS = 262  # 261 trained ids (bytes, 5 specials) + the padding row 0 added at load
# Top-level keys of the training options (bilm-tf's train_elmo.py) that the
# released files may carry beside `lstm` and `char_cnn`; kept, never used here
# except `n_tokens_vocab` (the LM softmax's size) and `dropout`.
TRAINING_KEYS = ("bidirectional", "dropout", "n_tokens_vocab", "all_clip_norm_val", "n_epochs",
                 "n_train_tokens", "batch_size", "unroll_steps", "n_negative_samples_batch",
                 "learning_rate", "sample_softmax", "share_embedding_softmax")


class ELMoConfigError(ConfigError):
    """An options file that cannot describe an ELMo biLM; the message names the field."""


@dataclasses.dataclass(frozen=True)
class CharCNNOptions:
    """`char_cnn` of options.json: the character CNN of Kim et al. (2016).
    `filters` are (width, number) pairs; `n_highway` None when the file omits it."""

    activation: str = "relu"
    embedding_dim: int = 16
    filters: tuple = ((1, 32), (2, 32), (3, 64), (4, 128), (5, 256), (6, 512), (7, 1024))
    max_characters_per_token: int = 50
    n_characters: int = N_CHARACTERS
    n_highway: typing.Optional[int] = 2

    @property
    def n_filters(self):
        return sum(n for _, n in self.filters)


@dataclasses.dataclass(frozen=True)
class LSTMOptions:
    """`lstm` of options.json: each direction's LSTM stack with projection.
    No clip when `cell_clip` / `proj_clip` are None, and one layer when
    `n_layers` is None: the original's readings of an absent key."""

    dim: int = 4096
    projection_dim: int = 512
    n_layers: typing.Optional[int] = 2
    cell_clip: typing.Optional[float] = 3
    proj_clip: typing.Optional[float] = 3
    use_skip_connections: bool = True

    @property
    def num_layers(self):
        return 1 if self.n_layers is None else self.n_layers


@dataclasses.dataclass(frozen=True)
class ELMoConfig(JsonConfig):
    """An ELMo biLM's options, names as in the original `options.json`.

    `char_cnn` None is the token-embedding variant (the file has no `char_cnn`
    and the weights an `embedding`). The training keys (`TRAINING_KEYS`) are
    None when the file lacks them and are then not written.

    Example:
    >>> config = ELMoConfig.from_preset("elmo_original")
    >>> config.hidden_size
    1024
    >>> ELMoConfig.from_json_file("elmo_2x4096_512_2048cnn_2xhighway_options.json")
    """

    error = ELMoConfigError  # not a field: no annotation
    config_file_name = "options.json"
    vocab_size_field = "n_tokens_vocab"
    vocab_file_flag = "--vocab_file"

    lstm: LSTMOptions = LSTMOptions()
    char_cnn: typing.Optional[CharCNNOptions] = CharCNNOptions()
    bidirectional: typing.Optional[bool] = None
    dropout: typing.Optional[float] = None
    n_tokens_vocab: typing.Optional[int] = None
    all_clip_norm_val: typing.Optional[float] = None
    n_epochs: typing.Optional[int] = None
    n_train_tokens: typing.Optional[int] = None
    batch_size: typing.Optional[int] = None
    unroll_steps: typing.Optional[int] = None
    n_negative_samples_batch: typing.Optional[int] = None
    learning_rate: typing.Optional[float] = None
    sample_softmax: typing.Optional[bool] = None
    share_embedding_softmax: typing.Optional[bool] = None

    def __post_init__(self):
        lstm = self.lstm
        for name in ("dim", "projection_dim", "num_layers"):
            _positive_int(f"lstm.{name.replace('num_', 'n_')}", getattr(lstm, name))
        if lstm.projection_dim > lstm.dim:
            raise ELMoConfigError(f"lstm.projection_dim ({lstm.projection_dim}) must not exceed "
                                  f"lstm.dim ({lstm.dim})")
        for name in ("cell_clip", "proj_clip"):
            value = getattr(lstm, name)
            if value is not None and (not _is_number(value) or value < 0):
                raise ELMoConfigError(f"lstm.{name} must be a non-negative number, got {value!r}")
        if not isinstance(lstm.use_skip_connections, bool):
            raise ELMoConfigError(f"lstm.use_skip_connections must be true or false, "
                                  f"got {lstm.use_skip_connections!r}")
        if self.char_cnn is not None:
            self._check_char_cnn(self.char_cnn, lstm.projection_dim)
        if self.char_cnn is None and self.n_tokens_vocab is None:
            raise ELMoConfigError("a config without char_cnn (token embeddings) needs n_tokens_vocab")
        if self.n_tokens_vocab is not None:
            _positive_int("n_tokens_vocab", self.n_tokens_vocab)
        if self.dropout is not None and (not _is_number(self.dropout) or not 0 <= self.dropout < 1):
            raise ELMoConfigError(f"dropout must be in [0, 1), got {self.dropout!r}")

    @staticmethod
    def _check_char_cnn(cnn, projection_dim):
        if cnn.activation not in ACTIVATIONS:
            raise ELMoConfigError(f"char_cnn.activation {cnn.activation!r} is not one of {ACTIVATIONS}")
        _positive_int("char_cnn.embedding.dim", cnn.embedding_dim)
        _positive_int("char_cnn.max_characters_per_token", cnn.max_characters_per_token)
        if cnn.max_characters_per_token < 3:
            raise ELMoConfigError("char_cnn.max_characters_per_token must be at least 3 "
                                  "(begin of word, a character, end of word)")
        if cnn.n_characters not in (N_CHARACTERS - 1, N_CHARACTERS):
            raise ELMoConfigError(f"char_cnn.n_characters must be 261 (training) or 262 (inference), "
                                  f"got {cnn.n_characters!r}")
        if cnn.n_highway is not None and (not _is_int(cnn.n_highway) or cnn.n_highway < 0):
            raise ELMoConfigError(f"char_cnn.n_highway must be a non-negative integer, got {cnn.n_highway!r}")
        if not cnn.filters or not all(
                isinstance(f, tuple) and len(f) == 2 and all(_is_int(v) and v > 0 for v in f)
                for f in cnn.filters):
            raise ELMoConfigError(f"char_cnn.filters must be [[width, number], ...] of positive "
                                  f"integers, got {cnn.filters!r}")
        widest = max(width for width, _ in cnn.filters)
        if widest > cnn.max_characters_per_token:
            raise ELMoConfigError(f"char_cnn.filters: width {widest} exceeds "
                                  f"max_characters_per_token {cnn.max_characters_per_token}")
        if cnn.n_filters < projection_dim:
            raise ELMoConfigError(f"char_cnn.filters: {cnn.n_filters} filters in all, fewer than "
                                  f"lstm.projection_dim {projection_dim} (the original only projects down)")

    # The encoder interface's names (`modeling.encoder_interface.CONFIG_FIELDS`)
    # and the dropout a task's head takes by default.
    @property
    def hidden_size(self):
        """Each layer's width: the forward and backward projections side by side."""
        return 2 * self.lstm.projection_dim

    @property
    def max_position_embeddings(self):
        """None: LSTMs have no position table and no length limit."""
        return None

    @property
    def initializer_range(self):
        """The heads' initializer scale; options.json has none (the original
        initializes each biLM weight by its own rule)."""
        return 0.02

    @property
    def hidden_dropout_prob(self):
        """The training `dropout` where the file records one, else 0.1."""
        return 0.1 if self.dropout is None else self.dropout

    @property
    def vocab_size(self):
        """`n_tokens_vocab`, the word vocabulary of the LM softmax (None if the file has none)."""
        return self.n_tokens_vocab

    @property
    def token_embeddings(self):
        """True for the variant that looks tokens up in `embedding` instead of the char CNN."""
        return self.char_cnn is None

    @property
    def input_vocab_sizes(self):
        """The rows of `char_embed` (N_CHARACTERS whatever `n_characters` says),
        or of the token variant's `embedding` (ids are vocabulary indices + 1)."""
        if self.token_embeddings:
            return {"input_word_ids": self.n_tokens_vocab + 1}
        return {"input_char_ids": N_CHARACTERS}

    def for_fine_tuning(self):
        """This config; a token-embedding one is refused: tasks and exports pack
        characters (their `input_word_ids` would need the vocabulary's ids and the
        indices of `<S>` and `</S>`, which no task passes yet)."""
        if self.token_embeddings:
            raise ELMoConfigError("a token-embedding biLM (an options.json without char_cnn) does not run "
                                  "the tasks or exports yet: they take ELMo's character biLM")
        return self

    def to_dict(self):
        lstm = {"dim": self.lstm.dim, "projection_dim": self.lstm.projection_dim,
                "use_skip_connections": self.lstm.use_skip_connections}
        lstm.update({k: getattr(self.lstm, k) for k in ("n_layers", "cell_clip", "proj_clip")
                     if getattr(self.lstm, k) is not None})
        values = {"lstm": lstm}
        if self.char_cnn is not None:
            cnn = self.char_cnn
            values["char_cnn"] = {
                "activation": cnn.activation, "embedding": {"dim": cnn.embedding_dim},
                "filters": [list(f) for f in cnn.filters],
                "max_characters_per_token": cnn.max_characters_per_token,
                "n_characters": cnn.n_characters}
            if cnn.n_highway is not None:
                values["char_cnn"]["n_highway"] = cnn.n_highway
        values.update({k: getattr(self, k) for k in TRAINING_KEYS if getattr(self, k) is not None})
        return values

    @classmethod
    def from_dict(cls, values, source="options"):
        try:
            _known(values, ("lstm", "char_cnn") + TRAINING_KEYS, "")
            if not isinstance(values.get("lstm"), dict):
                raise ELMoConfigError("lstm: missing, or not an object")
            lstm = values["lstm"]
            _known(lstm, [f.name for f in dataclasses.fields(LSTMOptions)], "lstm.")
            for name in ("dim", "projection_dim", "use_skip_connections"):
                if name not in lstm:
                    raise ELMoConfigError(f"lstm.{name} is missing")
            lstm = LSTMOptions(**{"n_layers": None, "cell_clip": None, "proj_clip": None, **lstm})
            char_cnn = values.get("char_cnn")
            if char_cnn is not None:
                char_cnn = _char_cnn_from_dict(char_cnn)
            return cls(lstm=lstm, char_cnn=char_cnn, **{k: values[k] for k in TRAINING_KEYS if k in values})
        except (ELMoConfigError, TypeError) as e:
            raise ELMoConfigError(f"{source}: {e}") from None

    @classmethod
    def presets(cls):
        return ELMO_PRESETS


def _char_cnn_from_dict(values):
    if not isinstance(values, dict):
        raise ELMoConfigError("char_cnn: not an object")
    _known(values, ("activation", "embedding", "filters", "max_characters_per_token", "n_characters",
                    "n_highway"), "char_cnn.")
    for name in ("activation", "embedding", "filters", "max_characters_per_token", "n_characters"):
        if name not in values:
            raise ELMoConfigError(f"char_cnn.{name} is missing")
    embedding = values["embedding"]
    if not isinstance(embedding, dict) or set(embedding) != {"dim"}:
        raise ELMoConfigError(f"char_cnn.embedding must be {{\"dim\": n}}, got {embedding!r}")
    filters = values["filters"]
    if not isinstance(filters, list) or not all(isinstance(f, list) for f in filters):
        raise ELMoConfigError(f"char_cnn.filters must be [[width, number], ...], got {filters!r}")
    return CharCNNOptions(
        activation=values["activation"], embedding_dim=embedding["dim"],
        filters=tuple(tuple(f) for f in filters),
        max_characters_per_token=values["max_characters_per_token"],
        n_characters=values["n_characters"], n_highway=values.get("n_highway"))


def _known(values, names, prefix):
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise ELMoConfigError(f"unknown key(s) {[prefix + k for k in unknown]}; "
                              f"expected a subset of {sorted(prefix + n for n in names)}")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _positive_int(name, value):
    if not _is_int(value) or value <= 0:
        raise ELMoConfigError(f"{name} must be a positive integer, got {value!r}")


def _released(dim, projection_dim, n_highway):
    """The released options files: relu char CNN over 16-d character
    embeddings, 2048 filters of widths 1-7, two layers, clips 3, skip connections."""
    return ELMoConfig(lstm=LSTMOptions(dim=dim, projection_dim=projection_dim),
                      char_cnn=CharCNNOptions(n_highway=n_highway))


ELMO_PRESETS = {
    # allenai/bilm-tf and AllenNLP's released models (elmo_<2xdim>_<proj>_2048cnn_<n>xhighway_options.json).
    "elmo_5.5b": _released(4096, 512, 2),
    "elmo_original": _released(4096, 512, 2),
    "elmo_medium": _released(2048, 256, 1),
    "elmo_small": _released(1024, 128, 1),
    # For tests and demos: every part of the architecture (two highways, a
    # projection, clips, skip connections), small enough to run in a moment.
    "elmo_tiny": ELMoConfig(
        lstm=LSTMOptions(dim=24, projection_dim=8),
        char_cnn=CharCNNOptions(embedding_dim=4, filters=((1, 4), (2, 4), (3, 8)), n_highway=2),
        n_tokens_vocab=50),
}
