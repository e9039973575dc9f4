"""The systems the comparison pretrains and fine-tunes, as the families declare
them: each registered family whose record names a `comparison` module lists
its `SYSTEMS` there (`contracts.comparison.System`), so a family joins by
declaring its pretraining in its own home, and nothing here names one.
"""

import importlib

from contracts import registry


def all_systems():
    """Every system the registered families declare, in registration order."""
    systems = []
    for family in registry.families():
        if family.comparison:
            systems.extend(importlib.import_module(family.comparison).SYSTEMS)
    names = [s.name for s in systems]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"systems declared twice: {repeated}")
    return tuple(systems)


def select(systems, names):
    """The systems named in `names` (all when None), in declaration order, with
    those they fine-tune or take steps from; an unknown name is an error."""
    by_name = {s.name: s for s in systems}
    if names is None:
        return tuple(systems)
    unknown = sorted(set(names) - set(by_name))
    if unknown:
        raise ValueError(f"unknown systems {unknown}; declared: {', '.join(by_name)}")
    wanted = set(names)
    for name in names:
        needed = by_name[name]
        for other in (needed.pretrained_as, needed.same_steps_as):
            if other:
                wanted.add(other)
    return tuple(s for s in systems if s.name in wanted)
