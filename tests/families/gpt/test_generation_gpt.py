"""GPT's generation SavedModel graph (`export.serving_generation.Generator` over
`GPTNextToken`) against Hugging Face on the same random weights, written
through our Hugging Face writer: greedy continuations equal
`OpenAIGPTLMHeadModel.generate(do_sample=False)` token for token and their
text `OpenAIGPTTokenizer.decode`'s; rows stop at the context size; top-k
draws stay among the k best and follow the seed. The SavedModel itself,
served in a fresh process to raw and hostile prompts, is the every-family
suite's (tests/families/test_every_family.py)."""

import json

import keras
import numpy as np
import pytest
import tensorflow as tf

from checkpoints.ours import save_weights
from export.serving_generation import Generator
from families.gpt.checkpoints.convert import convert
from families.gpt.next_token import GPTNextToken
from tests.families.gpt import kit
from tests.families.gpt.model_tolerance import assert_close

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

NEW_TOKENS = 6
LENGTHS = (1, 5, 17, 40)  # prompts of several lengths in one batch (right padding)


@pytest.fixture(scope="module")
def config():
    return kit.tiny_config().replace(n_special=0, initializer_range=0.2)


@pytest.fixture(scope="module")
def model(config):
    keras.utils.set_random_seed(41)
    return GPTNextToken(config)


@pytest.fixture(scope="module")
def hf(model, config, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gpt_generation")
    save_weights(model.encoder, str(tmp / "ours"))
    convert(str(tmp / "ours"), str(tmp / "hf"), "hf", config)
    hf, info = transformers.OpenAIGPTLMHeadModel.from_pretrained(str(tmp / "hf"),
                                                                 output_loading_info=True)
    assert not any(info.values()), info
    return hf.eval()


@pytest.fixture(scope="module")
def prompts(config):
    rng = np.random.default_rng(7)
    return [rng.integers(1, config.n_vocab, n).tolist() for n in LENGTHS]


@pytest.fixture(scope="module")
def generate(model, config):
    generator = Generator(model, kit.text_side(), config.n_ctx)
    graph = tf.function(generator.continue_ids, input_signature=[
        tf.RaggedTensorSpec([None, None], tf.int32)] + [tf.TensorSpec([], tf.int32)] * 3)

    def run(prompts, max_new_tokens, top_k=1, seed=0):
        outputs = graph(tf.ragged.constant(prompts, tf.int32), max_new_tokens, top_k, seed)
        return {k: v.numpy() for k, v in outputs.items()}
    return run


def hf_decoder():
    with open(kit.ENCODER_FILE, encoding="utf-8") as f:
        vocab = json.load(f)
    with open(kit.ENCODER_FILE.replace("encoder_bpe_", "vocab_").replace(".json", ".bpe"),
              encoding="utf-8") as f:
        merges = [tuple(line.split()) for line in f.read().split("\n")[1:] if line]
    return transformers.OpenAIGPTTokenizer(vocab=vocab, merges=merges)


def test_next_token_logits_are_hugging_face_s_at_the_last_real_token(model, config, hf, prompts):
    width = max(LENGTHS)
    ids = np.array([p + [0] * (width - len(p)) for p in prompts], np.int32)
    mask = (np.arange(width)[None] < np.array(LENGTHS)[:, None]).astype(np.int32)
    ours = model({"input_word_ids": ids, "input_mask": mask})["next_token_logits"].numpy()
    with torch.no_grad():
        logits = hf(input_ids=torch.from_numpy(ids).long(),
                    attention_mask=torch.from_numpy(mask).long()).logits.numpy()
    theirs = logits[np.arange(len(LENGTHS)), np.array(LENGTHS) - 1]
    assert_close(config, width, ours, theirs, "next_token_logits")


def test_greedy_continuations_equal_transformers_generate(generate, hf, prompts):
    got = generate(prompts, NEW_TOKENS)
    decoder = hf_decoder()
    np.testing.assert_array_equal(got["num_new_tokens"], NEW_TOKENS)
    np.testing.assert_array_equal(got["prompt_length"], LENGTHS)
    for i, prompt in enumerate(prompts):
        ids = torch.tensor([prompt])
        with torch.no_grad():
            out = hf.generate(ids, attention_mask=torch.ones_like(ids), do_sample=False,
                              max_new_tokens=NEW_TOKENS, pad_token_id=0,
                              output_scores=True, return_dict_in_generate=True)
        expected = out.sequences[0, len(prompt):].tolist()
        # Each step's winner leads the runner-up by far more than the two
        # implementations' float32 difference (<= 1e-5 above).
        top2 = [torch.topk(scores[0], 2).values for scores in out.scores]
        assert min(float(v[0] - v[1]) for v in top2) > 1e-3
        assert got["ids"][i].tolist() == expected
        assert got["text"][i].decode("utf-8") == decoder.decode(expected)


def test_rows_stop_at_the_context_size(generate, config):
    context = config.n_ctx
    got = generate([[5] * (context - 3), [6] * (context + 20), [], [7, 8]], 10)
    assert got["prompt_length"].tolist() == [context - 3, context - 1, 0, 2]
    assert got["num_new_tokens"].tolist() == [3, 1, 0, 10]
    assert (got["ids"][0, 3:] == -1).all() and (got["ids"][2] == -1).all()
    assert got["text"][2] == b""
    none = generate([[5, 6]], 0)
    assert none["ids"].shape == (1, 0) and none["num_new_tokens"].tolist() == [0]


def test_top_k_draws_follow_the_seed_and_stay_among_the_k_best(generate, model, prompts):
    first, again, other = (generate(prompts, NEW_TOKENS, top_k=3, seed=s) for s in (11, 11, 12))
    np.testing.assert_array_equal(first["ids"], again["ids"])
    assert (first["ids"] != other["ids"]).any()
    for prompt, continuation in zip(prompts, first["ids"].tolist()):
        row = list(prompt)
        for token in continuation:
            logits = model({"input_word_ids": np.array([row], np.int32),
                            "input_mask": np.ones((1, len(row)), np.int32)})["next_token_logits"]
            assert token in np.argsort(-logits.numpy()[0])[:3].tolist()
            row.append(token)
