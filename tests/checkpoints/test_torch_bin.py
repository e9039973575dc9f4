"""`pytorch_model.bin` read without torch equals what torch itself saved."""

import numpy as np
import pytest

from checkpoints.torch_bin import load_torch_bin

torch = pytest.importorskip("torch")


def test_reads_tensors_saved_by_torch(tmp_path):
    state = {"a.weight": torch.randn(3, 4), "b.bias": torch.arange(5, dtype=torch.int64),
             "c.half": torch.randn(2, 2).half(), "d.transposed": torch.randn(4, 3).t(),
             "e.bf16": torch.randn(3).bfloat16(), "f.scalar": torch.tensor(2.5)}
    path = tmp_path / "pytorch_model.bin"
    torch.save(state, path)
    loaded = load_torch_bin(str(path))
    assert set(loaded) == set(state)
    for name, tensor in state.items():
        np.testing.assert_array_equal(loaded[name], tensor.float().numpy() if tensor.dtype == torch.bfloat16
                                      else tensor.numpy(), err_msg=name)


def test_refuses_arbitrary_objects(tmp_path):
    path = tmp_path / "evil.bin"
    torch.save({"x": torch.ones(1), "y": {1, 2}}, path)
    with pytest.raises(Exception, match="refusing"):
        load_torch_bin(str(path))
