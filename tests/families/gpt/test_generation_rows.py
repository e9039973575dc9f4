"""A row of a generation batch draws on its own (`export.serving_generation`):
the same prompt and seed give the same continuation alone, in any row of a
batch and beside any other prompts; copies of one prompt in a batch draw apart,
the first as the prompt alone does; the seed still changes the draws."""

import keras
import numpy as np
import pytest
import tensorflow as tf

from export.serving_generation import Generator
from families.gpt.next_token import GPTNextToken
from tests.families.gpt import kit

NEW_TOKENS = 6
TOP_K = 5


@pytest.fixture(scope="module")
def config():
    return kit.tiny_config().replace(n_special=0, initializer_range=0.2)


@pytest.fixture(scope="module")
def generate(config):
    keras.utils.set_random_seed(43)
    generator = Generator(GPTNextToken(config), kit.text_side(), config.n_ctx)
    graph = tf.function(generator.continue_ids, input_signature=[
        tf.RaggedTensorSpec([None, None], tf.int32)] + [tf.TensorSpec([], tf.int32)] * 3)

    def run(prompts, seed, top_k=TOP_K):
        return graph(tf.ragged.constant(prompts, tf.int32), NEW_TOKENS, top_k, seed)["ids"].numpy().tolist()
    return run


@pytest.fixture(scope="module")
def prompts(config):
    rng = np.random.default_rng(8)
    return [rng.integers(1, config.n_vocab, n).tolist() for n in (3, 9, 1, 20)]


def test_a_prompts_draws_do_not_depend_on_its_row_or_its_neighbours(generate, prompts):
    alone = [generate([prompt], seed=11)[0] for prompt in prompts]
    assert generate(prompts, seed=11) == alone
    assert generate(prompts[::-1], seed=11) == alone[::-1]
    assert generate([prompts[2], prompts[0]], seed=11) == [alone[2], alone[0]]
    assert generate(prompts, seed=12) != alone


def test_copies_of_a_prompt_draw_apart_the_first_as_alone(generate, prompts):
    alone = generate([prompts[1]], seed=11)[0]
    copies = generate([prompts[1], prompts[0], prompts[1], prompts[1]], seed=11)
    assert copies[0] == alone and copies[1] == generate([prompts[0]], seed=11)[0]
    assert len({tuple(row) for row in (copies[0], copies[2], copies[3])}) == 3
    assert generate([prompts[0], prompts[1], prompts[1]], seed=11)[1:] == [copies[0], copies[2]]


def test_greedy_rows_are_the_argmax_whatever_the_seed(generate, prompts):
    assert generate(prompts, seed=1, top_k=1) == generate(prompts, seed=2, top_k=1) == \
        [generate([prompt], seed=3, top_k=1)[0] for prompt in prompts]
