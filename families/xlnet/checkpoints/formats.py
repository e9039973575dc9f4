"""The checkpoint layouts XLNet reads (the original TF1 release, Hugging Face,
the Model Garden's `XLNetBase`), all read by the original's TF1 names, and how
our own weights of an XLNet are read: by those names too, so that they load
whatever the layers of the model that saved them were called."""

from checkpoints import ours, tf_checkpoint
from checkpoints.formats import CheckpointFormat
from checkpoints.huggingface import read_weight_file
from checkpoints.loader import trainer_weights
from families.xlnet.checkpoints import huggingface
from families.xlnet.checkpoints.hf_names import hf_to_tf1
from families.xlnet.checkpoints.model_garden_names import model_garden_to_tf1, network_root
from families.xlnet.checkpoints.tf1_names import is_xlnet_tf1, with_our_logit_scope, xlnet_tf1_name


def by_tf1_name(by_path):
    """{TF1 name: array} of our weights {variable path: array}."""
    return {xlnet_tf1_name(p)[0]: v for p, v in by_path.items() if xlnet_tf1_name(p)}


def tf1_tensors(path, fmt, untie_r=True):
    """{original TF1 name: array} of an XLNet checkpoint in one of `FORMATS`,
    ours or a trainer's (`untie_r` says how Hugging Face's per-layer biases are
    to be kept)."""
    if fmt == "ours":
        tensors = by_tf1_name(ours.read_weights(path))
    elif fmt == "trainer":
        tensors = by_tf1_name(trainer_weights(path))
    elif fmt == "xlnet_hf":
        tensors = hf_to_tf1(read_weight_file(path), untie_r)
    else:
        tensors = tf_checkpoint.read_tensors(tf_checkpoint.resolve_prefix(path))
        if fmt == "xlnet_model_garden":
            tensors = model_garden_to_tf1(tensors, network_root(tensors))
    return with_our_logit_scope(tensors)


def saved_weights(fmt, by_path, model):
    """Our weights of an XLNet (`fmt` "ours" or "trainer") by TF1 name, or None
    to match them by variable path: a trainer checkpoint of the same model."""
    if fmt == "trainer" and any(v.path in by_path for v in model.weights):
        return None
    return with_our_logit_scope(by_tf1_name(by_path)), xlnet_tf1_name


def _reader(fmt):
    def read(path, model):
        config = getattr(model, "encoder", model).config
        return tf1_tensors(path, fmt, getattr(config, "untie_r", True)), xlnet_tf1_name
    return read


FORMATS = (
    CheckpointFormat("xlnet_hf", lambda path, _: huggingface.is_xlnet_hf_dir(path), _reader("xlnet_hf"),
                     directory=True),
    CheckpointFormat("xlnet_tf1", lambda path, names: names is not None and is_xlnet_tf1(names),
                     _reader("xlnet_tf1")),
    CheckpointFormat("xlnet_model_garden",
                     lambda path, names: names is not None and network_root(names) is not None,
                     _reader("xlnet_model_garden")),
)
