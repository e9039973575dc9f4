"""OpenAI GPT's question-answering head as the task drives it: BERT's start and
end vectors (`tasks.question_answering.heads.StartEndHead`) over GPT's windows,
the null answer scored from the `_classify_` state, answers read back from
BPE pieces."""

import functools

from families.gpt.piece_text import piece_text
from families.gpt.question_answering.windows import GraphPieces
from modeling.encoder_interface import build_encoder
from tasks.question_answering.answers import predict_example
from tasks.question_answering.heads import StartEndHead
from tasks.question_answering.model import SpanLabeler


class BytePairSpanHead(StartEndHead):
    """Start and end logits over `_start_ question _delimiter_ paragraph
    _classify_`; the null answer (position 0) is scored from the `_classify_`
    state. A span's text is its pieces' words (`piece_text`), found by
    `get_final_text` in the piece text of the context words it covers, each
    word tokenized alone as the SavedModel does, and cut from the context."""

    def build_model(self):
        return SpanLabeler(build_encoder(self.config.encoder_config), null_from_pooled=True)

    def predictor(self, examples):
        words = sorted({word for example in examples for word in example.doc_tokens})
        texts = dict(zip(words, map(piece_text, GraphPieces(self.text_side).tokenize_words(words))))
        return functools.partial(predict_example, piece_text=piece_text, word_text=texts.__getitem__)
