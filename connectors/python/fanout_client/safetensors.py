"""Safetensors codec: the on-wire form of one sampled-subgraph message.

A blob is an 8-byte little-endian header length N, N bytes of JSON header
(``{"name": {"dtype": "I64", "shape": [..], "data_offsets": [b, e]}, ...}``, optionally a
``__metadata__`` string map, space padded), then the little-endian tensor data. Offsets are
relative to the start of the data section and must tile it exactly (the rules of the reference
safetensors implementation), so a blob the trainer accepts is one every safetensors reader accepts.
"""

from __future__ import annotations

import functools
import json
import math
import struct

import numpy as np

__all__ = ["decode", "encode", "DTYPES", "dtype_name"]

#: safetensors dtype name -> little-endian numpy dtype.
DTYPES: dict[str, np.dtype] = {
    "BOOL": np.dtype("?"),
    "U8": np.dtype("u1"),
    "I8": np.dtype("i1"),
    "U16": np.dtype("<u2"),
    "I16": np.dtype("<i2"),
    "F16": np.dtype("<f2"),
    "U32": np.dtype("<u4"),
    "I32": np.dtype("<i4"),
    "F32": np.dtype("<f4"),
    "U64": np.dtype("<u8"),
    "I64": np.dtype("<i8"),
    "F64": np.dtype("<f8"),
}

_NAMES_BY_KIND = {(dt.kind, dt.itemsize): name for name, dt in DTYPES.items()}

# Same cap as the reference implementation: a larger header is a corrupt length field.
_MAX_HEADER_BYTES = 100_000_000


def dtype_name(dtype: np.dtype) -> str:
    """The safetensors name (``"I64"``...) of a numpy dtype; ValueError if it has none."""
    dtype = np.dtype(dtype)
    name = _NAMES_BY_KIND.get((dtype.kind, dtype.itemsize))
    if name is None:
        supported = ", ".join(DTYPES)
        raise ValueError(f"numpy dtype {dtype} has no safetensors equivalent here (supported: {supported})")
    return name


def decode(blob) -> dict[str, np.ndarray]:
    """Parse a safetensors blob into ``{name: array}``, in header order.

    ``blob`` is anything exposing the buffer protocol (bytes, bytearray, memoryview, mmap).
    Arrays are zero-copy views into ``blob`` (writable iff ``blob`` is) unless a tensor's data is
    not aligned to its item size inside the buffer; such a tensor is copied so that every array
    is aligned (torch and vectorised numpy code rely on that).
    Raises ValueError describing the first defect of a malformed blob.
    """
    view = memoryview(blob)
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    total = len(view)
    if total < 8:
        raise ValueError(f"safetensors blob too short: {total} bytes, the header length alone needs 8")
    (header_len,) = struct.unpack_from("<Q", view, 0)
    if header_len > _MAX_HEADER_BYTES:
        raise ValueError(f"safetensors header length {header_len} exceeds the {_MAX_HEADER_BYTES}-byte limit")
    if 8 + header_len > total:
        raise ValueError(
            f"safetensors header length {header_len} runs past the end of the {total}-byte blob")
    data_start = 8 + header_len
    raw_header = bytes(view[8:data_start])
    layout = _layout if header_len <= _MAX_CACHED_HEADER_BYTES else _layout.__wrapped__
    entries = layout(raw_header, total - data_start)
    out: dict[str, np.ndarray] = {}
    for begin, _, name, dtype, shape in entries:
        # One constructor call per tensor (not a slice, frombuffer and reshape): a view of the
        # validated span, read-only iff the blob is.
        array = np.ndarray(shape, dtype, view, data_start + begin)
        if not array.flags.aligned:
            array = array.copy()
        out[name] = array
    return out


_MAX_CACHED_HEADER_BYTES = 16 << 10

