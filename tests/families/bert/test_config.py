"""`BertConfig`: the original JSON format, presets and clear errors."""

import json

import pytest

from families.bert.config import PRESETS, BertConfig, ConfigError

ORIGINAL_BASE_JSON = {
    "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
    "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
    "max_position_embeddings": 512, "num_attention_heads": 12, "num_hidden_layers": 12,
    "type_vocab_size": 2, "vocab_size": 30522,
}


def test_reads_the_released_base_config_and_writes_it_back(tmp_path):
    path = tmp_path / "bert_config.json"
    path.write_text(json.dumps(ORIGINAL_BASE_JSON))
    config = BertConfig.from_json_file(str(path))
    assert config == PRESETS["bert_base_uncased"]
    config.to_json_file(str(tmp_path / "out.json"))
    written = json.loads((tmp_path / "out.json").read_text())
    assert {k: written[k] for k in ORIGINAL_BASE_JSON} == ORIGINAL_BASE_JSON


def test_presets_cover_base_large_and_the_24_small_berts():
    assert PRESETS["bert_large_cased"].hidden_size == 1024
    assert PRESETS["bert_large_uncased"].num_hidden_layers == 24
    assert PRESETS["bert_base_cased"].vocab_size == 28996
    small = [name for name in PRESETS if name.startswith("bert_uncased_L-")]
    assert len(small) == 24
    config = BertConfig.from_preset("bert_uncased_L-4_H-512_A-8")
    assert (config.num_hidden_layers, config.hidden_size, config.num_attention_heads,
            config.intermediate_size) == (4, 512, 8, 2048)


@pytest.mark.parametrize("changes, field", [
    ({"hidden_size": 100, "num_attention_heads": 12}, "not divisible"),
    ({"num_hidden_layers": 0}, "num_hidden_layers"),
    ({"hidden_dropout_prob": 1.5}, "hidden_dropout_prob"),
    ({"hidden_act": "mish"}, "hidden_act"),
    ({"vocab_size": "30522"}, "vocab_size"),
])
def test_impossible_values_are_clear_errors(changes, field):
    with pytest.raises(ConfigError, match=field):
        BertConfig.from_dict({**ORIGINAL_BASE_JSON, **changes})


def test_unknown_keys_and_files_are_clear_errors(tmp_path):
    with pytest.raises(ConfigError, match="unknown key.*num_layers"):
        BertConfig.from_dict({**ORIGINAL_BASE_JSON, "num_layers": 3})
    with pytest.raises(ConfigError, match="unknown preset"):
        BertConfig.from_preset("bert_huge")
    with pytest.raises(ConfigError, match="not found"):
        BertConfig.from_json_file(str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ConfigError, match="bad.json"):
        BertConfig.from_json_file(str(tmp_path / "bad.json"))


def test_causal_attention_is_written_only_when_true(tmp_path):
    assert "causal_attention" not in BertConfig().to_dict()
    causal = BertConfig(causal_attention=True)
    causal.to_json_file(str(tmp_path / "bert_config.json"))
    assert json.loads((tmp_path / "bert_config.json").read_text())["causal_attention"] is True
    assert BertConfig.from_json_file(str(tmp_path / "bert_config.json")) == causal
    with pytest.raises(ConfigError, match="causal_attention"):
        BertConfig.from_dict({**ORIGINAL_BASE_JSON, "causal_attention": "yes"})
