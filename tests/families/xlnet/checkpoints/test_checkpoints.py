"""XLNet checkpoints with random weights, heads included: written in the original
TF1 layout, as a Hugging Face directory and as a Model Garden object checkpoint,
read back losslessly, and read by `transformers` and the Model Garden's XLNetBase
with the outputs of our model."""

import types

import numpy as np
import pytest

from checkpoints.loader import CheckpointMismatchError, detect_format, load_into
from checkpoints.ours import save_weights
from checkpoints.tf_checkpoint import list_names, write_name_based, write_object_based
from families.xlnet.checkpoints import huggingface as xlnet_huggingface
from families.xlnet.checkpoints.model_garden_names import tf1_to_model_garden
from families.xlnet.checkpoints.parts import build_parts, parts_to_hf, parts_to_tf1
from families.xlnet.checkpoints.tf1_names import LOGIT_SCOPE
from tests.families.xlnet.cases import TINY, permutation_inputs
from tests.families.xlnet.checkpoints.random_weights import ALL_HEADS, random_parts
from tests.families.xlnet.tolerance import float32_bound


def assert_same_weights(ours, loaded):
    assert [v.path.split("/", 1)[1] for v in ours.weights] == [v.path.split("/", 1)[1] for v in loaded.weights]
    for a, b in zip(ours.weights, loaded.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=a.path)


def original_names(n_layer, untie_r=True):
    """The variables the original `modeling.py` / `run_squad.py` create, with shapes (tiny config)."""
    bias = (n_layer, 4, 8) if untie_r else (4, 8)
    names = {"model/transformer/word_embedding/lookup_table": (100, 32),
             "model/transformer/mask_emb/mask_emb": (1, 1, 32),
             "model/transformer/r_w_bias": bias, "model/transformer/r_r_bias": bias,
             "model/transformer/r_s_bias": bias, "model/transformer/seg_embed": (n_layer, 2, 4, 8),
             "model/lm_loss/bias": (100,),
             "model/sequnece_summary/summary/kernel": (32, 32), "model/sequnece_summary/summary/bias": (32,),
             "model/classification_finetune/logit/kernel": (32, 3),
             "model/classification_finetune/logit/bias": (3,),
             "model/tagging/logit/kernel": (32, 5), "model/tagging/logit/bias": (5,),
             "start_logits/dense/kernel": (32, 1), "start_logits/dense/bias": (1,),
             "end_logits/dense_0/kernel": (64, 32), "end_logits/dense_0/bias": (32,),
             "end_logits/LayerNorm/gamma": (32,), "end_logits/LayerNorm/beta": (32,),
             "end_logits/dense_1/kernel": (32, 1), "end_logits/dense_1/bias": (1,),
             "answer_class/dense_0/kernel": (64, 32), "answer_class/dense_0/bias": (32,),
             "answer_class/dense_1/kernel": (32, 1)}
    for i in range(n_layer):
        layer = f"model/transformer/layer_{i}"
        names.update({f"{layer}/rel_attn/{p}/kernel": (32, 4, 8) for p in "qkvor"})
        for block in ("rel_attn", "ff"):
            names.update({f"{layer}/{block}/LayerNorm/gamma": (32,), f"{layer}/{block}/LayerNorm/beta": (32,)})
        names.update({f"{layer}/ff/layer_1/kernel": (32, 64), f"{layer}/ff/layer_1/bias": (64,),
                      f"{layer}/ff/layer_2/kernel": (64, 32), f"{layer}/ff/layer_2/bias": (32,)})
    return names


@pytest.mark.parametrize("untie_r", [True, False], ids=["untied", "tied"])
def test_tf1_round_trip_is_lossless_with_the_original_names(tmp_path, untie_r):
    config = TINY.replace(untie_r=untie_r)
    parts = random_parts(config)
    prefix = str(tmp_path / "xlnet_model.ckpt")
    write_name_based(parts_to_tf1(parts), prefix)
    assert list_names(prefix) == original_names(config.n_layer, untie_r)
    assert detect_format(prefix) == "xlnet_tf1"
    loaded = build_parts(config, ALL_HEADS)
    load_into(loaded, prefix, strict=True)
    assert_same_weights(parts, loaded)


@pytest.mark.parametrize("untie_r", [True, False], ids=["untied", "tied"])
def test_hf_round_trip_is_lossless(tmp_path, untie_r):
    config = TINY.replace(untie_r=untie_r)
    parts = random_parts(config)
    xlnet_huggingface.write_dir(parts_to_hf(parts), config, str(tmp_path))
    assert detect_format(str(tmp_path)) == "xlnet_hf"
    assert xlnet_huggingface.read_config(str(tmp_path)) == config.replace(dropatt=0.1)  # HF has no dropatt
    loaded = build_parts(config, ALL_HEADS)
    load_into(loaded, str(tmp_path), strict=True)
    assert_same_weights(parts, loaded)


