"""Named-entity recognition as a TF Serving SavedModel: text in, entities out.

`serving_default(text)`: `text` string [batch]. In the graph, the family's
text side splits each text into words and each word into pieces
(`tokenize_with_offsets` of its graph tokenizer): BERT's words are the
original basic tokenizer's (whitespace, then punctuation and CJK characters
apart, as CoNLL words are), XLNet's the runs of non-whitespace (so send text
spaced as the training words were, "EU rejects German call ."); a word that
gives no pieces (only characters the tokenizer drops) is no word. Words are
packed into windows exactly as in training (`tasks.tagging.features`: windows
of whole words about `doc_stride` pieces apart, packed by the text side's
`pack_graph`, each word read at its first piece, where the family's layout
puts it, in the window that gives it the most context); the label of a word
is the argmax at its first piece (for a model with a CRF, whose outputs hold
`crf_transitions`, the Viterbi tags of each window's words in order, the chain
training ran over), and words are merged into entities by
conlleval's chunk rules (`B-X` opens, `I-X` continues a chunk of type X, and
opens one after `O` or another type).

Outputs, padded to the most entities in the batch:
`entity_types` string [batch, entities] (e.g. "PER"; "" pads),
`entity_texts` string [batch, entities] (the entity's text in the input),
`entity_starts`, `entity_ends` int32 [batch, entities] (character offsets
[start, end) in the input as decoded from UTF-8, malformed bytes dropped;
-1 pads) and `num_entities` int32 [batch]. Text without words (empty,
whitespace or control characters only) has no entities. Documents are not
used as context: each text is a sentence of its own.

A tagger of a plain tag set (`tag_scheme="tags"`: part of speech) serves
each word's tag instead, padded to the most words in the batch: `word_tags`
string [batch, words] ("" pads), `word_texts`, `word_starts` and `word_ends`
(as the entities', -1 pads) and `num_words` int32 [batch].
"""

import numpy as np
import tensorflow as tf

from data.text.graph_offsets import char_offsets
from export.serving_module import ServingModule, text_spec
from modeling.crf import TRANSITIONS_OUTPUT, viterbi_tags

_OUTSIDE, _BEGIN, _INSIDE = 0, 1, 2
# Pieces between window starts of an export_meta.json that records no `doc_stride`
# (written before it did): `run_ner.py`'s default.
DOC_STRIDE = 64
ENTITY_OUTPUTS = ("entity_types", "entity_texts", "entity_starts", "entity_ends", "num_entities")
WORD_OUTPUTS = ("word_tags", "word_texts", "word_starts", "word_ends", "num_words")
WARMUP_TEXTS = ("EU rejects German call to boycott British lamb.", "")


def label_scheme(label_list):
    """(prefix code per label, type index per label (-1 for O), type names)."""
    prefixes, types, names = [], [], []
    for label in label_list:
        if label == "O":
            prefixes.append(_OUTSIDE)
            types.append(-1)
            continue
        prefix, _, name = label.partition("-")
        if prefix not in ("B", "I") or not name:
            raise ValueError(f"label {label!r} is not O, B-<type> or I-<type>")
        if name not in names:
            names.append(name)
        prefixes.append(_BEGIN if prefix == "B" else _INSIDE)
        types.append(names.index(name))
    return prefixes, types, names


def piece_offsets(counts):
    """Dense int64 [batch, max words + 1]: row r, column w = pieces before word w
    (column n_r = the row's total); larger than any offset past that."""
    offsets = tf.concat([tf.zeros([counts.nrows(), 1], tf.int64),
                         tf.cumsum(counts.to_tensor(), axis=1)], axis=1)
    inside = tf.sequence_mask(counts.row_lengths() + 1, tf.shape(offsets)[1])
    return tf.where(inside, offsets, tf.int64.max)


