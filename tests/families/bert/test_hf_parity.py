"""Real pretrained weights: our encoder vs Hugging Face `transformers.BertModel` (torch, CPU)."""

import os

import numpy as np
import pytest

from families.bert.checkpoints.huggingface import read_hf_config
from checkpoints.loader import load_into
from data.text.segments import encode_texts
from data.text.tokenization import FullTokenizer
from families.bert.encoder import BertEncoder
from tests.conftest import FIXTURES
from tests.references import minilm_dir

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def minilm_inputs():
    with open(os.path.join(FIXTURES, "sentences.txt"), encoding="utf-8") as f:
        sentences = [line.strip() for line in f if line.strip()]
    assert len(sentences) >= 20
    tokenizer = FullTokenizer(os.path.join(minilm_dir(), "vocab.txt"), do_lower_case=True)
    return encode_texts(tokenizer, sentences, max_seq_length=48)


def test_minilm_sequence_output_matches_transformers(minilm_inputs):
    encoder = BertEncoder(read_hf_config(minilm_dir()))
    report = load_into(encoder, minilm_dir(), strict=True)
    assert report.format == "hf" and not report.missing
    ours = encoder(minilm_inputs)

    reference = transformers.BertModel.from_pretrained(minilm_dir(), attn_implementation="eager").eval()
    with torch.no_grad():
        theirs = reference(
            input_ids=torch.from_numpy(minilm_inputs["input_word_ids"]).long(),
            attention_mask=torch.from_numpy(minilm_inputs["input_mask"]).long(),
            token_type_ids=torch.from_numpy(minilm_inputs["input_type_ids"]).long(),
            output_hidden_states=True)
    mask = minilm_inputs["input_mask"].astype(bool)
    sequence_diff = np.abs(np.asarray(ours["sequence_output"]) - theirs.last_hidden_state.numpy())
    assert sequence_diff[mask].max() <= 1e-4
    pooled_diff = np.abs(np.asarray(ours["pooled_output"]) - theirs.pooler_output.numpy())
    assert pooled_diff.max() <= 1e-4
    for ours_layer, their_layer in zip(ours["encoder_outputs"], theirs.hidden_states[1:]):
        assert np.abs(np.asarray(ours_layer) - their_layer.numpy())[mask].max() <= 1e-4
