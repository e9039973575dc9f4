"""Extractive question answering, SQuAD v1.1 and v2.0 (`run_squad.py`): the
reader (`squad_reader.py`), windows in Python and in the graph (`features.py`,
`graph_features.py`), the models (`model.py`) and the heads that read them,
in Python and in the graph (`heads.py`, `graph_heads.py`), answers from
logits (`answers.py`, `graph_answers.py`), the official EM/F1
(`metrics.py`), the task (`task.py`), the SavedModel (`serving.py`) and the
record (`record.py`). A family whose layout or head is its own names it in
its record (`contracts.family.QuestionAnswering`)."""
