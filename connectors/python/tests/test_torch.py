"""Without torch, to_torch and to_pyg say what to do. The tests with real torch and PyG are in
tests/pyg/ (deploy/bin/fanout-test runs them with Debian's python3, where torch is installed)."""

import importlib.util

import numpy as np
import pytest

from fanout_client import to_pyg, to_torch

HAS_TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(HAS_TORCH, reason="torch is installed (tests/pyg/ covers it)")
def test_without_torch_the_error_says_what_to_do():
    with pytest.raises(ImportError, match="to_torch needs PyTorch.*Install torch"):
        to_torch({"ids": np.arange(3)})
    with pytest.raises(ImportError, match="needs PyTorch"):
        to_pyg({"ids": np.arange(3)})
