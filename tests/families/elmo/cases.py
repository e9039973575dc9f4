"""Small ELMo biLMs with random weights in the original layout, and the
sentences the parity tests run through them. Only numpy, keras and our model,
so the JAX subprocess can use it too."""

import json
import os

import numpy as np

from families.elmo import characters
from families.elmo.bilm import BiLM
from families.elmo.checkpoints import lm_weights
from families.elmo.config import CharCNNOptions, ELMoConfig, LSTMOptions
from families.elmo.encoder import ELMoEncoder

VOCAB = ["<S>", "</S>", "<UNK>", "the", "cat", "sat", ".", "on", "mat", ","]
BOS_EOS = (0, 1)  # where <S> and </S> are in VOCAB

CONFIGS = {
    # Two highways, a projection after them, the released clips, skip connections.
    "chars": ELMoConfig.from_preset("elmo_tiny"),
    # tanh, no highway, no CNN projection (filters = projection_dim), no LSTM
    # projection (projection_dim = dim), clips small enough to bite, no skips.
    "chars_plain": ELMoConfig(
        lstm=LSTMOptions(dim=8, projection_dim=8, cell_clip=0.5, proj_clip=0.3, use_skip_connections=False),
        char_cnn=CharCNNOptions(activation="tanh", embedding_dim=3, filters=((1, 2), (3, 6)), n_highway=None)),
    # The token-embedding variant (no char_cnn), three layers per direction.
    "tokens": ELMoConfig(lstm=LSTMOptions(dim=12, projection_dim=6, n_layers=3, cell_clip=1.0, proj_clip=1.0),
                         char_cnn=None, n_tokens_vocab=len(VOCAB)),
}

# Batches run one after another: different sizes and lengths, a sentence of
# one token, words over 50 bytes, non-ASCII, unknown words (token variant: <UNK>).
BATCHES = [
    [["the", "cat", "sat", "on", "the", "mat", "."], ["Ünïcödé", "ok", "😀" * 15], ["x"]],
    [["a" * 70, ",", "the"], ["cat"], ["on", "mat", "sat", ".", "the", "cat"]],
    [["sat", "sat"], ["the", "東京", "mat", ",", "."]],
]


def mix_weights(config):
    """ScalarMix's W and gamma for the comparison with the original's
    `weight_layers`: away from their start (W = 0, gamma = 1)."""
    return {"w": [0.3, -1.2, 0.8, 0.5][:config.lstm.num_layers + 1], "gamma": 1.7}


def random_datasets(config, seed):
    """{dataset name: array} of random weights for `config`, wide enough that
    the gates and clips are exercised (biases nonzero)."""
    rng = np.random.default_rng(seed)
    bilm = BiLM(config, sentence_boundary_ids=BOS_EOS)
    bilm.build()
    return {name: (rng.normal(size=value.shape) * 0.5).astype(np.float32)
            for name, value in lm_weights.datasets_of(bilm).items()}


def build(config, stateful=False):
    return ELMoEncoder(config, stateful=stateful, sentence_boundary_ids=BOS_EOS)


def write_case(directory, name, seed=0):
    """options.json, lm_weights.hdf5 (random), vocab.txt, sentences.json and
    mix.json (`mix_weights`) in `directory`."""
    os.makedirs(directory, exist_ok=True)
    config = CONFIGS[name]
    config.to_json_file(os.path.join(directory, "options.json"))
    lm_weights.write_datasets(random_datasets(config, seed), os.path.join(directory, "lm_weights.hdf5"))
    with open(os.path.join(directory, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(VOCAB) + "\n")
    with open(os.path.join(directory, "sentences.json"), "w", encoding="utf-8") as f:
        json.dump(BATCHES, f)
    with open(os.path.join(directory, "mix.json"), "w", encoding="utf-8") as f:
        json.dump(mix_weights(config), f)


def inputs(config, sentences, seq_len=None):
    """Our encoder's inputs for token lists (no BOS/EOS: the encoder frames them)."""
    ids, mask = characters.batch_char_ids(sentences, seq_len)
    if config.token_embeddings:
        index = {w: i for i, w in enumerate(VOCAB)}
        ids = np.zeros(mask.shape, np.int32)
        for r, sentence in enumerate(sentences):
            ids[r, :len(sentence)] = [index.get(w, VOCAB.index("<UNK>")) + 1 for w in sentence]
        return {"input_word_ids": ids, "input_mask": mask}
    return {"input_char_ids": ids, "input_mask": mask}


def run_ours(encoder, batches, seq_len=None):
    """[the encoder's layers [batch, layers, seq, dim] as numpy] per batch, in order."""
    return [np.stack([np.asarray(h) for h in encoder(inputs(encoder.config, s, seq_len))["encoder_outputs"]], 1)
            for s in batches]


# Two batches of one shape (3 sentences, padded to 7 tokens): one compiled
# program per encoder where a backend compiles (JAX).
SAME_SHAPE = dict(batches=BATCHES[:2], seq_len=7)
