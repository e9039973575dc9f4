"""How OpenAI GPT lays out a SQuAD window in Python (the shared window rules are
in `tasks.question_answering.features`): `_start_ question _delimiter_
paragraph _classify_`, padded on the right.

The question comes first, as in the original's input transformations (the
text the answer depends on before the text it is read from): a left-to-right
encoder then reads each paragraph piece having read the question and the
paragraph before it, never the paragraph after it. The null answer of SQuAD
2.0 is position 0 (`cls_index`), which `_start_` holds and no answer can take;
the span labeler scores it from the `_classify_` state, the only one that has
read the whole window (`modeling.task_models.SpanLabeler(null_from_pooled=True)`).

Pieces are the text side's `encode` (the graph tokenizer the SavedModel
holds), each context word tokenized alone, as the SavedModel does.
"""

from families.gpt.bpe import SPECIAL_TOKENS

WORDS_PER_CALL = 4096  # words the graph tokenizer takes in one call


class GraphPieces:
    """The text side's BPE pieces (strings) as the window rules ask for them."""

    def __init__(self, text):
        self.text = text

    def tokenize(self, text):
        """Pieces of one text (a question, an answer)."""
        return self.text.to_tokens(self.text.encode(text))

    def tokenize_words(self, words):
        """Pieces of each word, each tokenized alone, a few thousand words a call."""
        words = list(words)
        return [self.text.to_tokens(ids)
                for start in range(0, len(words), WORDS_PER_CALL)
                for ids in self.text.encode_batch(words[start:start + WORDS_PER_CALL])]


class QuestionThenParagraph:
    """GPT: `_start_ question _delimiter_ paragraph _classify_`, padded on the right."""

    @staticmethod
    def tokenizer(text):
        return GraphPieces(text)

    @staticmethod
    def word_pieces(tokenizer, example):
        return tokenizer.tokenize_words(example.doc_tokens)

    @staticmethod
    def ids(text, pieces):
        return text.tokenizer.bpe.ids(pieces)

    @staticmethod
    def pack(text, query_ids, doc_ids, max_seq_length):
        """One segment `question _delimiter_ paragraph` between `_start_` and
        `_classify_`: the windows already leave room for the three specials."""
        ids = list(query_ids) + [text.special_ids.sep] + list(doc_ids)
        return text.pack(ids, None, max_seq_length), len(query_ids) + 2, 0

    @staticmethod
    def tokens(query, doc, doc_offset):
        start, delimiter, classify = SPECIAL_TOKENS
        return [start, *query, delimiter, *doc, classify]
