"""The original release's layout (openai/finetune-transformer-lm, `model/`):
`params_shapes.json`, the shapes of its tensors in `names.release_order`, and
`params_0.npy` ... `params_9.npy`, their float32 values raveled, concatenated
and cut into ten shards.

The release holds a pretrained model, so it has no special rows and no
classifier. A fine-tuned model's special rows are written beside, in
`special_embeddings.npy` [n_special, h] (a file of ours: the original kept them
in its own fine-tuning saves), and read back from there; a classifier is not
carried.
"""

import json
import os
import shutil
import tempfile

import numpy as np

from checkpoints.damaged_files import reading
from families.gpt.checkpoints.names import BLOCK_PARTS, release_order
from families.gpt.config import GPTConfig, GPTConfigError
from utils.files import give_default_modes

SHAPES_FILE = "params_shapes.json"
SPECIALS_FILE = "special_embeddings.npy"
NUM_SHARDS = 10
HEAD_SIZE = 64  # the release's n_embd / n_head, which its shapes do not record


def shard_file(n):
    return f"params_{n}.npy"


def is_release_dir(path):
    return os.path.isfile(os.path.join(path, SHAPES_FILE)) and os.path.isfile(os.path.join(path, shard_file(0)))


def read_shapes(path):
    with open(os.path.join(path, SHAPES_FILE), encoding="utf-8") as f:
        shapes = [tuple(shape) for shape in json.load(f)]
    if len(shapes) < 2 or (len(shapes) - 2) % len(BLOCK_PARTS):
        raise GPTConfigError(f"{os.path.join(path, SHAPES_FILE)}: {len(shapes)} tensors is not positions, "
                             f"tokens and {len(BLOCK_PARTS)} per block")
    return shapes


def read_config(path):
    """`GPTConfig` of a release directory's shapes: `n_head` is the release's
    (`n_embd / 64`), `n_special` the rows of `special_embeddings.npy` (else 0).
    A `gpt_config.json` beside the shards says what the shapes cannot."""
    shapes = read_shapes(path)
    (n_ctx, n_embd), (n_vocab, _) = shapes[0], shapes[1]
    specials = os.path.join(path, SPECIALS_FILE)
    n_special = _load(specials, mmap_mode="r").shape[0] if os.path.isfile(specials) else 0
    return GPTConfig(n_vocab=n_vocab, n_special=n_special, n_ctx=n_ctx, n_embd=n_embd,
                     n_head=max(n_embd // HEAD_SIZE, 1), n_layer=(len(shapes) - 2) // len(BLOCK_PARTS))


def _load(path, **kwargs):
    """`np.load`; a damaged file is named."""
    with reading(path, "a NumPy array"):
        return np.load(path, **kwargs)


def read_tensors(path):
    """{original name: float32 array} of a release directory (and its special rows)."""
    shapes = read_shapes(path)
    flat = np.concatenate([_load(os.path.join(path, shard_file(n))).ravel() for n in range(NUM_SHARDS)])
    sizes = [int(np.prod(shape)) for shape in shapes]
    if sum(sizes) != flat.size:
        raise GPTConfigError(f"{path}: the shards hold {flat.size} values, {SHAPES_FILE} says {sum(sizes)}")
    names = release_order((len(shapes) - 2) // len(BLOCK_PARTS))
    parts = np.split(flat, np.cumsum(sizes)[:-1])
    tensors = {name: part.reshape(shape) for name, part, shape in zip(names, parts, shapes)}
    if os.path.isfile(os.path.join(path, SPECIALS_FILE)):
        tensors["model/specials"] = _load(os.path.join(path, SPECIALS_FILE))
    return tensors


def write_dir(tensors, path):
    """Writes the release's files for {original name: array} (every block's
    tensors, positions and tokens; the special rows beside if present) into
    `path`, all at once: they are written to a new directory that then takes
    the place of `path`, or, when `path` exists, moved in one by one with
    `params_shapes.json` last, so a reader finds no shapes before their shards."""
    n_layer = sum(1 for name in tensors if name.endswith("/attn/c_attn/w"))
    names = release_order(n_layer)
    missing = [name for name in names if name not in tensors]
    if missing:
        raise GPTConfigError(f"the release layout needs every tensor; missing {', '.join(missing)}")
    arrays = [np.asarray(tensors[name], dtype=np.float32) for name in names]
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=parent)
    try:
        flat = np.concatenate([a.ravel() for a in arrays])
        for n, shard in enumerate(np.array_split(flat, NUM_SHARDS)):
            np.save(os.path.join(staging, shard_file(n)), shard)
        if "model/specials" in tensors:
            np.save(os.path.join(staging, SPECIALS_FILE), np.asarray(tensors["model/specials"], np.float32))
        with open(os.path.join(staging, SHAPES_FILE), "w", encoding="utf-8") as f:
            json.dump([list(a.shape) for a in arrays], f)
        give_default_modes(staging)
        if not os.path.exists(path):
            os.rename(staging, path)
            return
        stale = os.path.join(path, SPECIALS_FILE)
        if "model/specials" not in tensors and os.path.exists(stale):
            os.remove(stale)
        for name in sorted(os.listdir(staging), key=lambda name: name == SHAPES_FILE):
            os.replace(os.path.join(staging, name), os.path.join(path, name))
    finally:
        shutil.rmtree(staging, ignore_errors=True)
