"""Optional PyTorch conversion; torch is imported only when asked for."""

from __future__ import annotations

import importlib

import numpy as np

from .message import Message

__all__ = ["to_torch"]


def _import_torch():
    try:
        return importlib.import_module("torch")
    except ImportError as e:
        raise ImportError(
            f"fanout_client.to_torch needs PyTorch, which is not importable here ({e}). Install torch, "
            "or keep the numpy arrays (what a reader without transform= yields).") from e


def to_torch(msg: dict, pin_memory: bool = False) -> Message:
    """Convert every numpy array of ``msg`` to a torch tensor sharing its memory
    (``torch.from_numpy``); ``pin_memory=True`` copies each into page-locked memory for fast
    host-to-GPU transfer. Read-only or non-native-byte-order arrays are copied first (torch needs
    writable, native arrays). Keeps ``epoch``/``batch_id``/... when ``msg`` is a Message."""
    torch = _import_torch()
    out = {}
    for name, value in msg.items():
        if isinstance(value, np.ndarray):
            if not value.dtype.isnative:
                value = value.astype(value.dtype.newbyteorder("="))
            elif not value.flags.writeable or not value.flags.aligned:
                value = value.copy()
            try:
                value = torch.from_numpy(value)
            except TypeError as e:
                raise TypeError(f"tensor {name!r}: torch cannot hold numpy {value.dtype}: {e}") from None
            if pin_memory:
                value = value.pin_memory()
        out[name] = value
    if isinstance(msg, Message):
        return msg.with_tensors(out)
    return Message(out)
