"""Each family's text side, found through the family registry by the family's
name (the name `export_meta.json` records as `encoder_family`)."""

from data.text.text_side import TextSide
from families import registry


def text_side_type(family):
    """The `TextSide` class of `family`."""
    try:
        return registry.family(family).text_side
    except registry.UnknownFamilyError as e:
        raise ValueError(f"no text side for encoder family {family!r}: {e}") from None


def text_side_for(family, model_file, do_lower_case):
    """The `TextSide` of `family` over its vocabulary file `model_file`."""
    return text_side_type(family).from_file(model_file, do_lower_case)


def vocab_file_name(family):
    """The name of `family`'s vocabulary file (`vocab.txt`, `spiece.model`), as it
    lies beside a checkpoint or export_meta.json."""
    return text_side_type(family).model_file_name


def as_text_side(text):
    """A `TextSide` as is; a family's own tokenizer (BERT's `FullTokenizer`, as
    the original code passes it) as that family's text side."""
    if isinstance(text, TextSide):
        return text
    for family in registry.families():
        wrapped = family.text_side.wrap(text)
        if wrapped is not None:
            return wrapped
    raise TypeError(f"expected a TextSide or a family's tokenizer, got {type(text).__name__}")
