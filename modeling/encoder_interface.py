"""What tasks and exports may rely on in an encoder, whatever its family.

An encoder is a functional Keras model called on a dict of the inputs it
declares itself (`encoder.input`, read by `input_specs`): always `input_mask`,
int32 [batch, seq] (1 on real tokens), and what its family reads besides:
BERT's and XLNet's `input_word_ids` and `input_type_ids` (segment ids), a
family without segments no type ids, a character-level one character ids
[batch, seq, characters]. Task models and exports build their inputs from
that declaration, so none of them assumes a family's. It returns a dict of
`ENCODER_OUTPUTS`:
`sequence_output` [batch, seq, hidden], `pooled_output` [batch, hidden] (one
vector per sequence for classification heads: the family defines it) and
`encoder_outputs`, the list of every layer's [batch, seq, hidden]. It has
`config` (with `initializer_range`, `hidden_size`, `max_position_embeddings`,
None for no position limit, and `input_vocab_sizes`, {input name: rows of the
table its ids index}, which exports check ids against), `get_config`
and `from_config`, and is registered as Keras-serializable, so a task model
holding it is rebuilt from its own `get_config` alone. It may list
`fine_tuning_weights`: weights that fine-tuning creates, so a pretrained
checkpoint need not hold them (XLNet's sequence summary). It may define
`auxiliary_loss(inputs, outputs)`: a float32 [batch] loss that fine-tuning
adds to the task's, weighted by `config.auxiliary_loss_weight` (GPT's
language-model loss, `lm_coef`); task models then output it as
`auxiliary_loss`.

A family (`families.registry`) names its config type and encoder; tasks and
exports make an encoder with `build_encoder(config)`, which asks the registry
for the config's family, so none of them names one. `check_encoder` says what
a new encoder still lacks.
"""

from families import registry

ENCODER_OUTPUTS = ("sequence_output", "pooled_output", "encoder_outputs")
CONFIG_FIELDS = ("initializer_range", "hidden_size", "max_position_embeddings", "input_vocab_sizes")


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


def input_specs(encoder):
    """{input name: (shape after the batch axis, dtype)} that `encoder` declares."""
    return {name: (tuple(tensor.shape[1:]), tensor.dtype) for name, tensor in encoder.input.items()}


def exceeds_positions(config, length):
    """Whether `length` tokens are more than an encoder of `config` takes (a
    family without a position limit, `max_position_embeddings` None, takes any)."""
    limit = config.max_position_embeddings
    return limit is not None and length > limit


def check_encoder(encoder):
    """Raises `TypeError` naming what `encoder` lacks of the interface above."""
    config = getattr(encoder, "config", None)
    lacking = [f"config.{name}" for name in CONFIG_FIELDS if not hasattr(config, name)]
    lacking += [name for name in ("get_config", "from_config") if not hasattr(encoder, name)]
    inputs = getattr(encoder, "input", None)
    if not isinstance(inputs, dict) or "input_mask" not in inputs:
        lacking.append("a dict of declared inputs holding input_mask")
    outputs = getattr(encoder, "output", None)
    if not isinstance(outputs, dict) or set(outputs) != set(ENCODER_OUTPUTS):
        lacking.append(f"outputs {ENCODER_OUTPUTS}")
    if lacking:
        raise TypeError(f"{type(encoder).__name__} is not an encoder: it lacks "
                        + ", ".join(lacking))
