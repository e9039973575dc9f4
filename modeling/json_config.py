"""What every family's config shares: a frozen dataclass read from and written
to a JSON file, with named presets, whose errors name the file and the field."""

import dataclasses
import json

from utils.files import atomic_write_text, read_json_object


class ConfigError(ValueError):
    """A config that cannot describe its model; the message names the file and the field."""


class JsonConfig:
    """Mixin for a frozen dataclass config. A subclass sets `error` (its
    ValueError class) and `presets()` (name -> config) and defines `from_dict`."""

    error = ValueError

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

    def for_fine_tuning(self):
        """The config a task model built from a pretrained checkpoint runs with:
        this one, unless the family records pretraining-only run options."""
        return self
