"""SQuAD v1.1 / v2.0 JSON -> question examples with answers aligned to words.

The official layout:

    {"version": "1.1", "data": [{"title": ..., "paragraphs": [{"context": ...,
      "qas": [{"id": ..., "question": ..., "answers": [{"text": ..., "answer_start": 17}],
               "is_impossible": false}]}]}]}

(`is_impossible` and `plausible_answers` only in v2.0). As in the original
`run_squad.py`, a context is split into words on whitespace only (space, tab,
CR, LF, U+202F); every character maps to the word it belongs to, so an
answer's character offset becomes a word span, and a training answer is kept
only when the words it spans contain its whitespace-normalised text.

Choices beyond the original, which expects SQuAD train files with exactly one
answer per question: a training question takes the first of its answers that
aligns, so dev-style files with several answers train too; questions that
cannot be used (no answer outside v2.0 negatives, offsets that do not match
the context, a repeated id, missing text) are skipped with a count and a
warning naming the id instead of stopping the run.
"""

import codecs
import dataclasses
import json
import os

from absl import logging

_SQUAD_WHITESPACE = frozenset(" \t\r\n\u202f")
_LOGGED_SKIPS = 10


class SquadFormatError(ValueError):
    """A file that is not SQuAD JSON at all; the message names the file and where."""


def is_squad_whitespace(char):
    """The original reader's word separators (narrower than `str.isspace`)."""
    return char in _SQUAD_WHITESPACE


def split_words(context):
    """(words, char_to_word, word_starts) of a context split on SQuAD whitespace.

    `char_to_word[i]` is the word that character i is in, or the word before
    it for whitespace (-1 before the first word); `word_starts[w]` is the
    character offset of word w, so `context[word_starts[w]:][:len(words[w])]
    == words[w]`.
    """
    words, char_to_word, word_starts = [], [], []
    previous_is_whitespace = True
    for offset, char in enumerate(context):
        if is_squad_whitespace(char):
            previous_is_whitespace = True
        else:
            if previous_is_whitespace:
                words.append(char)
                word_starts.append(offset)
            else:
                words[-1] += char
            previous_is_whitespace = False
        char_to_word.append(len(words) - 1)
    return words, char_to_word, word_starts


@dataclasses.dataclass(frozen=True)
class SquadExample:
    """One question about one context.

    `doc_tokens` are the whitespace-separated words of `context`, starting at
    `word_starts`. `answers` holds every gold answer text (for scoring);
    `start_position`/`end_position` are the word span of the answer used for
    training (-1 for a v2.0 negative, None when not reading for training).
    """

    qas_id: str
    question_text: str
    context: str
    doc_tokens: tuple
    word_starts: tuple
    answers: tuple = ()
    is_impossible: bool = False
    answer_text: str = None
    start_position: int = None
    end_position: int = None


@dataclasses.dataclass
class SquadFile:
    """What a file held: usable `examples`, the raw `articles` (for scoring)
    and `skipped`, one "id: reason" per question left out."""

    path: str
    version: str
    articles: list
    examples: list
    skipped: list

    @property
    def has_answers(self):
        """Whether the file carries gold answers (or v2.0 `is_impossible`
        marks) to score predictions against; test files have neither."""
        return any(qa.get("answers") or "is_impossible" in qa
                   for article in self.articles for paragraph in article["paragraphs"]
                   for qa in paragraph["qas"] if isinstance(qa, dict))


class _Skip(Exception):
    """A question that cannot be used; carries the reason."""


