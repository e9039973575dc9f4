"""`GPTConfig`: the original's fields and defaults, presets, errors that name
the file and the field, the JSON file round trip."""

import json

import pytest

from families.gpt.config import GPTConfig, GPTConfigError


def test_the_gpt_preset_is_the_released_model():
    config = GPTConfig.from_preset("gpt")
    assert (config.n_layer, config.n_embd, config.n_head, config.intermediate_size, config.n_ctx) == (
        12, 768, 12, 3072, 512)
    assert (config.n_vocab, config.n_special, config.vocab_size) == (40478, 3, 40481)
    assert (config.afn, config.layer_norm_epsilon, config.lm_coef, config.clf_pdrop) == ("gelu", 1e-5, 0.5, 0.1)
    assert (config.hidden_size, config.max_position_embeddings, config.hidden_dropout_prob) == (768, 512, 0.1)
    assert GPTConfig.from_preset("gpt_tiny").n_layer == 2


def test_json_round_trip(tmp_path):
    config = GPTConfig.from_preset("gpt_tiny").replace(n_special=0, afn="relu")
    path = str(tmp_path / GPTConfig.config_file_name)
    config.to_json_file(path)
    assert GPTConfig.from_json_file(path) == config


@pytest.mark.parametrize("values, field", [
    ({"n_head": 5}, "n_head"), ({"n_special": -1}, "n_special"), ({"attn_pdrop": 1.0}, "attn_pdrop"),
    ({"afn": "gelu_exact"}, "afn"), ({"n_layer": True}, "n_layer"), ({"lm_coef": -1}, "lm_coef"),
    ({"layer_norm_epsilon": 0}, "layer_norm_epsilon"), ({"n_embdd": 768}, "n_embdd"),
])
def test_errors_name_the_file_and_the_field(tmp_path, values, field):
    path = tmp_path / "gpt_config.json"
    path.write_text(json.dumps({**GPTConfig().to_dict(), **values}))
    with pytest.raises(GPTConfigError, match=f"{path}.*{field}"):
        GPTConfig.from_json_file(str(path))
