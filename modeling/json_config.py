"""What every family's config shares: a frozen dataclass read from and written
to a JSON file, with named presets, whose errors name the file and the field."""

import dataclasses
import json
import numbers

from utils.files import atomic_write_text, read_json_object


class ConfigError(ValueError):
    """A config that cannot describe its model; the message names the file and the field."""


class JsonConfig:
    """Mixin for a frozen dataclass config. A subclass sets `error` (its
    ValueError class) and `presets()` (name -> config), and defines
    `from_dict` where its file is not its fields, flat."""

    error = ValueError

    @classmethod
    def from_dict(cls, values, source="config", ignorable=()):
        """The config of `values`, its fields by name; any other key but those
        `ignorable` is an error, as is a field out of range, naming `source`."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known - set(ignorable))
        if unknown:
            raise cls.error(f"{source}: unknown key(s) {unknown}; expected a subset of {sorted(known)}")
        try:
            return cls(**{k: v for k, v in values.items() if k in known})
        except cls.error as e:
            raise cls.error(f"{source}: {e}") from None

    @classmethod
    def presets(cls):
        return {}

    @classmethod
    def from_json_file(cls, path):
        return cls.from_dict(read_json_object(path, cls.error), source=path)

    @classmethod
    def from_preset(cls, name):
        presets = cls.presets()
        if name not in presets:
            raise cls.error(f"unknown preset {name!r}; known presets: {', '.join(sorted(presets))}")
        return presets[name]

    def to_dict(self):
        return dataclasses.asdict(self)

    def to_json_string(self):
        return json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n"

    def to_json_file(self, path):
        atomic_write_text(path, self.to_json_string())

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)

    def check_fields(self, positive_ints=(), non_negative_ints=(), probabilities=(),
                     positive_numbers=(), booleans=()):
        """Raises `error` naming the first field of each kind that is not one:
        an int > 0 (or >= 0), a number in [0, 1) (dropout rates), a number > 0,
        true or false."""
        rules = ((positive_ints, is_int, lambda v: v > 0, "a positive integer"),
                 (non_negative_ints, is_int, lambda v: v >= 0, "a non-negative integer"),
                 (probabilities, is_number, lambda v: 0.0 <= v < 1.0, "in [0, 1)"),
                 (positive_numbers, is_number, lambda v: v > 0, "> 0"),
                 (booleans, lambda v: isinstance(v, bool), lambda v: True, "true or false"))
        for names, kind, in_range, what in rules:
            for name in names:
                value = getattr(self, name)
                if not (kind(value) and in_range(value)):
                    raise self.error(f"{name} must be {what}, got {value!r}")

    def for_fine_tuning(self):
        """The config a task model built from a pretrained checkpoint runs with:
        this one, unless the family records pretraining-only run options."""
        return self


def is_int(value):
    """An integer that is not a bool (JSON's true is not a layer count)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_number(value):
    """A real number that is not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
