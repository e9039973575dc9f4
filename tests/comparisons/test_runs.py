"""The fine-tuning runs the protocol plans: each system on each task its
family supports, seed by seed."""

import dataclasses

from comparisons.downstream import TASKS, Sources
from comparisons.protocol import Protocol
from comparisons.systems import all_systems
from comparisons.tiers import TIERS
from contracts import registry
from tests.conftest import ROOT


def test_a_task_the_family_refuses_is_skipped(tmp_path, monkeypatch):
    # Every family runs every task today: GPT's record as if it refused question answering.
    family = registry.family
    refusing = dataclasses.replace(family("gpt"), tasks=("classification", "tagging", "multiple_choice",
                                                         "feature_extraction"))
    monkeypatch.setattr(registry, "family", lambda name: refusing if name == "gpt" else family(name))
    systems = [s for s in all_systems() if s.name in ("gpt", "elmo")]
    protocol = Protocol(TIERS["tiny"], Sources(), str(tmp_path), systems, TASKS, None, ROOT, {}, None)
    protocol.task_flags = {"squad": [], "ner": []}  # as if their data were given
    planned = [(r.system, r.task, r.seed) for r in protocol.fine_tuning_runs()]
    # ELMo runs question answering (feature-based); the refusing record does not.
    assert planned == [("elmo", "squad", 0), ("gpt", "ner", 0), ("elmo", "ner", 0),
                       ("elmo", "squad", 1), ("gpt", "ner", 1), ("elmo", "ner", 1)]
