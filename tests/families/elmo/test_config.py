"""ELMoConfig: the original options.json key for key, the released sizes,
errors that name the file and the field."""

import json

import pytest

from families.elmo.config import ELMO_PRESETS, ELMoConfig, ELMoConfigError

# The released elmo_2x4096_512_2048cnn_2xhighway_options.json, as published.
RELEASED = {"lstm": {"use_skip_connections": True, "projection_dim": 512, "cell_clip": 3, "proj_clip": 3,
                     "dim": 4096, "n_layers": 2},
            "char_cnn": {"activation": "relu", "filters": [[1, 32], [2, 32], [3, 64], [4, 128], [5, 256],
                                                           [6, 512], [7, 1024]],
                         "n_highway": 2, "embedding": {"dim": 16}, "n_characters": 262,
                         "max_characters_per_token": 50}}
# bilm-tf's train_elmo.py options: training keys and n_characters 261.
TRAINING = {**RELEASED, "char_cnn": {**RELEASED["char_cnn"], "n_characters": 261},
            "bidirectional": True, "dropout": 0.1, "all_clip_norm_val": 10.0, "n_epochs": 10,
            "n_train_tokens": 768648884, "batch_size": 128, "n_tokens_vocab": 793471, "unroll_steps": 20,
            "n_negative_samples_batch": 8192}
TOKENS = {"lstm": {"dim": 16, "projection_dim": 8, "use_skip_connections": False}, "n_tokens_vocab": 30}


@pytest.mark.parametrize("options", [RELEASED, TRAINING, TOKENS], ids=["released", "training", "tokens"])
def test_round_trips_exactly(options, tmp_path):
    path = tmp_path / "options.json"
    path.write_text(json.dumps(options))
    config = ELMoConfig.from_json_file(str(path))
    assert config.to_dict() == options
    config.to_json_file(str(tmp_path / "again.json"))
    assert json.loads((tmp_path / "again.json").read_text()) == options


def test_presets_have_the_released_sizes():
    assert ELMoConfig.from_dict(RELEASED) == ELMO_PRESETS["elmo_original"] == ELMO_PRESETS["elmo_5.5b"]
    for name, (dim, projection, highways) in {"elmo_medium": (2048, 256, 1), "elmo_small": (1024, 128, 1)}.items():
        config = ELMO_PRESETS[name]
        assert (config.lstm.dim, config.lstm.projection_dim, config.char_cnn.n_highway) == (dim, projection, highways)
        assert config.char_cnn.n_filters == 2048
    assert ELMO_PRESETS["elmo_original"].hidden_size == 1024


def test_interface_properties():
    config = ELMoConfig.from_dict(TRAINING)
    assert config.hidden_size == 1024 and config.max_position_embeddings is None
    assert config.vocab_size == 793471 and config.hidden_dropout_prob == 0.1
    assert config.initializer_range > 0
    tokens = ELMoConfig.from_dict(TOKENS)
    assert tokens.token_embeddings and tokens.lstm.num_layers == 1  # the original's default
    assert tokens.lstm.cell_clip is None


@pytest.mark.parametrize("change, field", [
    ({"lstm": {**RELEASED["lstm"], "dim": 0}}, "lstm.dim"),
    ({"lstm": {**RELEASED["lstm"], "projection_dim": 8192}}, "lstm.projection_dim"),
    ({"lstm": {**RELEASED["lstm"], "cell_clip": "3"}}, "lstm.cell_clip"),
    ({"lstm": {**RELEASED["lstm"], "use_skip_connections": 1}}, "lstm.use_skip_connections"),
    ({"lstm": {**RELEASED["lstm"], "dims": 3}}, "lstm.dims"),
    ({"char_cnn": {**RELEASED["char_cnn"], "activation": "gelu"}}, "char_cnn.activation"),
    ({"char_cnn": {**RELEASED["char_cnn"], "n_characters": 256}}, "char_cnn.n_characters"),
    ({"char_cnn": {**RELEASED["char_cnn"], "filters": [[1, 32], [2]]}}, "char_cnn.filters"),
    ({"char_cnn": {**RELEASED["char_cnn"], "filters": [[1, 32]]}}, "char_cnn.filters"),
    ({"char_cnn": {**RELEASED["char_cnn"], "embedding": {"size": 16}}}, "char_cnn.embedding"),
    ({"char_cnn": {k: v for k, v in RELEASED["char_cnn"].items() if k != "filters"}}, "char_cnn.filters"),
    ({"char_cnn": None}, "n_tokens_vocab"),
    ({"n_token": 3}, "n_token"),
    ({"dropout": 1.5}, "dropout"),
])
def test_errors_name_the_file_and_field(change, field, tmp_path):
    path = tmp_path / "options.json"
    path.write_text(json.dumps({**RELEASED, **change}))
    with pytest.raises(ELMoConfigError, match=rf"options\.json: .*{field}"):
        ELMoConfig.from_json_file(str(path))


def test_unknown_preset_lists_the_known():
    with pytest.raises(ELMoConfigError, match="elmo_tiny"):
        ELMoConfig.from_preset("elmo_huge")
