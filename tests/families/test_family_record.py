"""What a family's record answers shared code: the tasks it supports, its
config file, the family of a config file's fields."""

import dataclasses

import pytest

from checkpoints.companion_files import family_of_values
from contracts import registry, task_registry
from contracts.family import UnsupportedTaskError
from modeling.json_config import ConfigError


def test_a_task_the_record_does_not_list_is_refused_naming_what_it_supports():
    family = dataclasses.replace(registry.family("bert"), tasks=("classification", "tagging"))
    family.check_task("tagging")
    with pytest.raises(UnsupportedTaskError, match="the bert family does not support question_answering; "
                                                   "it supports classification, tagging"):
        family.check_task("question_answering")
    assert all(set(f.tasks) <= set(task_registry.names()) for f in registry.families())


def test_a_config_file_is_read_as_the_family_whose_fields_it_holds():
    assert family_of_values({"n_layer": 2, "d_model": 32}, "c.json").name == "xlnet"
    assert family_of_values({"vocab_size": 99, "hidden_size": 32}, "c.json").name == "bert"
    with pytest.raises(ConfigError, match="c.json: not the config of any model family"):
        family_of_values({"width": 3}, "c.json")


def test_unknown_names_list_the_registered_families():
    with pytest.raises(registry.UnknownFamilyError, match="unknown model family 't5'; registered: bert, xlnet, gpt"):
        registry.family("t5")
    assert registry.family_with_config_file("xlnet_config.json").name == "xlnet"
    assert registry.family_with_config_file("config.json") is None
