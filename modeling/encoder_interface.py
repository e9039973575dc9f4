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

A family has a name (`FAMILIES`), which also picks its text side
(`data.text.families`: tokenizer, special tokens, segment packing) and is
what `export_meta.json` records. `families.bert.encoder.BertEncoder` is the first
family that implements this, `families.xlnet.encoder.XLNetEncoder` the
second; `check_encoder` says what a new one still lacks.
Tasks and exports make an encoder with `build_encoder(config)`, which picks
the family by the config's type (`ENCODERS`), so none of them names a family.
"""

from families.bert.config import BertConfig
from families.bert.encoder import BertEncoder
from families.xlnet.config import XLNetConfig
from families.xlnet.encoder import XLNetEncoder

ENCODER_INPUTS = ("input_word_ids", "input_mask", "input_type_ids")
ENCODER_OUTPUTS = ("sequence_output", "pooled_output", "encoder_outputs")
CONFIG_FIELDS = ("initializer_range", "hidden_size", "max_position_embeddings")
# A family's config type -> its encoder class.
ENCODERS = {BertConfig: BertEncoder, XLNetConfig: XLNetEncoder}
FAMILIES = {"bert": BertConfig, "xlnet": XLNetConfig}  # A family's name -> its config type.


def family_of(config):
    """The family name of an encoder config."""
    for name, config_type in FAMILIES.items():
        if type(config) is config_type:
            return name
    raise TypeError(f"no encoder family has a {type(config).__name__}; expected one of "
                    + ", ".join(c.__name__ for c in FAMILIES.values()))


def config_from_dict(family, values, source):
    """The encoder config of `family` from its JSON fields; errors name `source`."""
    if family not in FAMILIES:
        raise ValueError(f"{source}: unknown encoder family {family!r}; expected one of "
                         f"{sorted(FAMILIES)}")
    return FAMILIES[family].from_dict(values, source=source)


def build_encoder(config, **kwargs):
    """A fresh encoder of `config`'s family; `kwargs` go to its constructor
    (e.g. BERT's `causal_attention`, `dtype`)."""
    if type(config) not in ENCODERS:
        raise TypeError(f"no encoder for a {type(config).__name__}; expected one of "
                        + ", ".join(c.__name__ for c in ENCODERS))
    return ENCODERS[type(config)](config, **kwargs)


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
