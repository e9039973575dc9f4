"""XLNetConfig: the original's field names, published sizes, errors that name the field."""

import json

import pytest

from families.xlnet.config import XLNET_PRESETS, XLNetConfig, XLNetConfigError
from families.xlnet.backbone import XLNetBackbone


def test_presets_have_the_published_sizes():
    base, large = XLNET_PRESETS["xlnet_base_cased"], XLNET_PRESETS["xlnet_large_cased"]
    assert (base.n_layer, base.d_model, base.n_head, base.d_head, base.d_inner, base.n_token) == (
        12, 768, 12, 64, 3072, 32000)
    assert (large.n_layer, large.d_model, large.n_head, large.d_head, large.d_inner, large.n_token) == (
        24, 1024, 16, 64, 4096, 32000)
    assert base.untie_r and large.untie_r


def test_reads_the_original_xlnet_config_json(tmp_path):
    # The released xlnet_cased_L-12_H-768_A-12/xlnet_config.json, field for field.
    path = tmp_path / "xlnet_config.json"
    path.write_text(json.dumps({"d_head": 64, "d_inner": 3072, "d_model": 768, "ff_activation": "gelu",
                                "n_head": 12, "n_layer": 12, "n_token": 32000, "untie_r": True}))
    assert XLNetConfig.from_json_file(str(path)) == XLNET_PRESETS["xlnet_base_cased"]


def test_round_trips_through_json(tmp_path):
    config = XLNET_PRESETS["xlnet_tiny"].replace(mem_len=8, bi_data=True, attn_type="uni")
    config.to_json_file(str(tmp_path / "c.json"))
    assert XLNetConfig.from_json_file(str(tmp_path / "c.json")) == config


@pytest.mark.parametrize("field, value", [
    ("n_layer", 0), ("d_model", 7.5), ("n_head", True), ("mem_len", -1), ("reuse_len", "3"),
    ("clamp_len", 1.5), ("untie_r", 1), ("bi_data", "yes"), ("dropout", 1.0), ("dropatt", -0.1),
    ("initializer_range", 0), ("ff_activation", "swish"), ("attn_type", "both"),
])
def test_bad_values_name_the_field(field, value):
    with pytest.raises(XLNetConfigError, match=field):
        XLNetConfig(**{field: value})


def test_file_errors_name_the_file_and_field(tmp_path):
    path = tmp_path / "xlnet_config.json"
    path.write_text(json.dumps({"n_layer": 2, "d_modle": 32}))
    with pytest.raises(XLNetConfigError, match=r"xlnet_config\.json: unknown key\(s\) \['d_modle'\]"):
        XLNetConfig.from_json_file(str(path))
    path.write_text(json.dumps({"n_layer": -2}))
    with pytest.raises(XLNetConfigError, match=r"xlnet_config\.json: n_layer must be"):
        XLNetConfig.from_json_file(str(path))
    with pytest.raises(XLNetConfigError, match="xlnet_tiny"):
        XLNetConfig.from_preset("xlnet_small")


def test_backbone_rebuilds_from_its_config():
    backbone = XLNetBackbone(XLNET_PRESETS["xlnet_tiny"].replace(untie_r=False))
    rebuilt = XLNetBackbone.from_config(backbone.get_config())
    assert rebuilt.config == backbone.config
    backbone.build()
    assert tuple(backbone.r_w_bias.shape) == (4, 8)  # tied: one for all layers
    assert tuple(backbone.seg_embed.shape) == (2, 2, 4, 8)
