"""decode/encode: the safetensors codec of one message."""

import json
import struct

import numpy as np
import pytest

from fanout_client import DTYPES, decode, dtype_name, encode


def raw(header: dict, data: bytes = b"", pad: int = 0) -> bytes:
    """A blob from a hand-written header (not via encode), for golden and malformed cases."""
    text = json.dumps(header).encode() + b" " * pad
    return struct.pack("<Q", len(text)) + text + data


def sample_values(name: str, shape):
    dtype = DTYPES[name]
    n = int(np.prod(shape))
    if dtype.kind == "b":
        values = np.arange(n) % 3 == 0
    elif dtype.kind == "f":
        values = np.linspace(-2.5, 1e3, n) if n else np.zeros(0)
        if n >= 3:
            values[:3] = [np.inf, -0.0, 0.5]
    else:
        info = np.iinfo(dtype)
        values = np.resize(np.array([info.min, info.max, 0, 1], dtype=dtype), n)
    return np.asarray(values, dtype=dtype).reshape(shape)


@pytest.mark.parametrize("name", sorted(DTYPES))
@pytest.mark.parametrize("shape", [(5,), (2, 3), (), (0,), (2, 0, 3)], ids=["1d", "2d", "scalar", "empty", "empty3d"])
def test_round_trip_every_dtype_and_shape(name, shape):
    array = sample_values(name, shape)
    decoded = decode(encode({"x": array}))
    assert list(decoded) == ["x"]
    out = decoded["x"]
    assert out.shape == shape
    assert dtype_name(out.dtype) == name
    np.testing.assert_array_equal(out, array)
    if array.dtype.kind == "f" and array.size >= 3:
        assert np.signbit(out.reshape(-1)[1])  # -0.0 kept bit-exact


def test_round_trip_of_a_glt_message_with_every_dtype_together():
    tensors = {name.lower(): sample_values(name, (3,)) for name in DTYPES}
    tensors["#META.epoch"] = np.array(2, dtype=np.int64)
    tensors["num_sampled_nodes"] = np.array([1, 3, 7], dtype=np.int64)
    decoded = decode(encode(tensors))
    assert set(decoded) == set(tensors)
    for name, array in tensors.items():
        assert decoded[name].dtype == array.dtype
        np.testing.assert_array_equal(decoded[name], array)
        assert decoded[name].flags.aligned


def test_golden_blob_decodes():
    # Hand-written: I32 [1, -1], a U8 scalar 7, F16 [1.0, -2.0], BOOL [true, false]; metadata ignored.
    header = (b'{"__metadata__":{"format":"glt"},'
              b'"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},'
              b'"h":{"dtype":"F16","shape":[2],"data_offsets":[8,12]},'
              b'"m":{"dtype":"BOOL","shape":[2],"data_offsets":[12,14]},'
              b'"s":{"dtype":"U8","shape":[],"data_offsets":[14,15]}}')
    header += b" " * (-(8 + len(header)) % 8)
    data = b"\x01\x00\x00\x00\xff\xff\xff\xff" + b"\x00\x3c\x00\xc0" + b"\x01\x00" + b"\x07"
    blob = struct.pack("<Q", len(header)) + header + data
    out = decode(blob)
    assert list(out) == ["a", "h", "m", "s"]
    assert out["a"].dtype == np.int32 and out["a"].tolist() == [1, -1]
    assert out["h"].dtype == np.float16 and out["h"].tolist() == [1.0, -2.0]
    assert out["m"].dtype == np.bool_ and out["m"].tolist() == [True, False]
    assert out["s"].shape == () and out["s"].dtype == np.uint8 and int(out["s"]) == 7


def test_golden_encode_bytes():
    blob = encode({"b": np.array([3], dtype=np.uint8), "a": np.array([1, -1], dtype=np.int32)})
    header = b'{"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"U8","shape":[1],"data_offsets":[8,9]}}'
    header += b" " * (-(8 + len(header)) % 8)
    assert blob == struct.pack("<Q", len(header)) + header + b"\x01\x00\x00\x00\xff\xff\xff\xff\x03"


def test_encode_is_deterministic_padded_and_aligned():
    a = {"z": np.arange(3, dtype=np.uint8), "y": np.arange(4, dtype=np.float64), "x": np.arange(2, dtype=np.int16)}
    b = dict(reversed(list(a.items())))
    assert encode(a) == encode(b)
    blob = encode(a)
    (n,) = struct.unpack_from("<Q", blob)
    assert (8 + n) % 8 == 0
    header = json.loads(blob[8:8 + n])
    assert list(header) == ["x", "y", "z"]  # names sorted
    for name, info in header.items():
        assert (8 + n + info["data_offsets"][0]) % a[name].dtype.itemsize == 0


