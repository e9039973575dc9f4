"""What tasks and exports may rely on in an encoder, whatever its family.

An encoder is a Keras model called on a dict of `ENCODER_INPUTS`, int32
[batch, seq]: `input_word_ids`, `input_mask` (1 on real tokens) and
`input_type_ids` (segment ids). It returns a dict of `ENCODER_OUTPUTS`:
`sequence_output` [batch, seq, hidden], `pooled_output` [batch, hidden] (one
vector per sequence for classification heads) and `encoder_outputs`, the list
of every layer's [batch, seq, hidden]. It has `config` (with
`initializer_range`, `hidden_size`, `max_position_embeddings`), `get_config`
and `from_config`, and is registered as Keras-serializable, so a task model
holding it is rebuilt from its own `get_config` alone. It may list
`fine_tuning_weights`: weights that fine-tuning creates, so a pretrained
checkpoint need not hold them (XLNet's sequence summary).

A family (`families.registry`) names its config type and encoder; tasks and
exports make an encoder with `build_encoder(config)`, which asks the registry
for the config's family, so none of them names one. `check_encoder` says what
a new encoder still lacks.
"""

from families import registry

ENCODER_INPUTS = ("input_word_ids", "input_mask", "input_type_ids")
ENCODER_OUTPUTS = ("sequence_output", "pooled_output", "encoder_outputs")
CONFIG_FIELDS = ("initializer_range", "hidden_size", "max_position_embeddings")


def family_of(config):
    """The family name of an encoder config."""
    try:
        return registry.family_of(config).name
    except registry.UnknownFamilyError as e:
        raise TypeError(str(e)) from None


def config_from_dict(family, values, source):
    """The encoder config of `family` from its JSON fields; errors name `source`."""
    try:
        config_type = registry.family(family).config_type
    except registry.UnknownFamilyError as e:
        raise ValueError(f"{source}: {e}") from None
    return config_type.from_dict(values, source=source)


def build_encoder(config, **kwargs):
    """A fresh encoder of `config`'s family; `kwargs` go to its constructor
    (e.g. BERT's `causal_attention`, `dtype`)."""
    try:
        family = registry.family_of(config)
    except registry.UnknownFamilyError as e:
        raise TypeError(str(e)) from None
    return family.build_encoder(config, **kwargs)


def check_encoder(encoder):
    """Raises `TypeError` naming what `encoder` lacks of the interface above."""
    config = getattr(encoder, "config", None)
    lacking = [f"config.{name}" for name in CONFIG_FIELDS if not hasattr(config, name)]
    lacking += [name for name in ("get_config", "from_config") if not hasattr(encoder, name)]
    outputs = getattr(encoder, "output", None)
    if not isinstance(outputs, dict) or set(outputs) != set(ENCODER_OUTPUTS):
        lacking.append(f"outputs {ENCODER_OUTPUTS}")
    if lacking:
        raise TypeError(f"{type(encoder).__name__} is not an encoder: it lacks "
                        + ", ".join(lacking))
