"""Extracts per-token activations of chosen encoder layers (any family: BERT, XLNet,
OpenAI GPT, ELMo) to JSON lines, as the original `extract_features.py` (same flags, same output
layout, plus each token's character span in the input text; see
tasks/feature_extraction/extraction.py).

    echo 'Who was Jim Henson ? ||| Jim Henson was a puppeteer' > /tmp/input.txt
    python extract_features.py --input_file=/tmp/input.txt --output_file=/tmp/output.jsonl \\
        --vocab_file=uncased_L-12_H-768_A-12/vocab.txt \\
        --bert_config_file=uncased_L-12_H-768_A-12/bert_config.json \\
        --init_checkpoint=uncased_L-12_H-768_A-12/bert_model.ckpt \\
        --layers=-1,-2,-3,-4 --max_seq_length=128 --batch_size=8

`--bert_config_file` and `--vocab_file` may be left out when they lie beside
`--init_checkpoint` (original release and Hugging Face directories). The
config picks the family as for the runners: for an XLNet checkpoint with
`xlnet_config.json` and `spiece.model` beside it,

    python extract_features.py --input_file=/tmp/input.txt --output_file=/tmp/xlnet.jsonl \
        --init_checkpoint=xlnet_cased_L-12_H-768_A-12/xlnet_model.ckpt --layers=-1,-2

writes the SentencePiece pieces of `A <sep> B <sep> <cls>` (`--spiece_model_file`
names another `spiece.model`; `--do_lower_case` left out is false for XLNet).
"""

import json

from absl import app, flags, logging

from checkpoints.pretrained import load_pretrained
from contracts import registry
from modeling.encoder_interface import build_encoder
from tasks.feature_extraction.extraction import (encode_lines, feature_records, layers_model,
                                                 read_input_lines)
from training.flag_groups import (define_model_flags, define_text_flags, do_lower_case_from_flags,
                                  model_files_from_flags)
from training.input_errors import reporting_input_errors
from utils.files import atomic_output

flags.DEFINE_string("input_file", None, "One example per line: `text_a` or `text_a ||| text_b`.")
flags.DEFINE_string("output_file", None, "JSON lines, one per input line.")
flags.DEFINE_list("layers", ["-1", "-2", "-3", "-4"], "Transformer layers to write (-1 is the last).")
define_model_flags()
define_text_flags(128, "Tokens per example; longer ones are truncated.")
flags.DEFINE_integer("batch_size", 32, "Examples per forward pass.")

FLAGS = flags.FLAGS


@reporting_input_errors
def main(_):
    layer_indexes = [int(x) for x in FLAGS.layers]
    vocab_file, config = model_files_from_flags("feature_extraction")
    text_side = registry.text_side_for(registry.family_of(config).name, vocab_file, do_lower_case_from_flags(config))
    encoder = build_encoder(config)
    load_pretrained(encoder, encoder, FLAGS.init_checkpoint)
    model = layers_model(encoder, layer_indexes)
    lines = read_input_lines(FLAGS.input_file)
    encoded = encode_lines(lines, text_side, FLAGS.max_seq_length)
    with atomic_output(FLAGS.output_file) as f:
        for record in feature_records(model, layer_indexes, encoded, FLAGS.batch_size):
            f.write(json.dumps(record) + "\n")
    logging.info("Wrote features of %d lines to %s", len(lines), FLAGS.output_file)


if __name__ == "__main__":
    flags.mark_flags_as_required(["input_file", "output_file", "init_checkpoint"])
    app.run(main)