def plan_windows(offsets, num_words, max_pieces, doc_stride):
    """`tasks.tagging.features.plan_windows` for every row at once (each word has
    1..max_pieces pieces). Returns (row, first_word, end_word) int64 [windows],
    row-major; a row without words has no window."""
    def step(starts, done, spans):
        base = tf.gather(offsets, starts, batch_dims=1)
        ends = tf.searchsorted(offsets, base[:, None] + max_pieces, side="right",
                               out_type=tf.int64)[:, 0] - 1
        ends = tf.minimum(ends, num_words)
        spans = spans.write(spans.size(), tf.stack([starts, ends, tf.cast(~done, tf.int64)], 1))
        nexts = tf.searchsorted(offsets, base[:, None] + doc_stride, side="left",
                                out_type=tf.int64)[:, 0]
        return tf.where(done, starts, tf.minimum(nexts, ends)), done | (ends >= num_words), spans

    starts = tf.zeros_like(num_words)
    # A first step with no live window keeps the stack below defined for a batch without words.
    spans = tf.TensorArray(tf.int64, size=1, dynamic_size=True).write(
        0, tf.zeros([tf.size(num_words), 3], tf.int64))
    _, _, spans = tf.while_loop(lambda starts, done, spans: ~tf.reduce_all(done), step,
                                (starts, num_words <= 0, spans))
    spans = tf.transpose(spans.stack(), [1, 0, 2])  # [batch, steps, (first, end, live)]
    live = tf.cast(spans[:, :, 2], tf.bool)
    rows = tf.broadcast_to(tf.range(tf.size(num_words, tf.int64))[:, None], tf.shape(live))
    return (tf.boolean_mask(rows, live), tf.boolean_mask(spans[:, :, 0], live),
            tf.boolean_mask(spans[:, :, 1], live))


def owning_windows(offsets, row_starts, num_words, windows):
    """`tasks.tagging.features.owning_windows` for all words of the batch: for each
    word, among the windows holding it, the earliest that leaves it the most
    context on its shorter side. `row_starts` [batch] is the flat index of each
    row's first word. int64 [num_words]."""
    window_rows, firsts, ends = windows
    spans = tf.ragged.range(firsts, ends)
    window, word = spans.value_rowids(), spans.flat_values
    row = tf.gather(window_rows, window)

    def offset(column):
        return tf.gather_nd(offsets, tf.stack([row, column], 1))

    here = offset(word)
    score = tf.minimum(here - offset(tf.gather(firsts, window)),
                       offset(tf.gather(ends, window)) - here - 1)
    flat_word = tf.gather(row_starts, row) + word
    best = tf.math.unsorted_segment_max(score, flat_word, num_words)
    chosen = tf.where(tf.equal(score, tf.gather(best, flat_word)), window, tf.int64.max)
    return tf.math.unsorted_segment_min(chosen, flat_word, num_words)


def chunk_starts(prefixes, types, word_index):
    """Which words open a chunk (conlleval): not O, and B, or first of their text,
    or of another type than the word before."""
    previous_type = tf.concat([[-1], types[:-1]], 0)
    return (tf.not_equal(prefixes, _OUTSIDE)
            & (tf.equal(prefixes, _BEGIN) | tf.equal(word_index, 0)
               | tf.not_equal(previous_type, types)))


def word_labels(outputs, at):
    """The label id of each word, read at `at` int64 [words, 2] (its window, its
    first piece's position there) in the model's outputs: the argmax of its
    logits, or with a CRF the Viterbi tags of each window's chain over the
    positions `at` names (as training's label weights)."""
    logits = outputs["logits"]
    if TRANSITIONS_OUTPUT not in outputs:
        return tf.argmax(tf.gather_nd(logits, at), axis=-1, output_type=tf.int32)
    chain = tf.scatter_nd(at, tf.ones(tf.shape(at)[:1], tf.int32),
                          tf.shape(logits, out_type=tf.int64)[:2])
    return tf.gather_nd(viterbi_tags(logits, outputs[TRANSITIONS_OUTPUT], chain > 0), at)


