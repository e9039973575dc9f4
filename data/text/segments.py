"""Packing token ids into BERT inputs: [CLS] A [SEP] (B [SEP]), padded."""

import numpy as np


def truncate_pair(tokens_a, tokens_b, max_total):
    """The original's rule: drop from the end of the longer sequence, one token at a time."""
    tokens_a, tokens_b = list(tokens_a), list(tokens_b)
    while len(tokens_a) + len(tokens_b) > max_total:
        longer = tokens_a if len(tokens_a) > len(tokens_b) else tokens_b
        longer.pop()
    return tokens_a, tokens_b


def pack_ids(ids_a, ids_b, max_seq_length, cls_id, sep_id, pad_id=0):
    """(input_word_ids, input_mask, input_type_ids) as int32 arrays of `max_seq_length`."""
    specials = 3 if ids_b is not None else 2
    if max_seq_length < specials:
        raise ValueError(f"max_seq_length {max_seq_length} leaves no room for [CLS]/[SEP]")
    ids_a, ids_b = truncate_pair(ids_a, ids_b or [], max_seq_length - specials)
    word_ids = [cls_id] + ids_a + [sep_id]
    type_ids = [0] * len(word_ids)
    if specials == 3:
        word_ids += ids_b + [sep_id]
        type_ids += [1] * (len(ids_b) + 1)
    padding = max_seq_length - len(word_ids)
    return (np.array(word_ids + [pad_id] * padding, np.int32),
            np.array([1] * len(word_ids) + [0] * padding, np.int32),
            np.array(type_ids + [0] * padding, np.int32))


def named_inputs(word_ids, mask, type_ids):
    """A packed row as the dict of encoder inputs a `TextSide.pack` returns."""
    return {"input_word_ids": word_ids, "input_mask": mask, "input_type_ids": type_ids}


def stack_inputs(rows):
    """Encoder inputs (numpy dict of [batch, seq, ...] int32) from packed rows:
    dicts as `TextSide.pack` returns, or (input_word_ids, input_mask,
    input_type_ids) tuples as `pack_ids` does."""
    rows = [row if isinstance(row, dict) else named_inputs(*row) for row in rows]
    return {name: np.stack([row[name] for row in rows]) for name in rows[0]}


def encode_texts(tokenizer, texts_a, texts_b=None, max_seq_length=128):
    """Batch of encoder inputs (numpy dict) from raw texts with our Python tokenizer."""
    vocab = tokenizer.vocab
    rows = []
    for i, text_a in enumerate(texts_a):
        ids_b = tokenizer.encode(texts_b[i]) if texts_b is not None else None
        rows.append(pack_ids(tokenizer.encode(text_a), ids_b, max_seq_length,
                             vocab.cls_id, vocab.sep_id, vocab.pad_id))
    return stack_inputs(rows)
