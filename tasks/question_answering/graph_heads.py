"""How the SQuAD SavedModel reads each family's question-answering head in the
graph, as `tasks/question_answering/heads.py` does in Python: the window
layout, what the windows feed the model beside the encoder inputs, the
candidate spans and null answer its outputs give, the text of a span's pieces
(which `get_final_text` then finds in the words' own text, `final_text_words`)
and the choice among the n-best entries. A family's record names its reader
(`question_answering.graph_head`); `graph_head` picks it, BERT's start/end
reader where the record names none.
"""

import tensorflow as tf

from contracts import registry
from data.text.graph_segments import flatten_words
from tasks.question_answering import graph_answers as answers, graph_features


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
    def final_text_words(text_side, tokenizer):
        """`words(word strings [n], their piece strings [n, (pieces)])` ->
        string [n, (tokens)]: what `get_final_text` searches a span's text in,
        each context word's tokens joined by spaces. WordPiece's basic
        tokenization of each word (its own tokenizer's first step)."""
        return lambda words, pieces: folded_words(tokenizer, words)

    choose = staticmethod(answers.choose_answers)


def folded_words(tokenizer, texts):
    """The original BasicTokenizer's words of each text as strings (lower-cased
    and accent-stripped when uncased): ragged [batch, (words)]. `get_final_text`
    searches these; a `data.text.graph_tokenizer.GraphTokenizer` computes them
    on the way to its ids."""
    chars, words, rows = tokenizer._basic_tokenize(texts)  # pylint: disable=protected-access
    strings = tf.strings.unicode_encode(
        tf.RaggedTensor.from_row_starts(chars.cps, words.starts), "UTF-8")
    return tf.RaggedTensor.from_value_rowids(strings, rows, nrows=tf.size(texts, tf.int64))


def graph_head(family):
    """The reader of `family`'s head: its record's, else `StartEndReader`."""
    parts = registry.family(family).question_answering
    return parts.graph_head if parts else StartEndReader