@pytest.mark.parametrize("scope", ["model/regression_sts-b/logit", "logits/dense"], ids=["regression", "race"])
def test_a_logit_layer_of_any_task_scope_is_read(tmp_path, scope):
    parts = random_parts()
    tensors = parts_to_tf1(parts)
    for leaf in ("kernel", "bias"):
        tensors[f"{scope}/{leaf}"] = tensors.pop(f"{LOGIT_SCOPE}/{leaf}")
    write_name_based(tensors, str(tmp_path / "ckpt"))
    loaded = build_parts(TINY, ALL_HEADS)
    load_into(loaded, str(tmp_path / "ckpt"), strict=True)
    assert_same_weights(parts, loaded)
    tensors["model/classification_mnli/logit/bias"] = tensors[f"{scope}/bias"]
    write_name_based(tensors, str(tmp_path / "two"))
    with pytest.raises(ValueError, match="more than one logit layer"):
        load_into(loaded, str(tmp_path / "two"))


def test_our_weights_load_into_layers_named_otherwise(tmp_path):
    """Our XLNet weights are matched by TF1 name: Keras numbers the layers of a
    second model (`xl_net_backbone_1/...`), and a task model need not carry the config."""
    parts = random_parts()
    save_weights(parts, str(tmp_path), None)
    assert (tmp_path / "xlnet_config.json").exists() and detect_format(str(tmp_path)) == "ours"
    loaded = build_parts(TINY, ALL_HEADS)
    assert loaded.backbone.name != parts.backbone.name
    load_into(types.SimpleNamespace(weights=loaded.weights), str(tmp_path), strict=True)
    assert_same_weights(parts, loaded)


def test_mismatches_name_the_variable_and_both_shapes(tmp_path):
    write_name_based(parts_to_tf1(random_parts()), str(tmp_path / "ckpt"))
    loaded = build_parts(TINY.replace(d_inner=48), ALL_HEADS)
    with pytest.raises(CheckpointMismatchError, match=r"layer_1/ff/layer_2/kernel: checkpoint has shape "
                                                      r"\[64, 32\], model expects \[48, 32\]"):
        load_into(loaded, str(tmp_path / "ckpt"))


def our_query_logits(parts, inputs):
    return np.asarray(parts.heads[0](parts.backbone(inputs)["query_output"]))


def test_transformers_reads_our_hf_directory(tmp_path):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = TINY.replace(dropout=0.0, dropatt=0.0)
    parts = random_parts(config, heads={"model/lm_loss/bias": None})
    xlnet_huggingface.write_dir(parts_to_hf(parts), config, str(tmp_path))
    model = transformers.XLNetLMHeadModel.from_pretrained(str(tmp_path)).eval()
    inputs, _ = permutation_inputs(np.random.default_rng(5))
    with torch.no_grad():
        theirs = model(input_ids=torch.from_numpy(inputs["input_ids"]).long(),
                       token_type_ids=torch.from_numpy(inputs["segment_ids"]).long(),
                       **{k: torch.from_numpy(inputs[k]) for k in ("input_mask", "perm_mask", "target_mapping")}
                       ).logits.numpy()
    ours = our_query_logits(parts, inputs)
    # The LM head adds one d_model-term product to the backbone's bound: within the same K.
    assert np.abs(ours - theirs).max() <= float32_bound(config, 10, theirs)


def test_model_garden_restores_our_object_checkpoint(tmp_path):
    tf = pytest.importorskip("tensorflow")
    pytest.importorskip("official.nlp.modeling.networks")
    from tests.families.xlnet.model_garden_reference import model_garden_network, run_model_garden
    config = TINY.replace(dropout=0.0, dropatt=0.0)
    parts = random_parts(config, heads={})
    keys, left_out = tf1_to_model_garden(parts_to_tf1(parts))
    assert left_out == []
    write_object_based(keys, str(tmp_path / "ckpt"))
    assert detect_format(str(tmp_path / "ckpt")) == "xlnet_model_garden"
    network = model_garden_network(config, two_stream=True, seed=7)  # other weights, to be overwritten
    tf.train.Checkpoint(encoder=network).read(str(tmp_path / "ckpt")).assert_consumed()
    inputs, _ = permutation_inputs(np.random.default_rng(6))
    theirs, _ = run_model_garden(network, inputs, two_stream=True)
    ours = np.asarray(parts.backbone(inputs)["query_output"])
    assert np.abs(ours - theirs).max() <= float32_bound(config, 10, theirs)


def test_tagging_task_model_keeps_its_head_as_the_tagging_logit(tmp_path):
    """Our XLNet weights are read by original name: the tagging task model's
    head (`token_classifier`) must have one, or a fine-tuned tagger exports untrained."""
    from families.xlnet.checkpoints.tf1_names import TAGGING_SCOPE, xlnet_tf1_name
    from tasks.tagging.model import TokenClassifier
    from families.xlnet.encoder import XLNetEncoder
    model = TokenClassifier(XLNetEncoder(TINY), 5)
    head = model.get_layer("token_classifier")
    assert sorted(xlnet_tf1_name(v.path)[0] for v in head.weights) == [
        f"{TAGGING_SCOPE}/bias", f"{TAGGING_SCOPE}/kernel"]
    save_weights(model, str(tmp_path))
    loaded = TokenClassifier(XLNetEncoder(TINY), 5)
    load_into(loaded, str(tmp_path), strict=True)
    assert_same_weights(model, loaded)
