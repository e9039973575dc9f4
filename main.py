"""The main job on built-in defaults: build a small BERT, tokenize, encode, report.

    python main.py            # what `bash scripts/main.sh` runs

Runs on the CPU with nothing fetched at run time: the vocabulary is the
released uncased one bundled in `assets/`.
"""

import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

from data.packing import encode_texts  # noqa: E402
from data.tokenization import FullTokenizer  # noqa: E402
from modeling import BertConfig, BertEncoder  # noqa: E402

ROOT = os.path.dirname(os.path.abspath(__file__))
VOCAB_FILE = os.path.join(ROOT, "assets", "bert_uncased_vocab.txt")
SENTENCES = [
    "BERT reads text in both directions at once.",
    "The quick brown fox jumps over the lazy dog!",
    "Tokyo (東京) is the capital of Japan.",
]


def main():
    start = time.time()
    tokenizer = FullTokenizer(VOCAB_FILE, do_lower_case=True)
    config = BertConfig.from_preset("bert_uncased_L-2_H-128_A-2")
    encoder = BertEncoder(config)
    inputs = encode_texts(tokenizer, SENTENCES, max_seq_length=24)
    outputs = encoder(inputs)
    for sentence in SENTENCES:
        print(f"{sentence!r} -> {tokenizer.tokenize(sentence)}")
    print(f"encoder: {config.num_hidden_layers} layers, hidden {config.hidden_size}, "
          f"{encoder.count_params():,} parameters")
    for name in ("sequence_output", "pooled_output"):
        value = np.asarray(outputs[name])
        print(f"{name}: shape {value.shape}, first values {np.round(value.reshape(-1)[:4], 4)}")
    print(f"encoder_outputs: {len(outputs['encoder_outputs'])} layers")
    print(f"done in {time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