def read_squad_file(path, is_training, version_2_with_negative=False):
    """`SquadFile` of `path`; see the module docstring for what is skipped.
    A file with no usable question is an error."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"SQuAD file not found: {path!r}")
    with open(path, "rb") as f:
        data = f.read()
    start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0  # a BOM is dropped
    try:
        text = data[start:].decode("utf-8")
    except UnicodeDecodeError as e:
        offset = start + e.start
        line = data.count(b"\n", 0, offset) + 1
        raise SquadFormatError(f"{path}:{line}: not UTF-8 ({e.reason} at byte {offset})") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as e:
        raise SquadFormatError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(document, dict) or not isinstance(document.get("data"), list):
        raise SquadFormatError(f'{path}: expected an object with a "data" list of articles')
    examples, skipped = read_squad_articles(
        document["data"], is_training, version_2_with_negative, source=path)
    if not examples:
        reason = f" ({len(skipped)} questions skipped)" if skipped else ""
        raise SquadFormatError(f"{path}: no examples{reason}")
    return SquadFile(path, str(document.get("version", "")), document["data"], examples, skipped)


def read_squad_articles(articles, is_training, version_2_with_negative=False, source="data"):
    """(examples, skipped) from the `data` list of a SQuAD file."""
    examples, skipped, seen_ids = [], [], set()
    for a, article in enumerate(articles):
        for p, paragraph in enumerate(_field(article, "paragraphs", list, f"{source}: data[{a}]")):
            where = f"{source}: data[{a}].paragraphs[{p}]"
            context = _field(paragraph, "context", str, where)
            words, char_to_word, word_starts = split_words(context)
            words, word_starts = tuple(words), tuple(word_starts)
            for q, qa in enumerate(_field(paragraph, "qas", list, where)):
                qas_id = qa.get("id") if isinstance(qa, dict) else None
                name = str(qas_id) if qas_id is not None else f"{where}.qas[{q}]"
                try:
                    if qas_id is None:
                        raise _Skip("no id")
                    if qas_id in seen_ids:
                        raise _Skip("repeated id")
                    example = _example(qa, context, words, char_to_word, word_starts,
                                       is_training, version_2_with_negative)
                except _Skip as e:
                    if len(skipped) < _LOGGED_SKIPS:
                        logging.warning("%s: skipping question %s: %s", source, name, e)
                    skipped.append(f"{name}: {e}")
                    continue
                seen_ids.add(qas_id)
                examples.append(example)
    if skipped:
        logging.warning("%s: skipped %d question(s), kept %d", source, len(skipped), len(examples))
    return examples, skipped


def _field(container, key, kind, where):
    value = container.get(key) if isinstance(container, dict) else None
    if not isinstance(value, kind):
        raise SquadFormatError(f'{where}: "{key}" must be a {kind.__name__}')
    return value


def _example(qa, context, words, char_to_word, word_starts, is_training,
             version_2_with_negative):
    question = qa.get("question")
    if not isinstance(question, str) or not question.strip():
        raise _Skip("empty question")
    answers = qa.get("answers") or []
    if not isinstance(answers, list) or not all(isinstance(x, dict) for x in answers):
        raise _Skip('"answers" is not a list of objects')
    is_impossible = bool(qa.get("is_impossible", not answers)) and version_2_with_negative
    gold = tuple(str(x.get("text", "")) for x in answers)
    example = SquadExample(str(qa["id"]), question, context, words, word_starts, gold,
                           is_impossible)
    if not is_training:
        return example
    if is_impossible:
        return dataclasses.replace(example, answer_text="", start_position=-1, end_position=-1)
    if not answers:
        raise _Skip("no answer (only SQuAD v2.0 negatives may have none)")
    reasons = []
    for answer in answers:
        try:
            start, end = align_answer(answer, context, words, char_to_word)
        except _Skip as e:
            reasons.append(str(e))
            continue
        return dataclasses.replace(example, answer_text=answer["text"], start_position=start,
                                   end_position=end)
    raise _Skip("; ".join(reasons))


def align_answer(answer, context, words, char_to_word):
    """Word span (start, end) of `{"text", "answer_start"}` in a context.

    The original's test: the words the character span touches, joined by single
    spaces, must contain the answer text with its whitespace normalised.
    """
    text, offset = answer.get("text"), answer.get("answer_start")
    if not isinstance(text, str) or not text.strip():
        raise _Skip("empty answer text")
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise _Skip(f"answer_start {offset!r} is not an integer")
    if offset < 0 or offset + len(text) > len(context):
        raise _Skip(f"answer_start {offset} + {len(text)} characters is outside the "
                    f"context of {len(context)}")
    start, end = char_to_word[offset], char_to_word[offset + len(text) - 1]
    start = max(start, 0)
    if start > end:
        raise _Skip(f"answer at {offset} covers no word of the context")
    found = " ".join(words[start:end + 1])
    cleaned = " ".join(text.split())
    if found.find(cleaned) == -1:
        raise _Skip(f"answer {cleaned!r} not found at {offset} (context words there: {found!r})")
    return start, end
