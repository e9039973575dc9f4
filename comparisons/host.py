"""The host a comparison ran on, as the report states it: lscpu's model name,
CPU count and the flags that decide the speed of its arithmetic (all flags
go to `results.json`), and whether other work shared the machine."""

import os

from benchmarks.common import host_description

ARITHMETIC_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16")


def describe():
    """{model, cpus, flags (all), arithmetic flags, load average at the time}."""
    fields = {}
    for line in host_description().splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    flags = fields.get("Flags", "").split()
    return {"model": fields.get("Model name", "unknown"), "cpus": fields.get("CPU(s)", "unknown"),
            "flags": flags, "arithmetic_flags": [f for f in ARITHMETIC_FLAGS if f in flags],
            "load_average": os.getloadavg()}


def summary(host):
    return (f"{host['model']}, {host['cpus']} CPUs, flags {' '.join(host['arithmetic_flags']) or 'none of note'} "
            f"(load average {host['load_average'][0]:.1f} when the run ended)")
