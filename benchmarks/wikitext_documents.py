"""WikiText (one paragraph per line, ` = Title = ` headings) to the pretraining
corpus format (one sentence per line, a blank line between documents).

    python benchmarks/wikitext_documents.py ../shared/data/corpus/wikitext2_*.txt > /tmp/wiki.txt
    python benchmarks/wikitext_documents.py --paragraphs ../shared/data/corpus/wikitext2_*.txt

A document is an article by default. WikiText keeps only long featured
articles, so its 512-token instances are 86% real tokens; `--paragraphs`
makes each paragraph a document, which gives the short documents that a
full Wikipedia dump has in number (stubs, lists) and about half padding.
"""

import re
import sys

_ARTICLE_TITLE = re.compile(r"^ = [^=].* = $")
_SENTENCE_END = re.compile(r"(?<= [.!?]) (?=[A-Z\"'(])")


def articles(lines):
    """Lists of sentences, one list per article; section headings are dropped."""
    article = []
    for line in lines:
        line = line.rstrip("\n")
        if _ARTICLE_TITLE.match(line):
            if article:
                yield article
            article = []
        elif line.strip() and not line.lstrip().startswith("="):
            article.extend(s.strip() for s in _SENTENCE_END.split(line) if s.strip())
    if article:
        yield article


def paragraphs(lines):
    """Lists of sentences, one list per paragraph; headings are dropped."""
    for line in lines:
        if line.strip() and not line.lstrip().startswith("="):
            yield [s.strip() for s in _SENTENCE_END.split(line.rstrip("\n")) if s.strip()]


def main(argv):
    split = paragraphs if "--paragraphs" in argv else articles
    for path in (a for a in argv if not a.startswith("--")):
        with open(path, encoding="utf-8") as f:
            for document in split(f):
                sys.stdout.write("\n".join(document) + "\n\n")


if __name__ == "__main__":
    main(sys.argv[1:])
