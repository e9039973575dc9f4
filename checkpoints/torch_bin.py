"""Reads `pytorch_model.bin` (PyTorch's zip + pickle format) into numpy without torch.

Only tensors are rebuilt; any other object in the pickle is refused, so
loading an untrusted file cannot execute code.
"""

import pickle
import zipfile

import numpy as np

_STORAGE_DTYPES = {
    "FloatStorage": np.float32, "HalfStorage": np.float16, "DoubleStorage": np.float64,
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "ByteStorage": np.uint8, "CharStorage": np.int8, "BoolStorage": np.bool_,
    "BFloat16Storage": "bfloat16",
}


def _rebuild_tensor(storage, offset, size, stride, *unused):
    if not size:
        return storage[offset:offset + 1].reshape(()).copy()
    itemsize = storage.itemsize
    return np.lib.stride_tricks.as_strided(
        storage[offset:], shape=tuple(size), strides=tuple(s * itemsize for s in stride)).copy()


class _StorageType:
    def __init__(self, name):
        self.name = name


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, archive, root):
        super().__init__(file)
        self.archive, self.root = archive, root

    def find_class(self, module, name):
        if module == "torch._utils" and name in ("_rebuild_tensor_v2", "_rebuild_tensor"):
            return _rebuild_tensor
        if module == "torch" and name in _STORAGE_DTYPES:
            return _StorageType(name)
        if module == "collections" and name == "OrderedDict":
            import collections
            return collections.OrderedDict
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a checkpoint")

    def persistent_load(self, pid):
        _, storage_type, key, _location, _numel = pid
        dtype = _STORAGE_DTYPES[storage_type.name]
        raw = self.archive.read(f"{self.root}/data/{key}")
        if dtype == "bfloat16":
            bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
            return bits.view(np.float32)
        return np.frombuffer(raw, dtype=dtype)


def load_torch_bin(path):
    """{name: np.ndarray} from a PyTorch state-dict file (bf16 widened to float32)."""
    with zipfile.ZipFile(path) as archive:
        pickles = [n for n in archive.namelist() if n.endswith("/data.pkl")]
        if not pickles:
            raise ValueError(f"{path}: not a PyTorch zip checkpoint (no data.pkl)")
        root = pickles[0][: -len("/data.pkl")]
        with archive.open(pickles[0]) as f:
            state = _Unpickler(f, archive, root).load()
    return {k: np.asarray(v) for k, v in state.items()}
