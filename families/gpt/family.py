"""OpenAI GPT (Radford et al. 2018) in the family registry."""

from contracts.family import Family, QuestionAnswering
from families.gpt.checkpoints import convert
from families.gpt.checkpoints.formats import FORMATS, foreign_config
from families.gpt.config import GPTConfig
from families.gpt.encoder import GPTEncoder
from families.gpt.next_token import GPTNextToken
from families.gpt.question_answering.graph_head import BytePairReader
from families.gpt.question_answering.head import BytePairSpanHead
from families.gpt.question_answering.windows import QuestionThenParagraph
from families.gpt.text_side import GPTText

FAMILY = Family(
    name="gpt", title="OpenAI GPT", config_type=GPTConfig, encoder_type=GPTEncoder, text_side=GPTText,
    tiny_preset="gpt_tiny", checkpoint_formats=FORMATS, foreign_config=foreign_config,
    convert=convert.convert, output_formats=convert.OUTPUT_FORMATS,
    pretraining="families.gpt.pretraining.run", comparison="families.gpt.comparison", language_model=GPTNextToken,
    question_answering=QuestionAnswering(
        windows=QuestionThenParagraph, head=BytePairSpanHead, graph_head=BytePairReader))
