"""`--mixed_precision=auto`: bf16 only where the device computes it natively, with the CPU flags injected."""

import logging

import pytest

from training import precision

ZEN3 = frozenset("fpu sse2 avx avx2 fma f16c bmi2 sha_ni".split())  # AMD EPYC Zen 3: AVX2 only
ICE_LAKE = ZEN3 | {"avx512f", "avx512bw", "avx512_vnni"}  # AVX-512 without bf16
COOPER_LAKE = ICE_LAKE | {"avx512_bf16"}
SAPPHIRE_RAPIDS = COOPER_LAKE | {"amx_bf16", "amx_tile", "amx_int8"}


@pytest.fixture(autouse=True)
def fresh_log(monkeypatch):
    monkeypatch.setattr(precision, "_logged", set())


@pytest.mark.parametrize("flags,expected", [(ZEN3, "none"), (ICE_LAKE, "none"),
                                            (COOPER_LAKE, "bf16"), (SAPPHIRE_RAPIDS, "bf16")])
def test_auto_on_cpu_follows_native_bf16_flags(flags, expected):
    chosen, reason = precision.resolve("auto", device="cpu", cpu_flags=flags)
    assert chosen == expected
    assert ("without native bf16" in reason) == (expected == "none")


@pytest.mark.parametrize("device", ["gpu", "tpu"])
def test_auto_on_accelerators_is_bf16_whatever_the_host_cpu(device):
    assert precision.resolve("auto", device=device, cpu_flags=ZEN3)[0] == "bf16"


def test_tpu_strategy_is_bf16_without_probing_devices(monkeypatch):
    monkeypatch.setattr(precision, "read_cpu_flags", lambda: pytest.fail("probed the CPU"))
    assert precision.accelerator("tpu") == "tpu"
    assert precision.resolve("auto", distribution_strategy="tpu")[0] == "bf16"


@pytest.mark.parametrize("requested", ["none", "fp16"])
def test_explicit_choices_are_kept(requested):
    assert precision.resolve(requested, device="cpu", cpu_flags=SAPPHIRE_RAPIDS)[0] == requested


def test_explicit_bf16_on_emulating_cpu_is_kept_with_a_warning(caplog):
    with caplog.at_level(logging.INFO, logger="absl"):  # absl may have set its own level
        assert precision.resolve("bf16", device="cpu", cpu_flags=ZEN3)[0] == "bf16"
        assert precision.resolve("bf16", device="cpu", cpu_flags=SAPPHIRE_RAPIDS)[0] == "bf16"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "slower than float32" in warnings[0].getMessage()


def test_auto_is_logged_once_with_its_reason(caplog):
    with caplog.at_level(logging.INFO, logger="absl"):  # absl may have set its own level
        for _ in range(3):
            precision.resolve("auto", device="cpu", cpu_flags=ZEN3)
    messages = [r.getMessage() for r in caplog.records if "--mixed_precision=auto" in r.getMessage()]
    assert messages == ["--mixed_precision=auto: CPU without native bf16 (no amx_bf16 or avx512_bf16 "
                        "in /proc/cpuinfo flags): float32"]


def test_unknown_precision_is_a_clear_error():
    with pytest.raises(ValueError, match="mixed_precision must be one of.*'fp8'"):
        precision.resolve("fp8", device="cpu", cpu_flags=ZEN3)


def test_cpu_flags_are_read_from_the_first_processor(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU\nflags\t\t: fpu avx2 amx_bf16\n\n"
                       "processor\t: 1\nflags\t\t: fpu\n")
    assert precision.read_cpu_flags(str(cpuinfo)) == {"fpu", "avx2", "amx_bf16"}
    assert precision.read_cpu_flags(str(tmp_path / "absent")) == frozenset()


@pytest.mark.parametrize("flags,expected", [(ZEN3, "none"), (SAPPHIRE_RAPIDS, "bf16")])
def test_run_options_default_is_auto_and_resolved(monkeypatch, tmp_path, flags, expected):
    from absl import flags as absl_flags

    from training import run_options
    monkeypatch.setattr(precision, "read_cpu_flags", lambda: flags)
    monkeypatch.setattr(precision, "accelerator", lambda strategy=None: "cpu")
    run_options.define_flags()
    assert absl_flags.FLAGS["mixed_precision"].default == "auto"
    options = run_options.RunOptions(output_dir=str(tmp_path), mixed_precision="auto")
    assert options.mixed_precision == expected
    with options.dtype_policy():
        import keras
        assert keras.config.dtype_policy().name == run_options.PRECISIONS[expected]
