"""How ELMo lays out and reads a SQuAD window: `question </S> <S> paragraph`
(its pair packing), each context word split as raw text is (`split_words`),
the null answer scored at position 0 as BERT's at [CLS] (the question's first
word, or `</S>` for an empty question: the task BiLSTM reads the whole window
there). The head is the shared start/end head over the feature-based span
labeler (`modeling.feature_based_models.FeatureBasedSpanLabeler`)."""

from data.text.graph_tokenizer import GraphTokenizer
from data.text.vocab import SPECIAL_TOKENS, Vocab
from families.elmo.characters import word_char_ids
from tasks.question_answering import features
from tasks.question_answering.graph_heads import StartEndReader, folded_words


class QuestionFirst(features.QuestionFirst):
    """BERT's question-first windows with ELMo's tokens: each piece a word's
    character ids, `</S> <S>` between question and paragraph."""

    @staticmethod
    def ids(text, pieces):
        return [word_char_ids(piece) for piece in pieces]

    @staticmethod
    def tokens(query, doc, doc_offset):
        return [*query, "</S>", "<S>", *doc]


class WordReader(StartEndReader):
    """BERT's start/end reader over ELMo's words in the graph."""

    @staticmethod
    def word_pieces(text_side, tokenizer, words):
        """(character ids, strings) of the words each context word splits into."""
        return tokenizer.tokenize_words(words)

    @staticmethod
    def final_text_words(text_side, tokenizer):
        """`get_final_text` searches BERT's basic tokenization of each word, as
        in Python (cased): a WordPiece tokenizer without word pieces."""
        basic = GraphTokenizer(Vocab(SPECIAL_TOKENS, "<special tokens>"), text_side.do_lower_case)
        return lambda words, pieces: folded_words(basic, words)
