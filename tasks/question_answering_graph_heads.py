"""How the SQuAD SavedModel reads each family's question-answering head in the
graph, as `tasks/question_answering_heads.py` does in Python: the window
layout, what the windows feed the model beside the encoder inputs, the
candidate spans and null answer its outputs give, the text of a span's pieces
(which `get_final_text` then finds in the words) and the choice among the
n-best entries. `GRAPH_HEADS` picks one by the family's name.
"""

import tensorflow as tf

from data.question_answering import graph_features
from data.text.graph_segments import flatten_words
from data.text.graph_tokenizer import GraphTokenizer
from data.text.vocab import SPECIAL_TOKENS, Vocab
from tasks import question_answering_graph_answers as answers
from families.xlnet.question_answering import graph_beam as beam


class StartEndReader:
    """BERT's start/end logits: the n-best starts x ends, the null answer at
    [CLS] ranked with them (v2.0)."""

    layout = graph_features.QuestionFirst

    @staticmethod
    def word_pieces(text_side, tokenizer, words):
        """(ids, piece strings) of each word, ragged [words, (pieces)]."""
        ids = flatten_words(tokenizer.tokenize(words))
        table = tf.constant(text_side.to_tokens(range(text_side.special_ids.vocab_size)))
        return ids, ids.with_flat_values(tf.gather(table, ids.flat_values))

    @staticmethod
    def model_inputs(windows, seq_length):
        return {}

    @staticmethod
    def candidates(outputs, windows, is_max_context, options, num_rows):
        """(candidates, null) of every row, unranked."""
        start_logits, end_logits = outputs["start_logits"], outputs["end_logits"]
        candidates = answers.window_candidates(start_logits, end_logits, windows, is_max_context,
                                               options.n_best_size, options.max_answer_length)
        null = answers.null_candidates(start_logits, end_logits, windows, num_rows)
        if options.version_2_with_negative:
            candidates = answers.concat_candidates(candidates, null)
        return candidates, null

    @staticmethod
    def span_text(pieces):
        """(the pieces' text, whether the span has no text): WordPiece's text is
        never taken as none (`get_final_text` answers the whole words)."""
        text = answers.piece_text(pieces)
        return text, tf.zeros_like(text, tf.bool)

    @staticmethod
    def basic_tokenizer(text_side, tokenizer):
        """The basic tokenizer `get_final_text` searches: WordPiece's own."""
        return tokenizer

    choose = staticmethod(answers.choose_answers)


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
    def basic_tokenizer(text_side, tokenizer):
        """`get_final_text` searches BERT's basic tokenization (cased as the
        text side) in Python too: a WordPiece tokenizer without word pieces."""
        return GraphTokenizer(Vocab(SPECIAL_TOKENS, "<special tokens>"), text_side.do_lower_case)

    choose = staticmethod(beam.choose_beam_answers)


GRAPH_HEADS = {"bert": StartEndReader, "xlnet": BeamReader}  # encoder family -> its reader
