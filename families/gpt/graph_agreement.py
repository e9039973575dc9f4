"""Measures how often GPT's in-graph tokenizer gives exactly the ids of the
original pipeline in Python, on real sentences of the shared data, and lists
the words where they part.

  python -m families.gpt.graph_agreement --data_dir=../shared/data \\
    --encoder_file=../shared/data/gpt/encoder_bpe_40000.json --per_source=400
"""

import collections

import tensorflow as tf
from absl import app, flags

from families.gpt.graph_tokenizer import GraphGPTTokenizer
from families.gpt.text_samples import sample
from families.gpt.tokenizer import GPTTokenizer

BATCH = 256


def agreement(python, graph, texts):
    """(share of texts with identical ids, [(text, python words, graph words)] of the others)."""
    differ = []
    for start in range(0, len(texts), BATCH):
        batch = texts[start:start + BATCH]
        got = graph.tokenize(tf.constant(batch)).to_list()
        for text, ids in zip(batch, got):
            if python.encode(text) != ids:
                words = graph.tokenize_words(tf.constant([text]))[0].to_list()[0]
                differ.append((text, [w for w, _ in python.tokenize_words(text)],
                               [w.decode("utf-8") for w in words]))
    return 1 - len(differ) / max(len(texts), 1), differ


def first_difference(python_words, graph_words):
    """The first differing stretch of two word lists, a few words each."""
    python_words = ["\n" if w == "\n " else w for w in python_words]
    i = next((i for i, (a, b) in enumerate(zip(python_words, graph_words)) if a != b),
             min(len(python_words), len(graph_words)))
    return tuple(python_words[i:i + 3]), tuple(graph_words[i:i + 3])


def main(_):
    f = flags.FLAGS
    python = GPTTokenizer.from_file(f.encoder_file)
    graph = GraphGPTTokenizer(python.bpe)
    texts = sample(f.data_dir, f.split, f.per_source, f.seed)
    share, differ = agreement(python, graph, texts)
    print(f"{len(texts)} texts, {len(texts) - len(differ)} identical ({100 * share:.2f}%)")
    kinds = collections.Counter(first_difference(p, g) for _, p, g in differ)
    for (python_words, graph_words), count in kinds.most_common(f.show):
        print(f"{count:4d}  python {python_words!r}  graph {graph_words!r}")


if __name__ == "__main__":
    flags.DEFINE_string("data_dir", "../shared/data", "The shared data directory.")
    flags.DEFINE_string("encoder_file", None, "encoder_bpe_<n>.json (vocab_<n>.bpe beside it).")
    flags.DEFINE_string("split", "train", "Which split of each source: train or dev.")
    flags.DEFINE_integer("per_source", 400, "Texts drawn from each source.")
    flags.DEFINE_integer("seed", 0, "Seed of the draw.")
    flags.DEFINE_integer("show", 30, "Kinds of difference listed.")
    flags.mark_flag_as_required("encoder_file")
    app.run(main)
