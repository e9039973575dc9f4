"""The CPU side-by-side benchmarks: bf16 contenders by default only on native-bf16 CPUs; the train-step table."""

import pytest

from benchmarks.common import cpu_default_contenders
from tests.benchmarks.run_script import compare_with_hugging_face
from training import precision

CONTENDERS = ("ours_fp32", "ours_bf16", "hf_torch_fp32", "hf_torch_bf16_weights")


@pytest.mark.parametrize("flags,expected", [
    ({"avx2", "fma"}, ("ours_fp32", "hf_torch_fp32")),
    ({"avx2", "avx512_bf16"}, CONTENDERS),
    ({"avx2", "amx_bf16"}, CONTENDERS)])
def test_bf16_contenders_run_by_default_only_where_bf16_is_native(monkeypatch, flags, expected):
    monkeypatch.setattr(precision, "read_cpu_flags", lambda: frozenset(flags))
    assert cpu_default_contenders(CONTENDERS) == expected


def test_an_avx2_cap_leaves_the_bf16_contenders_out_on_any_host(monkeypatch):
    monkeypatch.setattr(precision, "read_cpu_flags", lambda: frozenset({"avx2", "amx_bf16"}))
    assert cpu_default_contenders(CONTENDERS, cpu_isa="avx2") == ("ours_fp32", "hf_torch_fp32")


def test_cpu_train_step_compares_ours_with_hugging_face(tmp_path):
    compare_with_hugging_face(tmp_path, "cpu_train_step.py", "--preset=bert_tiny_uncased", "--batch=2",
                              "--seq=16", "--predictions=3")