def save_tagging(export_dir, model, text_side, max_seq_length, label_list, doc_stride,
                 tag_scheme="chunks"):
    """Writes the NER SavedModel; `model` maps encoder inputs to {"logits":
    [batch, seq, labels]} (and `crf_transitions` with a CRF); `text_side` is the encoder family's (words, pieces,
    offsets and packing); `label_list` gives the labels in logit order: IOB
    chunk tags, served as entities, or with `tag_scheme="tags"` a plain tag
    set, served as each word's tag."""
    tokenizer = text_side.graph_tokenizer()
    plain_tags = tag_scheme == "tags"
    prefixes, types, names = ([], [], []) if plain_tags else label_scheme(label_list)
    prefix_table, type_table = tf.constant(prefixes, tf.int32), tf.constant(types, tf.int32)
    type_names = tf.constant(names, tf.string, shape=[len(names)])
    tag_names = tf.constant([str(label) for label in label_list], tf.string)
    max_pieces = max_seq_length - text_side.num_specials(None)

    @tf.function(input_signature=[text_spec("text")])
    def serving_default(text):
        ids, begins, ends = _words_with_pieces(*tokenizer.tokenize_with_offsets(text))
        pieces = ids.values[:, :max_pieces]  # [words, (pieces)], words of all rows
        word_rows, word_index = ids.value_rowids(), _index_in_row(ids)
        counts = tf.RaggedTensor.from_row_splits(pieces.row_lengths(), ids.row_splits)
        offsets = piece_offsets(counts)
        windows = plan_windows(offsets, counts.row_lengths(), max_pieces, doc_stride)
        window_rows, firsts, window_ends = windows
        word_base = tf.gather(ids.row_splits, window_rows)
        window_words = tf.ragged.range(word_base + firsts, word_base + window_ends)
        window_pieces = tf.gather(pieces, window_words).merge_dims(1, 2)
        outputs = model(text_side.pack_graph([window_pieces], max_seq_length), training=False)

        owners = owning_windows(offsets, ids.row_splits[:-1], tf.size(word_rows), windows)

        def offset(words):
            return tf.gather_nd(offsets, tf.stack([word_rows, words], 1))

        owner_start = offset(tf.gather(firsts, owners))
        window_length = offset(tf.gather(window_ends, owners)) - owner_start
        position = (text_side.segment_a_start(window_length, max_seq_length)
                    + offset(word_index) - owner_start)
        labels = word_labels(outputs, tf.stack([owners, position], 1))
        if plain_tags:
            return _word_tags(text, word_rows, tf.gather(tag_names, labels), begins, ends)
        prefixes, types = tf.gather(prefix_table, labels), tf.gather(type_table, labels)
        opens = chunk_starts(prefixes, types, word_index)
        inside = tf.not_equal(prefixes, _OUTSIDE)
        chunk = tf.boolean_mask(tf.cumsum(tf.cast(opens, tf.int64)) - 1, inside)
        num_chunks = tf.reduce_sum(tf.cast(opens, tf.int64))
        first_bytes = tf.boolean_mask(tf.gather(begins.flat_values, begins.values.row_starts()), opens)
        last_bytes = tf.math.unsorted_segment_max(
            tf.boolean_mask(tf.gather(ends.flat_values, ends.values.row_limits() - 1), inside),
            chunk, num_chunks)
        rows = tf.boolean_mask(word_rows, opens)
        return dict(zip(ENTITY_OUTPUTS, _spans(
            text, rows, tf.gather(type_names, tf.boolean_mask(types, opens)), first_bytes, last_bytes)))

    warmup = [("serving_default", {"text": np.array(WARMUP_TEXTS, dtype=object)})]
    module = ServingModule(model, text_side, tokenizer)
    return module.save(export_dir, {"serving_default": serving_default}, warmup)


def _word_tags(text, word_rows, tags, begins, ends):
    """Each word's tag, text and character offsets (a plain tag set's outputs)."""
    first_bytes = tf.gather(begins.flat_values, begins.values.row_starts())
    last_bytes = tf.gather(ends.flat_values, ends.values.row_limits() - 1)
    return dict(zip(WORD_OUTPUTS, _spans(text, word_rows, tags, first_bytes, last_bytes)))


def _spans(text, rows, names, first_bytes, last_bytes):
    """Spans [first_bytes, last_bytes) of `text[rows]` named `names`, row by
    row: (names, texts, character starts, character ends) [batch, most spans
    of a row], padded with "" and -1, and the spans of each row [batch]."""
    def padded(values, pad):
        ragged = tf.RaggedTensor.from_value_rowids(values, rows, nrows=tf.size(text, tf.int64))
        return ragged.to_tensor(pad)

    texts = tf.strings.substr(tf.gather(text, rows), first_bytes, last_bytes - first_bytes, unit="BYTE")
    counts = tf.math.bincount(tf.cast(rows, tf.int32), minlength=tf.size(text), maxlength=tf.size(text))
    return (padded(names, ""), padded(texts, ""), padded(char_offsets(text, rows, first_bytes), -1),
            padded(char_offsets(text, rows, last_bytes), -1), tf.cast(counts, tf.int32))


def _words_with_pieces(ids, begins, ends):
    """The tokenizer's words without those that have no pieces (none in
    WordPiece; in SentencePiece a word of characters that normalise away):
    they have no position to read a label at, nor offsets."""
    keep = ids.row_lengths(axis=2) > 0
    return tuple(tf.ragged.boolean_mask(t, keep) for t in (ids, begins, ends))


def _index_in_row(ragged):
    """Position of each value of a ragged [batch, (n), ...] within its row, int64."""
    return tf.range(tf.size(ragged.value_rowids(), tf.int64)) - tf.gather(
        ragged.row_splits, ragged.value_rowids())


def serve(export_dir, model, meta):
    """The tagging SavedModel of a fine-tuning run's `ExportMeta` (files without
    `doc_stride` use `run_ner.py`'s default, without `tag_scheme` chunks)."""
    return save_tagging(export_dir, model, meta.text_side(), meta.max_seq_length,
                        meta.label_list, meta.doc_stride or DOC_STRIDE, meta.tag_scheme or "chunks")
