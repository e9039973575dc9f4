"""The text side of each encoder family, by the family's name (the name
`export_meta.json` records as `encoder_family`)."""

from data.text.text_side import TextSide
from data.text.tokenization import FullTokenizer
from families.bert.text_side import WordPieceText
from families.xlnet.text_side import XLNetText

TEXT_SIDES = {text.family: text for text in (WordPieceText, XLNetText)}


def text_side_for(family, model_file, do_lower_case):
    """The `TextSide` of `family` over its vocabulary file `model_file`."""
    if family not in TEXT_SIDES:
        raise ValueError(f"no text side for encoder family {family!r}; expected one of "
                         f"{sorted(TEXT_SIDES)}")
    return TEXT_SIDES[family].from_file(model_file, do_lower_case)


def vocab_file_name(family):
    """The name of `family`'s vocabulary file (`vocab.txt`, `spiece.model`), as it
    lies beside a checkpoint or export_meta.json."""
    return TEXT_SIDES[family].model_file_name


def as_text_side(text):
    """A `TextSide` as is; a WordPiece `FullTokenizer` as BERT's text side."""
    if isinstance(text, TextSide):
        return text
    if isinstance(text, FullTokenizer):
        return WordPieceText(text, text.vocab.path)
    raise TypeError(f"expected a TextSide or a FullTokenizer, got {type(text).__name__}")

