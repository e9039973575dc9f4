"""XLNet (Yang et al. 2019) in the family registry."""

from contracts.family import Family, QuestionAnswering
from families.xlnet.checkpoints import convert, huggingface
from families.xlnet.checkpoints.formats import FORMATS, saved_weights
from families.xlnet.config import XLNetConfig
from families.xlnet.encoder import XLNetEncoder
from families.xlnet.question_answering.graph_head import BeamReader
from families.xlnet.question_answering.head import BeamHead
from families.xlnet.question_answering.windows import ParagraphFirst
from families.xlnet.text_side import XLNetText


def foreign_config(directory):
    """A Hugging Face XLNet's config in `directory`, or None."""
    return huggingface.read_config(directory) if huggingface.is_xlnet_hf_dir(directory) else None


FAMILY = Family(
    name="xlnet", title="XLNet", config_type=XLNetConfig, encoder_type=XLNetEncoder, text_side=XLNetText,
    tiny_preset="xlnet_tiny",
    checkpoint_formats=FORMATS, saved_weights=saved_weights, foreign_config=foreign_config,
    convert=convert.convert, output_formats=convert.OUTPUT_FORMATS,
    question_answering=QuestionAnswering(
        ParagraphFirst, BeamHead, BeamReader,
        flags=(("start_n_top", 5, "top starts kept per window (the original's flag)."),
               ("end_n_top", 5, "top ends kept per start (the original's flag)."))),
    pretraining="families.xlnet.pretraining.run", comparison="families.xlnet.comparison")
