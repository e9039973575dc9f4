"""GPT's words: spaCy's English tokenizer over the cleaned text, each token
lower-cased, as the original pipeline. The original loaded spaCy 2's `en`
model with its parser, tagger and entity recogniser disabled, so only its
tokenizer ran; `spacy.blank("en")` is that tokenizer in spaCy 3 (pinned in
requirements.txt: another spaCy may split differently)."""

import functools

from families.gpt.text_standardize import clean_text


@functools.lru_cache(maxsize=None)
def english_tokenizer():
    import spacy  # imported on first use: loading spaCy takes seconds
    return spacy.blank("en").tokenizer


def words(text):
    """Lower-cased spaCy tokens of `text` after `clean_text`. A newline comes
    out as the token '\\n ' (spaCy keeps the space that follows it)."""
    return [token.text.lower() for token in english_tokenizer()(clean_text(text))]
