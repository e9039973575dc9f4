"""The fine-tuning runs the protocol plans: each system on each task its
family supports, seed by seed."""

from comparisons.downstream import TASKS, Sources
from comparisons.protocol import Protocol
from comparisons.systems import all_systems
from comparisons.tiers import TIERS
from tests.conftest import ROOT


def test_a_task_the_family_refuses_is_skipped(tmp_path):
    systems = [s for s in all_systems() if s.name in ("gpt", "elmo")]
    protocol = Protocol(TIERS["tiny"], Sources(), str(tmp_path), systems, TASKS, None, ROOT, {}, None)
    protocol.task_flags = {"squad": [], "ner": []}  # as if their data were given
    planned = [(r.system, r.task, r.seed) for r in protocol.fine_tuning_runs()]
    # GPT's record refuses question answering; ELMo runs it (feature-based).
    assert planned == [("elmo", "squad", 0), ("gpt", "ner", 0), ("elmo", "ner", 0),
                       ("elmo", "squad", 1), ("gpt", "ner", 1), ("elmo", "ner", 1)]
