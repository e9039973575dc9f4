"""Same real weights through our TF1 and Model Garden converters: our encoder vs
`official.nlp.modeling.networks.BertEncoder` (tf-models-official)."""

import os

import numpy as np
import pytest

from families.bert.checkpoints.export_formats import to_tf1
from families.bert.checkpoints.huggingface import read_hf_config
from checkpoints.loader import load_into
from families.bert.checkpoints.model_garden import model_garden_values
from checkpoints.tf_checkpoint import write_name_based
from data.text.segments import encode_texts
from data.text.tokenization import FullTokenizer
from families.bert.encoder import BertEncoder
from tests.conftest import FIXTURES
from tests.references import minilm_dir

tf = pytest.importorskip("tensorflow")
networks = pytest.importorskip("official.nlp.modeling.networks")
tf_keras = pytest.importorskip("tf_keras")


def _model_garden_encoder(config):
    return networks.BertEncoder(
        vocab_size=config.vocab_size, hidden_size=config.hidden_size,
        num_layers=config.num_hidden_layers, num_attention_heads=config.num_attention_heads,
        max_sequence_length=config.max_position_embeddings,
        type_vocab_size=config.type_vocab_size, inner_dim=config.intermediate_size,
        inner_activation=lambda x: tf_keras.activations.gelu(x, approximate=False),
        output_dropout=0.0, attention_dropout=0.0, dict_outputs=True)


@pytest.fixture(scope="module")
def inputs():
    with open(os.path.join(FIXTURES, "sentences.txt"), encoding="utf-8") as f:
        sentences = [line.strip() for line in f if line.strip()]
    tokenizer = FullTokenizer(os.path.join(minilm_dir(), "vocab.txt"), do_lower_case=True)
    return encode_texts(tokenizer, sentences, max_seq_length=48)


def test_tf1_and_model_garden_converters_agree_with_model_garden(inputs, tmp_path):
    config = read_hf_config(minilm_dir())
    source = BertEncoder(config)
    load_into(source, minilm_dir(), strict=True)

    # ours -> TF1 checkpoint -> ours
    prefix = str(tmp_path / "tf1" / "bert_model.ckpt")
    write_name_based(to_tf1(source), prefix)
    from_tf1 = BertEncoder(config)
    assert load_into(from_tf1, prefix, strict=True).format == "tf1"

    # TF1 names -> Model Garden encoder variables
    reference = _model_garden_encoder(config)
    reference(inputs)
    values = model_garden_values(to_tf1(from_tf1), config.num_attention_heads)
    for variable in reference.variables:
        variable.assign(values[variable.name.split(":")[0]])
    theirs = reference(inputs)
    ours = from_tf1(inputs)
    mask = inputs["input_mask"].astype(bool)
    diff = np.abs(np.asarray(ours["sequence_output"]) - theirs["sequence_output"].numpy())
    assert diff[mask].max() <= 1e-4
    assert np.abs(np.asarray(ours["pooled_output"]) - theirs["pooled_output"].numpy()).max() <= 1e-4

    # a Model Garden object-based checkpoint -> ours
    mg_prefix = tf.train.Checkpoint(encoder=reference).save(str(tmp_path / "mg" / "ckpt"))
    from_mg = BertEncoder(config)
    assert load_into(from_mg, mg_prefix, strict=True).format == "model_garden"
    diff = np.abs(np.asarray(from_mg(inputs)["sequence_output"]) - theirs["sequence_output"].numpy())
    assert diff[mask].max() <= 1e-4
