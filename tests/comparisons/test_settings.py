"""A comparison's folder keeps the terms it began with: a rerun under a version
that defines its tier otherwise (a task's epochs, say) is refused rather than
mixed with the units run to the old terms."""

import dataclasses

import pytest

from compare import check_settings, tier_definition
from comparisons.tiers import TIERS, TaskSize


def settings(tier):
    return {"tier": tier.name, "seeds": tier.seeds, "tier_definition": tier_definition(tier)}


def test_a_folder_begun_under_another_definition_of_its_tier_is_refused(tmp_path):
    path = tmp_path / "settings.json"
    five_epochs = dataclasses.replace(TIERS["cpu"], tasks={**TIERS["cpu"].tasks, "ner": TaskSize(1000, 500, epochs=5.0)})
    check_settings(str(path), settings(five_epochs))
    recorded = path.read_text()
    check_settings(str(path), settings(five_epochs))  # the same terms resume
    with pytest.raises(SystemExit, match=r"other settings \(tier_definition\)"):
        check_settings(str(path), settings(TIERS["cpu"]))
    assert path.read_text() == recorded


def test_seeds_and_the_time_allowance_are_settings_of_their_own():
    tier = TIERS["cpu"]
    assert tier_definition(dataclasses.replace(tier, seeds=5, pretraining_seeds=4, pretraining_seconds=60.0)) == \
        tier_definition(tier)


def test_a_folder_begun_before_tier_definitions_were_recorded_is_refused_saying_so(tmp_path):
    path = tmp_path / "settings.json"
    check_settings(str(path), {"tier": "cpu", "seeds": 2})
    with pytest.raises(SystemExit, match=r"other settings \(tier_definition; begun by a version that did not "
                                         r"record tier_definition\)"):
        check_settings(str(path), settings(TIERS["cpu"]))
