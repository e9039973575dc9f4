"""The fine-tuning runners share their usage checks (`check_fine_tuning_flags`,
`feature_head_from_flags`) and their tail (`fine_tune_and_export`) instead of
each repeating them."""

import os

import pytest
from absl import app, flags

from families.elmo.config import ELMoConfig
from tests.conftest import ROOT
from tests.tiny_config import TINY_CONFIG
from training.flag_groups import check_fine_tuning_flags, feature_head_from_flags

RUNNERS = ("run_ner.py", "run_squad.py", "run_swag.py")


def _flag_values(**values):
    flag_values = flags.FlagValues()
    for name in ("do_train", "do_eval", "do_predict"):
        flags.DEFINE_bool(name, False, "", flag_values=flag_values)
    for name in ("data_dir", "task_name"):
        flags.DEFINE_string(name, None, "", flag_values=flag_values)
    for name in ("lstm_units", "lstm_layers"):
        flags.DEFINE_integer(name, None, "", flag_values=flag_values)
    flag_values(["test"])
    for name, value in values.items():
        flag_values[name].value = value
    return flag_values


@pytest.mark.parametrize("do", ["do_train", "do_eval", "do_predict"])
def test_any_one_action_with_its_required_flags_passes(do):
    check_fine_tuning_flags(flag_values=_flag_values(**{do: True, "data_dir": "d"}))
    check_fine_tuning_flags(required=(), flag_values=_flag_values(**{do: True}))


def test_usage_errors_say_what_is_missing():
    with pytest.raises(app.UsageError, match="at least one of --do_train, --do_eval, --do_predict"):
        check_fine_tuning_flags(flag_values=_flag_values(data_dir="d"))
    with pytest.raises(app.UsageError, match="--data_dir is required"):
        check_fine_tuning_flags(flag_values=_flag_values(do_eval=True))
    with pytest.raises(app.UsageError, match="--task_name is required"):
        check_fine_tuning_flags(("task_name", "data_dir"),
                                flag_values=_flag_values(do_train=True, data_dir="d"))


def test_the_task_bilstm_size_is_for_feature_based_heads_only():
    elmo = ELMoConfig.from_preset("elmo_tiny")
    assert feature_head_from_flags(elmo, flag_values=_flag_values()) == {
        "lstm_units": None, "lstm_layers": None}
    sized = _flag_values(lstm_units=8, lstm_layers=1)
    assert feature_head_from_flags(elmo, flag_values=sized) == {"lstm_units": 8, "lstm_layers": 1}
    assert feature_head_from_flags(TINY_CONFIG, feature_based=True, flag_values=sized)["lstm_units"] == 8
    with pytest.raises(app.UsageError, match="--lstm_units and --lstm_layers size a feature-based "
                                             "head's task BiLSTM; the bert family is fine-tuned"):
        feature_head_from_flags(TINY_CONFIG, flag_values=sized)
    assert feature_head_from_flags(TINY_CONFIG, flag_values=_flag_values())["lstm_layers"] is None


@pytest.mark.parametrize("runner", RUNNERS + ("run_classifier.py",))
def test_runners_do_not_repeat_the_checks_or_the_tail(runner):
    with open(os.path.join(ROOT, runner), encoding="utf-8") as f:
        source = f.read()
    assert "check_fine_tuning_flags(" in source
    assert "at least one of" not in source
    if runner in RUNNERS:
        assert "fine_tune_and_export(" in source
        assert "export_after_training" not in source and "fine_tune(" not in source
