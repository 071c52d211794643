"""uint8 features back to float32: ``offset + scale * q`` per column, the one kernel behind ``to_pyg``, the typed
``to_hetero_data`` and the process prefetcher.

The values are exactly those of ``q.astype(np.float32) * scale + offset`` in numpy (a float32 product, then a
float32 sum: no fused multiply-add), which ``dequantise`` reproduces on the GPU. Done that way in three whole-array
passes, a cora batch (1,900 x 1,433) costs about 1.6 ms of CPU: each pass streams 11 MB through memory, and
numpy's broadcasting of a 1,433-entry row restarts its inner loop on every row. Here the rows are taken a few
at a time against the scale and offset repeated as many times (long inner loops), in blocks that stay in the
CPU's L2 cache for all three passes: about 0.9 ms once the process's heap has grown, in a loop of nothing else (its
first batches also pay the page faults of fresh memory, either way; right after a training step, whose data fills
the caches, about 2 ms, where filling the float32 output with zeros alone takes over 1 ms).
"""

from __future__ import annotations

import numpy as np

__all__ = ["dequantise_uint8"]

# Elements per inner loop: rows are grouped until a group holds at least this many.
_GROUP_ELEMENTS = 8192
# float32 bytes per block: the three passes over a block run while it is in L2 (measured best at 256-512 KiB).
_BLOCK_BYTES = 256 << 10


def dequantise_uint8(q: np.ndarray, scale, offset, out: np.ndarray | None = None) -> np.ndarray:
    """``offset + scale * q`` per column of the 2-D uint8 ``q`` as float32, written into ``out`` (a new array when
    None; else a float32 array of ``q``'s shape, best C-contiguous) and returned. ``scale`` and ``offset`` hold one
    float32 per column."""
    n, d = q.shape
    scale = np.asarray(scale, dtype=np.float32)
    offset = np.asarray(offset, dtype=np.float32)
    if scale.shape != (d,) or offset.shape != (d,):
        raise ValueError(f"uint8 features are {list(q.shape)} but their scale is {list(scale.shape)} and offset "
                         f"{list(offset.shape)}: one entry per column expected")
    if out is None:
        out = np.empty((n, d), dtype=np.float32)
    if n == 0 or d == 0:
        return out
    group = -(-_GROUP_ELEMENTS // d)  # rows per inner loop
    grouped = n // group * group if q.flags.c_contiguous and out.flags.c_contiguous else 0
    if grouped:
        width = group * d
        qg, xg = q[:grouped].reshape(-1, width), out[:grouped].reshape(-1, width)
        scales, offsets = np.tile(scale, group), np.tile(offset, group)
        step = max(1, _BLOCK_BYTES // (4 * width))
        for i in range(0, len(qg), step):
            _affine(qg[i:i + step], scales, offsets, xg[i:i + step])
    if grouped < n:  # the last rows (fewer than a group), or all rows of a strided array
        _affine(q[grouped:], scale, offset, out[grouped:])
    return out


def _affine(q, scale, offset, out) -> None:
    np.copyto(out, q, casting="unsafe")
    np.multiply(out, scale, out=out)
    np.add(out, offset, out=out)
