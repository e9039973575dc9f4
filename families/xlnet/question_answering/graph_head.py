"""How the SQuAD SavedModel reads XLNet's beam head in the graph (see
`tasks.question_answering.graph_heads` for what a reader provides)."""

import tensorflow as tf

from data.text.graph_tokenizer import GraphTokenizer
from data.text.vocab import SPECIAL_TOKENS, Vocab
from families.xlnet.question_answering import graph_beam as beam
from tasks.question_answering import graph_answers as answers, graph_features
from tasks.question_answering.graph_heads import folded_words


class BeamReader:
    """XLNet's start x end beam and answer class (`XLNetSpanLabeler` without
    `start_positions`); the null odds are the smallest `cls_logits`."""

    layout = graph_features.ParagraphFirst

    @staticmethod
    def word_pieces(text_side, tokenizer, words):
        """(ids, piece strings) of each word: an unknown character keeps its text,
        as in the Python pieces the answer's text is read from."""
        pieces = tokenizer.tokenize_pieces(words)
        return tokenizer.piece_ids(pieces), pieces

    @staticmethod
    def model_inputs(windows, seq_length):
        """`p_mask` (0.0 on context pieces and `<cls>`) and `cls_index` (last)."""
        positions = tf.range(seq_length, dtype=tf.int64)[None, :]
        open_ = (answers.in_context(windows, positions) | tf.equal(positions, seq_length - 1))
        cls_index = tf.fill(tf.shape(windows.rows), seq_length - 1)
        return {"p_mask": 1.0 - tf.cast(open_, tf.float32), "cls_index": cls_index}

    @staticmethod
    def candidates(outputs, windows, is_max_context, options, num_rows):
        """(candidates, null odds float64 [batch]) of every row, unranked."""
        seq_length = tf.shape(windows.inputs["input_word_ids"], tf.int64)[1]
        candidates = beam.beam_candidates(outputs, windows, is_max_context, seq_length,
                                          options.max_answer_length)
        return candidates, beam.null_scores(outputs["cls_logits"], windows, num_rows)

    @staticmethod
    def span_text(pieces):
        """(the pieces' text, whether it is empty: bare word-start markers)."""
        text = beam.sentencepiece_text(pieces)
        return text, tf.equal(text, "")

    @staticmethod
    def final_text_words(text_side, tokenizer):
        """`get_final_text` searches BERT's basic tokenization (cased as the
        text side) in Python too: a WordPiece tokenizer without word pieces."""
        basic = GraphTokenizer(Vocab(SPECIAL_TOKENS, "<special tokens>"), text_side.do_lower_case)
        return lambda words, pieces: folded_words(basic, words)

    choose = staticmethod(beam.choose_beam_answers)
