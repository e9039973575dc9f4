"""How XLNet lays out a SQuAD window in Python (the shared window rules are in
`tasks.question_answering.features`)."""

from families.xlnet.tokenizer import SPIECE_UNDERLINE


class ParagraphFirst:
    """XLNet: `paragraph <sep> question <sep> <cls>`, padded on the left."""

    @staticmethod
    def tokenizer(text):
        return text.tokenizer

    @staticmethod
    def word_pieces(tokenizer, example):
        """The paragraph's pieces, as the original tokenizes it, cut into the
        `doc_tokens` words at each word-start piece. SentencePiece pieces never
        cross whitespace, but on a tie between two segmentations of a word its
        choice can depend on the text before, so the word alone may differ.
        When the word starts do not match the words (a character that is
        whitespace to the tokenizer but not to the reader, a word tokenized to
        nothing), each word is tokenized alone."""
        groups = []
        for piece in tokenizer.tokenize(example.context):
            if piece.startswith(SPIECE_UNDERLINE) or not groups:
                groups.append([])
            groups[-1].append(piece)
        if len(groups) == len(example.doc_tokens):
            return groups
        return [tokenizer.tokenize(word) for word in example.doc_tokens]

    @staticmethod
    def ids(text, pieces):
        return [text.tokenizer.sp.piece_to_id(p) for p in pieces]

    @staticmethod
    def pack(text, query_ids, doc_ids, max_seq_length):
        inputs = text.pack(doc_ids, query_ids, max_seq_length)
        return inputs, max_seq_length - int(inputs["input_mask"].sum()), max_seq_length - 1

    @staticmethod
    def tokens(query, doc, doc_offset):
        """The window's pieces by position, padding first (an empty question has
        no second `<sep>`, as `pack` packs it)."""
        return ["<pad>"] * doc_offset + [*doc, "<sep>", *query] + ["<sep>"] * bool(query) + ["<cls>"]
