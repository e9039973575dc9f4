"""Multiple choice (SWAG) as a TF Serving SavedModel.

`serving_default(context, endings)`: `context` string [batch], `endings`
string [batch, choices] (any number of choices, the same within a request;
for SWAG each ending is the full second sentence, `sent2 + " " + ending`).
Each choice is packed as its family packs a pair (context, ending) in the
graph, e.g. [CLS] context [SEP] ending [SEP], truncated longest-first as in
training. Outputs: `probabilities` float32
[batch, choices] (softmax over the choices) and `label_ids` int32 [batch],
the most probable choice. Empty or token-less text packs to its specials and
still gets a probability.
"""

import numpy as np
import tensorflow as tf

from data.text.text_side import TextPacker
from export.serving_module import ServingModule, text_spec

WARMUP = (("A man is sitting on a roof.", ("He starts pulling up roofing.", "He is ridiculed.",
                                            "He eats a sandwich.", "")),)


def save_multiple_choice(export_dir, model, text_side, max_seq_length):
    """Writes the multiple-choice SavedModel; `model` maps encoder inputs
    [batch, choices, seq] to {"logits": [batch, choices]}; `text_side` is its
    family's `TextSide`."""
    packer = TextPacker(text_side, max_seq_length)

    @tf.function(input_signature=[text_spec("context"),
                                  tf.TensorSpec([None, None], tf.string, name="endings")])
    def serving_default(context, endings):
        shape = tf.shape(endings)
        contexts = tf.repeat(context, shape[1])
        packed = packer.pack(contexts, tf.reshape(endings, [-1]))
        inputs = {k: tf.reshape(v, tf.concat([shape, tf.shape(v)[1:]], 0)) for k, v in packed.items()}
        logits = model(inputs, training=False)["logits"]
        return {"probabilities": tf.nn.softmax(logits, axis=-1),
                "label_ids": tf.argmax(logits, axis=-1, output_type=tf.int32)}

    warmup = [("serving_default", {
        "context": np.array([c for c, _ in WARMUP], dtype=object),
        "endings": np.array([list(e) for _, e in WARMUP], dtype=object)})]
    module = ServingModule(model, text_side, packer.tokenizer)
    return module.save(export_dir, {"serving_default": serving_default}, warmup)


def serve(export_dir, model, meta):
    """The multiple-choice SavedModel of a fine-tuning run's `ExportMeta`."""
    return save_multiple_choice(export_dir, model, meta.text_side(), meta.max_seq_length)
