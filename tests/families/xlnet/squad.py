"""A tiny SQuAD 2.0 file in the words of `tests.families.xlnet.spiece_model`'s corpus (so a
`spiece.model` learned there tokenizes it into real pieces): paragraphs of
three house sentences, each with two answerable questions and one without an
answer."""

import json

from tests.families.xlnet.spiece_model import LINES


def paragraph(p):
    context = " ".join(LINES[3 * p:3 * p + 3])
    qas = []
    for k, line in enumerate(LINES[3 * p:3 * p + 2]):
        rooms = line.split(" counted ")[1].split()[0]
        start = context.index(line) + line.index(" counted ") + len(" counted ")
        year = line.split(", ")[1].split()[0]
        qas.append({"id": f"p{p}-q{k}", "question": f"How many rooms did the house count in {year}?",
                    "answers": [{"text": rooms, "answer_start": start}], "is_impossible": False})
    qas.append({"id": f"p{p}-none", "question": "How many windows did the house count?",
                "answers": [], "is_impossible": True})
    return {"context": context, "qas": qas}


def write_squad_v2(path, num_paragraphs=3):
    """Writes the file to `path` (a pathlib.Path); returns its path as a string."""
    document = {"version": "v2.0", "data": [{"title": "houses", "paragraphs": [
        paragraph(p) for p in range(num_paragraphs)]}]}
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return str(path)
