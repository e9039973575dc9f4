"""Two-way renaming between two checkpoint layouts, written once as templates.

A rule pairs a name in layout A with its name in layout B, `{field}` standing for
one name component (a layer number, a projection) that both share, and the axes
by which A's array is transposed to give B's (None: stored alike). The same rule
reads both ways, so no layout needs a second, inverse table.
"""

import re

import numpy as np

_FIELD = re.compile(r"\{(\w+)\}")


def _compile(template):
    parts = _FIELD.split(template)
    pattern = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>[A-Za-z0-9_]+)" for i, p in enumerate(parts))
    return re.compile(pattern)


def _inverse(axes):
    return None if axes is None else tuple(int(a) for a in np.argsort(axes))


class NameTable:
    """Renames layout A's {name: array} to layout B's and back, transposing where
    the layouts differ; names no rule knows are returned apart, for the caller to
    report. The first matching rule wins."""

    def __init__(self, rules):
        self._rules = [(_compile(a), a, _compile(b), b, axes) for a, b, axes in rules]

    def to_b(self, name):
        """(B name, axes to transpose A's array by) or None."""
        for pattern_a, _, _, template_b, axes in self._rules:
            match = pattern_a.fullmatch(name)
            if match:
                return template_b.format(**match.groupdict()), axes
        return None

    def to_a(self, name):
        """(A name, axes to transpose B's array by) or None."""
        for _, template_a, pattern_b, _, axes in self._rules:
            match = pattern_b.fullmatch(name)
            if match:
                return template_a.format(**match.groupdict()), _inverse(axes)
        return None

    def convert(self, tensors, to_b=True):
        """({renamed: array}, [names no rule knows])."""
        out, unknown = {}, []
        for name, value in tensors.items():
            where = self.to_b(name) if to_b else self.to_a(name)
            if where is None:
                unknown.append(name)
                continue
            value = np.asarray(value)
            out[where[0]] = value if where[1] is None else np.ascontiguousarray(value.transpose(where[1]))
        return out, unknown
