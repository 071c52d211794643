"""Process prefetching: a worker process receives, decodes and dequantises, the trainer only wraps.

``prefetch(source)`` (a thread) overlaps the feed with the step but shares the trainer's interpreter:
its Python work (decoding, ``to_pyg``) takes the GIL from the training loop, and every message gets a
fresh feature matrix (page faults, zeroing). ``ProcessPrefetcher(open_source)`` (or
``prefetch(open_source, process=True)``) runs the reader in a separate process instead:

- ``open_source`` is a callable returning the reader (e.g. ``functools.partial(ChannelClient,
  registry=...)``); it is called in the worker, which then owns the sockets or rings. The reader must
  yield numpy messages (no ``transform`` of its own).
- The worker writes each message's arrays into a shared-memory buffer (a Linux ``memfd``, handed over
  once through a Unix socket and reused), dequantising uint8 ``nfeats`` (and, for ``x_dtype="float32"``,
  widening float16) straight into float32 there; with ``x_dtype=None`` float16 stays, and
  ``transform=functools.partial(to_pyg, x_dtype=None)`` keeps it in the ``Data`` too. The trainer maps the buffer and gets ``Message`` arrays
  that are views of it (no pickling, no copy); ``transform`` (e.g. ``to_pyg``, which wraps them with
  ``torch.from_numpy``) is applied to that message in the trainer: torch objects cannot cross the process
  boundary, the arrays in shared memory do, and the transform only wraps them.
- A buffer goes back to the worker when the last array or tensor viewing it is garbage collected, so
  batches may be kept as long as wanted (the worker then maps more buffers). At most ``depth`` messages
  are read ahead of the loop.
- The reader's exceptions (``SamplingError``, ``ChannelStallError``, ...) are raised in the loop at their
  place in the stream, then iteration ends (as with the thread). ``worker_cpus`` pins the worker
  (``os.sched_setaffinity``), e.g. away from the trainer's core.

Linux only (``memfd_create``, ``SCM_RIGHTS``). The worker is started with ``start_method`` (default
"fork": the callable need not be picklable; with "spawn"/"forkserver" it must be).
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import pickle
import socket
import traceback
import weakref
from contextlib import ExitStack

import numpy as np

from .message import Message
from .quantised import dequantise_uint8
from .reader import check_transform

__all__ = ["ProcessPrefetcher"]

_ALIGN = 64  # every array starts on a cache line: aligned for any dtype, no false sharing
_MAX_DESCRIPTOR = 1 << 16  # names, dtypes, shapes and offsets of a message's arrays: ~1 KB
_SCALE, _OFFSET = "#META.nfeats_scale", "#META.nfeats_offset"
# Control messages from the trainer to the worker (SOCK_SEQPACKET keeps them apart).
_TOOK, _FREE = b"T", b"F"


def _aligned(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


def _portable(error: BaseException) -> bytes:
    """``error`` pickled for the trainer; exceptions whose ``__init__`` takes other arguments than
    ``args`` (e.g. ``SamplingError``) are rebuilt from their class, args and attributes."""
    text = "".join(traceback.format_exception(error))
    try:
        blob = pickle.dumps(error)
        pickle.loads(blob)
        return pickle.dumps(("pickled", blob, text))
    except Exception:  # noqa: BLE001 - fall back to the parts
        pass
    try:
        return pickle.dumps(("parts", (type(error), error.args, dict(vars(error))), text))
    except Exception:  # noqa: BLE001 - attributes not picklable either
        return pickle.dumps(("parts", (RuntimeError, (f"{type(error).__name__}: {error}",), {}), text))


def _rebuild_error(blob: bytes) -> BaseException:
    kind, payload, text = pickle.loads(blob)
    if kind == "pickled":
        error = pickle.loads(payload)
    else:
        cls, args, attributes = payload
        error = cls.__new__(cls)
        error.args = args
        error.__dict__.update(attributes)
    if hasattr(error, "add_note"):
        error.add_note("raised in the prefetch worker process:\n" + text)
    return error


class _Slots:
    """The worker's shared buffers: memfd + mmap each, free ones reused when large enough."""

    def __init__(self):
        self.maps: dict[int, tuple] = {}  # id -> (mmap, capacity)
        self.free: list[int] = []
        self._next_id = 0

    def take(self, size: int):
        """(slot id, mmap, fd to hand over or None, ids the trainer should forget)."""
        fits = [k for k in self.free if self.maps[k][1] >= size]
        if fits:
            k = min(fits, key=lambda k: self.maps[k][1])
            self.free.remove(k)
            return k, self.maps[k][0], None, []
        retired = []
        if self.free:  # too small for this message: drop the smallest free one instead of keeping it
            k = min(self.free, key=lambda k: self.maps[k][1])
            self.free.remove(k)
            self.maps.pop(k)[0].close()
            retired.append(k)
        capacity = max(_aligned(size + size // 4), 1 << 16)  # headroom: batch sizes vary a little
        fd = os.memfd_create("fanout-prefetch", os.MFD_CLOEXEC)
        os.ftruncate(fd, capacity)
        mm = mmap.mmap(fd, capacity)
        k = self._next_id
        self._next_id += 1
        self.maps[k] = (mm, capacity)
        return k, mm, fd, retired


def _layout(msg, x_dtype):
    """[(name, source array, target dtype, dequantise?)] of one numpy message."""
    out = []
    dequantise = (isinstance(msg.get("nfeats"), np.ndarray) and msg["nfeats"].dtype == np.uint8
                  and _SCALE in msg and _OFFSET in msg and msg["nfeats"].ndim == 2
                  and np.shape(msg[_SCALE]) == (msg["nfeats"].shape[1],)
                  and np.shape(msg[_OFFSET]) == (msg["nfeats"].shape[1],))
    for name, value in msg.items():
        if not isinstance(value, np.ndarray):
            continue
        if name in (_SCALE, _OFFSET) and dequantise:
            continue
        target = value.dtype.newbyteorder("=")
        if name == "nfeats" and dequantise:
            target = np.dtype(np.float32)
        elif name == "nfeats" and value.dtype == np.float16 and x_dtype == "float32":
            target = np.dtype(np.float32)
        out.append((name, value, target, name == "nfeats" and dequantise))
    return out


def _worker(open_source, sock: socket.socket, trainer_end: socket.socket, depth: int, x_dtype, cpus) -> None:
    """The worker process: read ``open_source()``, hand each message over in a shared buffer."""
    trainer_end.close()  # inherited (fork): keeping it open would hide the trainer's close from us
    if cpus:
        os.sched_setaffinity(0, cpus)
    slots = _Slots()
    sent = taken = 0

    def control(block: bool) -> bool:
        """Apply the trainer's control messages; False once it is gone."""
        nonlocal taken
        while True:
            try:
                data = sock.recv(64, 0 if block else socket.MSG_DONTWAIT)
            except BlockingIOError:
                return True
            if not data:
                return False
            if data == _TOOK:
                taken += 1
            elif data[:1] == _FREE:
                slots.free.append(int(data[1:]))
            block = False

    try:
        with ExitStack() as stack:
            source = open_source()
            if hasattr(source, "__exit__"):
                stack.enter_context(source)
            for msg in source:
                if not control(False):
                    return
                while sent - taken >= depth:
                    if not control(True):
                        return
                entries = _layout(msg, x_dtype)
                offsets, size = [], 0
                for name, value, target, _ in entries:
                    offsets.append(size)
                    size += _aligned(value.size * target.itemsize)
                k, mm, fd, retired = slots.take(size)
                buffer = np.frombuffer(mm, dtype=np.uint8, count=size)
                fields, out = [], None
                for (name, value, target, dequantise), offset in zip(entries, offsets):
                    out = buffer[offset:offset + value.size * target.itemsize].view(target).reshape(value.shape)
                    if dequantise:
                        dequantise_uint8(value, msg[_SCALE], msg[_OFFSET], out=out)
                    else:
                        np.copyto(out, value, casting="unsafe" if target != value.dtype else "no")
                    fields.append((name, target.str, value.shape, offset))
                del buffer, out
                meta = (getattr(msg, "epoch", None), getattr(msg, "batch_id", None),
                        getattr(msg, "num_batches", None), getattr(msg, "endpoint", None))
                descriptor = pickle.dumps(("message", k, size, fields, meta, retired))
                socket.send_fds(sock, [descriptor], [fd] if fd is not None else [])
                if fd is not None:
                    os.close(fd)
                sent += 1
                del msg  # a zero-copy reader (shm rings) may reuse its space from here on
        last = ("end",)
    except BaseException as error:  # noqa: BLE001 - every failure belongs to the trainer
        last = ("error", _portable(error))
    try:
        sock.send(pickle.dumps(last))
        # Closing with the trainer's control messages unread would reset the connection before it read
        # ``last``: read them until the trainer closes its end, which it does on reading ``last``.
        while sock.recv(64):
            pass
    except OSError:
        pass
    finally:
        sock.close()


class ProcessPrefetcher:
    """Iterates ``open_source()`` in a worker process, ``depth`` messages ahead; see the module doc."""

    def __init__(self, open_source, depth: int = 2, x_dtype="float32", worker_cpus=None,
                 start_method: str | None = "fork", transform=None, **removed):
        self._transform = check_transform(transform, removed, "ProcessPrefetcher")
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        if not callable(open_source):
            raise TypeError("ProcessPrefetcher needs a callable that opens the reader in the worker "
                            f"(e.g. functools.partial(ChannelClient, registry=...)), got {type(open_source).__name__}")
        if x_dtype not in ("float32", None):
            raise ValueError(f"x_dtype must be 'float32' or None, got {x_dtype!r}")
        self._sock, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._maps: dict[int, object] = {}
        self._finished = False
        context = multiprocessing.get_context(start_method)
        self._process = context.Process(target=_worker, args=(open_source, child, self._sock, depth, x_dtype,
                                                              set(worker_cpus) if worker_cpus else None),
                                        name="fanout-prefetch", daemon=True)
        self._process.start()
        child.close()

    def __iter__(self) -> "ProcessPrefetcher":
        return self

    def __next__(self):
        if self._finished:
            raise StopIteration
        try:
            data, fds, _, _ = socket.recv_fds(self._sock, _MAX_DESCRIPTOR, 1)
        except OSError as error:
            self._finish()
            # A worker that dies with our acknowledgements unread resets the connection instead of closing
            # it: the exit code, when there is one, is what the trainer needs to know.
            if self._process.exitcode is not None:
                raise RuntimeError(f"prefetch worker process exited (code {self._process.exitcode}) "
                                   "without finishing the stream") from error
            raise RuntimeError(f"prefetch worker connection failed: {error}") from error
        if not data:
            self._finish()
            raise RuntimeError(f"prefetch worker process exited (code {self._process.exitcode}) "
                               "without finishing the stream")
        item = pickle.loads(data)
        if item[0] == "end":
            self._finish()
            raise StopIteration
        if item[0] == "error":
            self._finish()
            raise _rebuild_error(item[1])
        _, k, size, fields, meta, retired = item
        for old in retired:
            self._maps.pop(old, None)  # unmapped once no array views it any more
        if fds:
            try:
                self._maps[k] = mmap.mmap(fds[0], os.fstat(fds[0]).st_size)
            finally:
                os.close(fds[0])
        self._send(_TOOK, block=True)  # a lost one would stall the worker's read-ahead count
        base = np.frombuffer(self._maps[k], dtype=np.uint8, count=size)
        # The buffer goes back to the worker once nothing views it (numpy views and torch.from_numpy
        # tensors keep ``base`` alive): the trainer may keep batches without them being overwritten.
        weakref.finalize(base, self._send, _FREE + str(k).encode())
        tensors = {}
        for name, dtype, shape, offset in fields:
            dtype = np.dtype(dtype)
            nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            tensors[name] = base[offset:offset + nbytes].view(dtype).reshape(shape)
        del base
        epoch, batch_id, num_batches, endpoint = meta
        msg = Message(tensors, epoch=epoch, batch_id=batch_id, num_batches=num_batches, endpoint=endpoint)
        return self._transform(msg) if self._transform is not None else msg

    def _send(self, data: bytes, block: bool = False) -> None:
        try:
            self._sock.send(data, 0 if block else socket.MSG_DONTWAIT)
        except OSError:
            pass  # the worker is gone (stream over, failed or closed): what it sent last tells

    def _finish(self) -> None:
        self._finished = True
        self._sock.close()  # the worker waits for this after its last word
        self._process.join(30)

    def close(self, timeout: float = 5.0) -> None:
        """Stops the worker and drops what it had read ahead; batches already handed out stay valid.
        The worker notices at its next hand-over and closes its reader; one blocked inside its reader
        for ``timeout`` seconds is terminated."""
        self._finished = True
        self._sock.close()  # the worker sees the trainer gone at its next hand-over and closes the reader
        self._process.join(timeout)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(timeout)

    def __enter__(self) -> "ProcessPrefetcher":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
