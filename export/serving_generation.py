"""Text generation from a left-to-right language model as a TF Serving SavedModel
(a family's `language_model`, e.g. OpenAI GPT's; `export/export_generation.py`
writes it).

`serving_default` (also `generate`), every input required:

- `prompt` string [batch]: raw text, tokenized in the graph as in training;
- `max_new_tokens` int32 []: tokens to add at most (clipped to [0, context size]);
- `top_k` int32 []: 1 (or less) is greedy, always the most probable token;
  k > 1 samples each token from the k most probable (softmax of their logits);
- `seed` int32 []: sampling is stateless, and each row draws on its own: its
  token at step i is drawn with a key of (seed, the prompt ids the model reads,
  how many earlier rows of the request hold the same ids, i). A prompt with a
  seed gives the same continuation whatever else the request holds and
  wherever it stands in it; copies of one prompt in a request draw apart (the
  first as the prompt alone), another seed draws another continuation.

Outputs: `text` string [batch] (the new tokens' text, as the family's text side
decodes them: GPT's lower-cased words, one space apart), `ids` int32 [batch,
max_new_tokens as clipped] (the new token ids, -1 past each row's end), `num_new_tokens`
int32 [batch] and `prompt_length` int32 [batch] (prompt tokens the model read).

A row stops at `max_new_tokens` or when it fills the model's context
(`max_position_embeddings`): a prompt longer than the context keeps its last
`context - 1` tokens, so one token still follows it. A prompt without any token
(empty, whitespace, characters the tokenizer drops) has nothing to continue:
it gets no new token and the text "". Each new token runs the model over the
whole row (no cache of keys and values): a token costs what its whole prefix
costs.
"""

import numpy as np
import tensorflow as tf

from data.text.graph_segments import flatten_words
from export.serving_module import ServingModule, text_spec

_SCALARS = [tf.TensorSpec([], tf.int32, name=name) for name in ("max_new_tokens", "top_k", "seed")]
WARMUP = {"prompt": np.array(["The old house stood on a hill", ""], dtype=object),
          "max_new_tokens": np.array(4, np.int32), "top_k": np.array(1, np.int32),
          "seed": np.array(0, np.int32)}


def row_keys(ids):
    """Int64 [batch], one key per row of ragged prompt ids [batch, (ids)]: a
    fingerprint of its ids and of how many earlier rows hold the same ids, so
    that a row's draws depend on its own prompt, not on its neighbours'."""
    prompts = tf.strings.reduce_join(tf.strings.as_string(ids), axis=1, separator=" ")
    rows = tf.range(tf.shape(prompts)[0])
    earlier_copies = tf.reduce_sum(tf.cast(tf.equal(prompts[:, None], prompts[None, :])
                                           & (rows[None, :] < rows[:, None]), tf.int32), 1)
    keyed = tf.strings.join([prompts, tf.strings.as_string(earlier_copies)], separator="#")
    return tf.strings.to_hash_bucket_fast(keyed, tf.int64.max)


def next_tokens(logits, top_k, seed, step, keys):
    """Int32 [batch] tokens from float32 logits [batch, vocab]: the argmax where
    `top_k` <= 1, else for each row a stateless draw among its `top_k` largest,
    seeded by (its key in `keys`, seed, step)."""
    def draw():
        values, indices = tf.math.top_k(logits, tf.clip_by_value(top_k, 1, tf.shape(logits)[-1]))
        counter = tf.cast(seed, tf.int64) * 2 ** 32 + tf.cast(step, tf.int64)
        seeds = tf.stack([keys, tf.fill(tf.shape(keys), counter)], axis=1)
        picks = tf.map_fn(lambda row: tf.random.stateless_categorical(row[0][None], 1, seed=row[1],
                                                                      dtype=tf.int32)[0, 0],
                          (values, seeds), fn_output_signature=tf.int32)
        return tf.gather(indices, picks, batch_dims=1)

    return tf.cond(top_k > 1, draw, lambda: tf.argmax(logits, axis=-1, output_type=tf.int32))


class Generator:
    """Prompts -> continuations in the graph; `model` maps the encoder inputs
    (`input_word_ids`, `input_mask`, padding on the right) to
    `next_token_logits` [batch, vocab]; `context_size` is its number of positions."""

    def __init__(self, model, text_side, context_size):
        self.model = model
        self.text_side = text_side
        self.context_size = context_size

    def __call__(self, prompt, max_new_tokens, top_k, seed):
        ids = flatten_words(self.text_side.graph_tokenizer().tokenize(prompt))
        return self.continue_ids(tf.cast(ids, tf.int32), max_new_tokens, top_k, seed)

    def continue_ids(self, ids, max_new_tokens, top_k, seed):
        """The outputs for ragged int32 prompt ids [batch, (ids)]."""
        context = self.context_size
        ids = ids[:, -(context - 1):]
        lengths = tf.cast(ids.row_lengths(), tf.int32)
        batch = tf.shape(lengths)[0]
        wanted = tf.clip_by_value(max_new_tokens, 0, context)
        width = tf.minimum(context, tf.reduce_max(tf.concat([lengths, [0]], 0)) + wanted)
        positions = tf.range(width)[None, :]
        buffer = ids.to_tensor(0, shape=tf.stack([batch, width]))
        active = (lengths > 0) & (wanted > 0)
        keys = row_keys(ids)

        def step(i, buffer, ends, active):
            mask = tf.cast(positions < ends[:, None], tf.int32)
            logits = self.model({"input_word_ids": buffer, "input_mask": mask},
                                training=False)["next_token_logits"]
            token = next_tokens(tf.cast(logits, tf.float32), top_k, seed, i, keys)
            buffer = tf.where(active[:, None] & tf.equal(positions, ends[:, None]), token[:, None],
                              buffer)
            ends += tf.cast(active, tf.int32)
            return i + 1, buffer, ends, active & (ends < context) & (i + 1 < wanted)

        _, buffer, ends, _ = tf.while_loop(lambda i, buffer, ends, active: tf.reduce_any(active),
                                           step, (tf.constant(0), buffer, lengths, active))
        new = tf.ragged.boolean_mask(buffer, (positions >= lengths[:, None]) & (positions < ends[:, None]))
        return {"text": self.text_side.graph_detokenize(new),
                "ids": new.to_tensor(-1, shape=tf.stack([batch, wanted])),
                "num_new_tokens": ends - lengths,
                "prompt_length": lengths}


def save_generation(export_dir, model, text_side, context_size):
    """Writes the generation SavedModel of `model` (see `Generator`) with its
    family's `text_side`."""
    generator = Generator(model, text_side, context_size)

    @tf.function(input_signature=[text_spec("prompt")] + _SCALARS)
    def generate(prompt, max_new_tokens, top_k, seed):
        return generator(prompt, max_new_tokens, top_k, seed)

    module = ServingModule(model, text_side, text_side.graph_tokenizer())
    return module.save(export_dir, {"serving_default": generate, "generate": generate},
                       [("serving_default", WARMUP)])