def test_encode_writes_little_endian_from_big_endian_arrays():
    blob = encode({"v": np.array([1, 256], dtype=">i4")})
    assert blob.endswith(b"\x01\x00\x00\x00\x00\x01\x00\x00")
    assert decode(blob)["v"].tolist() == [1, 256]


def test_encode_metadata_round_trip():
    blob = encode({"ids": np.arange(2)}, metadata={"producer": "fanout"})
    (n,) = struct.unpack_from("<Q", blob)
    assert json.loads(blob[8:8 + n])["__metadata__"] == {"producer": "fanout"}
    assert list(decode(blob)) == ["ids"]


def test_decode_is_zero_copy_views_of_the_buffer():
    buffer = bytearray(encode({"ids": np.array([5, 6, 7], dtype=np.int64)}))
    ids = decode(buffer)["ids"]
    assert ids.flags.writeable
    buffer[-8:] = struct.pack("<q", 99)
    assert ids.tolist() == [5, 6, 99]  # a view, not a copy
    assert not decode(bytes(buffer))["ids"].flags.writeable
    assert decode(memoryview(buffer))["ids"].tolist() == [5, 6, 99]


def test_misaligned_tensor_is_copied_into_an_aligned_array():
    # A U8 of 1 byte first puts the I64 at an odd address: numpy/torch want it aligned.
    data = b"\x09" + struct.pack("<qq", -3, 1 << 40)
    blob = raw({"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
                "b": {"dtype": "I64", "shape": [2], "data_offsets": [1, 17]}}, data)
    out = decode(blob)
    assert out["b"].flags.aligned and out["b"].tolist() == [-3, 1 << 40]
    assert out["a"].tolist() == [9]


OK_I64 = {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}
EIGHT = b"\x00" * 8


@pytest.mark.parametrize("blob, problem", [
    (b"\x01\x02", "too short"),
    (struct.pack("<Q", 50) + b"{}", "runs past the end"),
    (struct.pack("<Q", 1 << 40) + b"{}", "exceeds"),
    (struct.pack("<Q", 4) + b"{xx}", "not valid UTF-8 JSON"),
    (struct.pack("<Q", 2) + b"\xff\xfe", "not valid UTF-8 JSON"),
    (raw([1, 2]), "must be a JSON object"),
    (raw({"x": 5}), "header entry must be an object"),
    (raw({"x": {**OK_I64, "dtype": "BF16"}}, EIGHT), "unsupported dtype 'BF16'"),
    (raw({"x": {**OK_I64, "dtype": None}}, EIGHT), "unsupported dtype None"),
    (raw({"x": {**OK_I64, "shape": [-1]}}, EIGHT), "shape must be a list of non-negative integers"),
    (raw({"x": {**OK_I64, "shape": "1"}}, EIGHT), "shape must be a list"),
    (raw({"x": {"dtype": "I64", "shape": [1]}}, EIGHT), "data_offsets must be"),
    (raw({"x": {**OK_I64, "data_offsets": [0]}}, EIGHT), "data_offsets must be"),
    (raw({"x": {**OK_I64, "data_offsets": [0, 16]}}, EIGHT), "outside the 8-byte data section"),
    (raw({"x": {**OK_I64, "data_offsets": [8, 0]}}, EIGHT), "outside"),
    (raw({"x": {**OK_I64, "shape": [2]}}, EIGHT), "needs 16 bytes"),
    (raw({"x": OK_I64, "y": OK_I64}, EIGHT), "overlaps"),
    (raw({"x": {**OK_I64, "data_offsets": [8, 16]}}, EIGHT * 2), "leaves a gap"),
    (raw({"x": OK_I64}, EIGHT + b"\x00"), "cover only 8"),
    (raw({"__metadata__": {"k": 1}}), "__metadata__ must be"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_malformed_blobs_are_rejected(blob, problem):
    with pytest.raises(ValueError, match=problem.replace("(", r"\(")):
        decode(blob)


def test_tensor_error_names_the_tensor():
    with pytest.raises(ValueError, match="tensor 'rows'"):
        decode(raw({"rows": {**OK_I64, "shape": [3]}}, EIGHT))


@pytest.mark.parametrize("value, problem", [
    (np.array([1 + 2j]), "complex128 has no safetensors equivalent"),
    (np.array(["a"]), "has no safetensors equivalent"),
    (np.array([object()]), "has no safetensors equivalent"),
])
def test_encode_rejects_unsupported_dtypes(value, problem):
    with pytest.raises(ValueError, match=problem):
        encode({"x": value})


def test_encode_rejects_bad_names():
    with pytest.raises(ValueError, match="must be strings"):
        encode({1: np.arange(2)})
    with pytest.raises(ValueError, match="reserved"):
        encode({"__metadata__": np.arange(2)})
