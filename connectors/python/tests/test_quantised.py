"""dequantise_uint8 gives exactly the float32 values of the plain three-pass numpy formula, for any shape."""

import numpy as np
import pytest

from fanout_client.quantised import dequantise_uint8


def plain(q, scale, offset):
    x = q.astype(np.float32)
    x *= scale
    x += offset
    return x


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (1, 1), (7, 3), (1000, 1), (9, 8193), (1909, 1433), (3000, 100)])
def test_same_bits_as_the_plain_formula(shape):
    rng = np.random.default_rng(sum(shape))
    q = rng.integers(0, 256, size=shape, dtype=np.uint8)
    scale = rng.normal(0, 3, size=shape[1]).astype(np.float32)
    offset = rng.normal(0, 100, size=shape[1]).astype(np.float32)
    x = dequantise_uint8(q, scale, offset)
    assert x.dtype == np.float32 and x.shape == shape
    assert np.array_equal(x.view(np.uint32), plain(q, scale, offset).view(np.uint32))


def test_strided_input_and_given_output():
    rng = np.random.default_rng(1)
    q = rng.integers(0, 256, size=(500, 90), dtype=np.uint8)[:, ::3]  # not contiguous: the row-by-row path
    scale, offset = rng.random(30, dtype=np.float32), rng.random(30, dtype=np.float32)
    out = np.full((500, 30), np.nan, dtype=np.float32)
    assert dequantise_uint8(q, scale, offset, out=out) is out
    assert np.array_equal(out.view(np.uint32), plain(q, scale, offset).view(np.uint32))
    fortran = np.asfortranarray(rng.integers(0, 256, size=(400, 50), dtype=np.uint8))
    scale, offset = rng.random(50, dtype=np.float32), rng.random(50, dtype=np.float32)
    assert np.array_equal(dequantise_uint8(fortran, scale, offset), plain(fortran, scale, offset))


def test_scale_of_another_width_is_refused():
    q = np.zeros((4, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match=r"\[4, 3\] but their scale is \[2\]"):
        dequantise_uint8(q, np.ones(2, np.float32), np.zeros(3, np.float32))
