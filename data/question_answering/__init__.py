"""Question answering (SQuAD): reader, and model windows in Python and in the graph."""