# Messages of one job mostly share a few layouts (same tensors, same shapes): a repeated header is
# parsed and validated once. Exceptions are not cached, so a bad header is reported every time.
@functools.lru_cache(maxsize=256)
def _layout(raw_header: bytes, data_len: int) -> tuple:
    """The validated (begin, end, name, dtype, shape) entries of a header, in header order."""
    try:
        header = json.loads(raw_header.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"safetensors header is not valid UTF-8 JSON: {e}") from None
    if not isinstance(header, dict):
        raise ValueError(f"safetensors header must be a JSON object, got {type(header).__name__}")

    entries = []  # (begin, end, name, dtype, shape)
    for name, info in header.items():
        if name == "__metadata__":
            if not isinstance(info, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in info.items()):
                raise ValueError("safetensors __metadata__ must be an object of string to string")
            continue
        if not isinstance(info, dict):
            raise ValueError(f"tensor {name!r}: header entry must be an object, got {info!r}")
        dtype_str = info.get("dtype")
        if dtype_str not in DTYPES:
            raise ValueError(
                f"tensor {name!r}: unsupported dtype {dtype_str!r} (supported: {', '.join(DTYPES)})")
        shape = info.get("shape")
        if not isinstance(shape, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
            raise ValueError(f"tensor {name!r}: shape must be a list of non-negative integers, got {shape!r}")
        offsets = info.get("data_offsets")
        if (not isinstance(offsets, list) or len(offsets) != 2 or not all(
                isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
            raise ValueError(f"tensor {name!r}: data_offsets must be [begin, end], got {offsets!r}")
        begin, end = offsets
        if not 0 <= begin <= end <= data_len:
            raise ValueError(
                f"tensor {name!r}: data_offsets [{begin}, {end}] outside the {data_len}-byte data section")
        dtype = DTYPES[dtype_str]
        expected = math.prod(shape) * dtype.itemsize
        if end - begin != expected:
            raise ValueError(
                f"tensor {name!r}: {dtype_str} shape {shape} needs {expected} bytes "
                f"but data_offsets [{begin}, {end}] span {end - begin}")
        entries.append((begin, end, name, dtype, tuple(shape)))

    # The data section must be tiled exactly: no overlaps, no gaps, nothing trailing.
    position = 0
    for begin, end, name, _, _ in sorted(entries, key=lambda e: (e[0], e[1])):
        if begin != position:
            kind = "overlaps the previous tensor" if begin < position else f"leaves a gap after byte {position}"
            raise ValueError(f"tensor {name!r}: data_offsets [{begin}, {end}] {kind}")
        position = end
    if position != data_len:
        raise ValueError(
            f"safetensors data section has {data_len} bytes but the tensors cover only {position}")
    return tuple(entries)


def encode(tensors: dict, metadata: dict[str, str] | None = None) -> bytes:
    """Serialise ``{name: array}`` as a safetensors blob, byte-for-byte deterministic.

    Header keys are sorted by name; data is laid out by descending item size, then name, so every
    tensor stays aligned to its item size; the header is space padded so ``8 + N`` is a multiple
    of 8. Values may be anything ``np.asarray`` accepts; the dtype must be one of DTYPES.
    """
    arrays = {}
    for name in tensors:
        if not isinstance(name, str):
            raise ValueError(f"tensor names must be strings, got {name!r}")
        if name == "__metadata__":
            raise ValueError("'__metadata__' is reserved; pass metadata=... instead")
        array = np.asarray(tensors[name])
        dtype_name(array.dtype)  # validates
        arrays[name] = array

    layout = sorted(arrays, key=lambda n: (-arrays[n].dtype.itemsize, n))
    header: dict[str, object] = {}
    chunks = []
    position = 0
    for name in layout:
        array = arrays[name]
        data = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": dtype_name(array.dtype), "shape": list(array.shape),
                        "data_offsets": [position, position + len(data)]}
        chunks.append(data)
        position += len(data)

    ordered: dict[str, object] = {}
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ValueError("metadata must map strings to strings")
        ordered["__metadata__"] = dict(sorted(metadata.items()))
    for name in sorted(header):
        ordered[name] = header[name]
    header_bytes = json.dumps(ordered, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    header_bytes += b" " * (-(8 + len(header_bytes)) % 8)
    return b"".join([struct.pack("<Q", len(header_bytes)), header_bytes, *chunks])
