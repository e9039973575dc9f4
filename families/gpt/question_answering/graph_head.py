"""How the SQuAD SavedModel reads OpenAI GPT's head in the graph (see
`tasks.question_answering.graph_heads` for what a reader provides): GPT's
window layout and BPE piece text, BERT's start/end reading."""

import tensorflow as tf

from families.gpt.piece_text import graph_piece_text
from tasks.question_answering.graph_heads import StartEndReader


class QuestionThenParagraph:
    """`_start_ question _delimiter_ paragraph _classify_`, padded on the right
    (`families.gpt.question_answering.windows.QuestionThenParagraph`)."""

    @staticmethod
    def pack(text_side, query_pieces, window_pieces, seq_length):
        rows = query_pieces.nrows()
        delimiter = tf.RaggedTensor.from_tensor(
            tf.fill(tf.stack([rows, 1]), tf.constant(text_side.special_ids.sep, tf.int32)))
        joined = tf.concat([tf.cast(query_pieces, tf.int32), delimiter,
                            tf.cast(window_pieces, tf.int32)], axis=1)
        return text_side.pack_graph([joined], seq_length)

    @staticmethod
    def doc_offsets(query_lengths, lengths, seq_length):
        return query_lengths + 2


class BytePairReader(StartEndReader):
    """BERT's start/end reading of GPT's windows; `get_final_text` searches
    each context word's piece text (its own BPE pieces), as in Python."""

    layout = QuestionThenParagraph

    @staticmethod
    def span_text(pieces):
        text = graph_piece_text(pieces)
        return text, tf.zeros_like(text, tf.bool)

    @staticmethod
    def final_text_words(text_side, tokenizer):
        return lambda words, pieces: tf.RaggedTensor.from_tensor(graph_piece_text(pieces)[:, None])
