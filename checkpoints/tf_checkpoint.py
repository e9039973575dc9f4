"""Reading and writing TensorFlow checkpoint bundles as flat {name: array} dicts."""

import os

import numpy as np

from checkpoints.damaged_files import reading

_ATTRIBUTE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def resolve_prefix(path):
    """A checkpoint prefix from a prefix, an `.index` file or a directory (latest)."""
    import tensorflow as tf
    if path.endswith(".index"):
        path = path[: -len(".index")]
    if os.path.isdir(path):
        latest = tf.train.latest_checkpoint(path)
        if latest is None:
            raise FileNotFoundError(f"no TensorFlow checkpoint in directory {path!r}")
        return latest
    if not os.path.exists(path + ".index"):
        raise FileNotFoundError(f"no TensorFlow checkpoint at {path!r} ({path}.index is missing)")
    return path


def is_tf_checkpoint(path):
    try:
        resolve_prefix(path)
        return True
    except FileNotFoundError:
        return False


def list_names(prefix):
    import tensorflow as tf
    with reading(prefix, "a TensorFlow checkpoint"):
        return {name: tuple(shape) for name, shape in tf.train.list_variables(prefix)}


def read_tensors(prefix, names=None):
    """{name: np.ndarray} for `names` (default: every variable) of a checkpoint."""
    import tensorflow as tf
    with reading(prefix, "a TensorFlow checkpoint"):
        reader = tf.train.load_checkpoint(prefix)
        names = names if names is not None else [
            n for n in reader.get_variable_to_shape_map() if n != "_CHECKPOINTABLE_OBJECT_GRAPH"]
    data = ", ".join(sorted(tf.io.gfile.glob(prefix + ".data-*"))) or prefix
    tensors = {}
    for name in names:
        with reading(f"{data} at {name}", "a TensorFlow checkpoint"):
            tensors[name] = np.asarray(reader.get_tensor(name))
    return tensors


def write_name_based(tensors, prefix):
    """Writes a name-based (TF1 `Saver` style) checkpoint; readable by the original
    code's `init_from_checkpoint` and by `tf.train.load_checkpoint`. The bundle is
    written under a temporary prefix, then renamed, index last."""
    import tensorflow as tf
    directory = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(directory, exist_ok=True)
    tmp_prefix = prefix + ".tmp-write"
    names = sorted(tensors)
    tf.raw_ops.SaveV2(
        prefix=tmp_prefix, tensor_names=names, shape_and_slices=[""] * len(names),
        tensors=[tf.constant(tensors[n]) for n in names])
    data_files = tf.io.gfile.glob(tmp_prefix + ".data-*")
    for data_file in data_files:
        os.replace(data_file, prefix + data_file[len(tmp_prefix):])
    os.replace(tmp_prefix + ".index", prefix + ".index")
    with open(os.path.join(directory, "checkpoint.tmp"), "w") as f:
        f.write(f'model_checkpoint_path: "{os.path.basename(prefix)}"\n'
                f'all_model_checkpoint_paths: "{os.path.basename(prefix)}"\n')
    os.replace(os.path.join(directory, "checkpoint.tmp"), os.path.join(directory, "checkpoint"))


def object_key_to_path(key, root):
    """`root/a.Sb.Sc/.ATTRIBUTES/VARIABLE_VALUE` -> `a/b/c` (object-graph escaping)."""
    if not (key.startswith(root + "/") and key.endswith(_ATTRIBUTE_SUFFIX)):
        return None
    escaped = key[len(root) + 1: -len(_ATTRIBUTE_SUFFIX)]
    return escaped.replace(".S", "/").replace("..", ".")


def write_object_based(tensors, prefix):
    """Writes {object key: array} (`a/b/.ATTRIBUTES/VARIABLE_VALUE` keys) with the
    object graph those keys spell, so that `tf.train.Checkpoint(a=...).restore`
    finds each variable by its attribute path; written as `write_name_based` does."""
    from tensorflow.core.protobuf import trackable_object_graph_pb2
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.nodes.add()
    children = [{}]  # per node: local name -> node id
    for key in sorted(tensors):
        if not key.endswith(_ATTRIBUTE_SUFFIX):
            raise ValueError(f"not an object checkpoint key: {key!r}")
        node = 0
        for part in key[: -len(_ATTRIBUTE_SUFFIX)].split("/"):
            local_name = part.replace(".S", "/").replace("..", ".")
            if local_name not in children[node]:
                children[node][local_name] = len(graph.nodes)
                graph.nodes[node].children.add(node_id=len(graph.nodes), local_name=local_name)
                graph.nodes.add()
                children.append({})
            node = children[node][local_name]
        graph.nodes[node].attributes.add(name="VARIABLE_VALUE", full_name=key, checkpoint_key=key)
    write_name_based({**tensors, "_CHECKPOINTABLE_OBJECT_GRAPH": graph.SerializeToString()}, prefix)
