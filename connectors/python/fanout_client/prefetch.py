"""Background prefetching: the next messages are received and converted on a thread while the trainer steps.

A training loop fed by ``ChannelClient(transform=to_pyg)`` (or ``ShmClient``, ``read_samples``) otherwise does
the socket reads, the safetensors decoding and ``to_pyg`` (uint8 dequantisation included) on its own
thread, between optimiser steps. ``prefetch(source)`` moves that work to one background thread, as
PyTorch's ``DataLoader`` does with its workers: ``recv``, numpy and torch release the GIL, so it overlaps
with the step. It holds at most ``depth`` converted items beyond what the source itself holds (for the
channel client: its credit window), and it re-raises the source's exceptions (``SamplingError``,
``ChannelStallError``, ...) in the training loop, unchanged, at the point in the stream where they occurred::

    with ChannelClient(registry=..., transform=to_pyg) as client:
        for epoch in client.epochs():
            for data in prefetch(epoch):
                step(model, data)

The source is iterated by the background thread only: do not use it from the loop while a ``Prefetcher``
reads it (the clients are not thread-safe). ``prefetch(source, transform=to_pyg)`` applies the transform on
the background thread (to a source yielding numpy messages), the same as the reader's own ``transform``.

``cpus`` pins the background thread to those CPUs (Linux), so the feed does not take the training loop's core:
on a 2-core machine a prefetched cora loop ran at 0.90x of the same loop over batches already in memory with the
loop and the feed on different cores, 0.71x unpinned (README, "Training-feed benchmark").
"""

from __future__ import annotations

import os
import queue
import threading
from typing import Iterable, Iterator, TypeVar

from .reader import _REPLACED, check_transform

T = TypeVar("T")

_END = object()


class _Failure:
    """An exception of the source, carried to the consumer in stream order."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error


class Prefetcher(Iterator[T]):
    """Iterates ``source`` on a daemon thread, ``depth`` items ahead of the consumer."""

    def __init__(self, source: Iterable[T], depth: int = 2, name: str = "fanout-prefetch", cpus=None,
                 transform=None, **removed):
        self._transform = check_transform(transform, removed, "Prefetcher")
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self._cpus = _checked_cpus(cpus)
        self._source = iter(source)
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._finished = False
        self._thread = threading.Thread(target=self._produce, name=name, daemon=True)
        self._thread.start()

    def _produce(self) -> None:
        try:
            if self._cpus is not None:
                try:
                    os.sched_setaffinity(0, self._cpus)  # 0 = the calling thread on Linux: this one only
                except OSError as e:  # e.g. a CPU outside this process's cpuset: the loop gets it at next()
                    raise ValueError(f"cannot pin the prefetch thread to cpus {sorted(self._cpus)}: {e}") from e
            transform = self._transform
            for item in self._source:
                if transform is not None:
                    item = transform(item)
                if not self._put(item):
                    return
            self._put(_END)
        except BaseException as error:  # noqa: BLE001 - every failure belongs to the consumer
            self._put(_Failure(error))

    def _put(self, item) -> bool:
        """Blocks while the queue is full; False once the consumer closed (the item is dropped)."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self) -> "Prefetcher[T]":
        return self

    def __next__(self) -> T:
        if self._finished:
            raise StopIteration
        item = self._queue.get()
        if item is _END:
            self._finished = True
            self._thread.join()
            raise StopIteration
        if isinstance(item, _Failure):
            self._finished = True
            self._thread.join()
            raise item.error
        return item

    def close(self, timeout: float = 30.0) -> None:
        """Stops the thread at its next hand-over (waiting at most ``timeout`` seconds for it to finish
        the item it is reading) and drops what it had read ahead."""
        self._finished = True
        self._stop.set()
        while True:  # unblock a producer waiting on a full queue
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._thread.join(timeout)

    def __enter__(self) -> "Prefetcher[T]":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def buffered(self) -> int:
        """Items read ahead and not yet taken (for monitoring)."""
        return self._queue.qsize()


def prefetch(source, depth: int = 2, *, cpus=None, process: bool = False, transform=None, **process_options):
    """``source`` iterated on a background thread, at most ``depth`` items ahead; see the module doc.

    ``cpus``: the CPUs the feed runs on (the background thread, or with ``process=True`` the worker process),
    of the machine's; keep the training loop off them (``os.sched_setaffinity``).

    ``transform``: applied to every item (``to_pyg``): on the background thread, or with ``process=True`` in
    the trainer to the message the worker put in shared memory (``ProcessPrefetcher``).

    ``process=True``: ``source`` is a callable opening a numpy reader, iterated in a worker process
    (``ProcessPrefetcher(source, depth, transform=transform, **process_options)``: ``x_dtype``,
    ``worker_cpus``, ``start_method``), so the trainer's interpreter does none of the feed's work."""
    check_transform(transform, {k: v for k, v in process_options.items() if k in _REPLACED}, "prefetch")
    if process:
        from .prefetch_process import ProcessPrefetcher
        if cpus is not None:
            if "worker_cpus" in process_options:
                raise TypeError("give cpus or worker_cpus, not both")
            process_options["worker_cpus"] = _checked_cpus(cpus)
        return ProcessPrefetcher(source, depth, transform=transform, **process_options)
    if process_options:
        raise TypeError(f"{', '.join(sorted(process_options))}: only with process=True")
    return Prefetcher(source, depth, cpus=cpus, transform=transform)


def _checked_cpus(cpus):
    """``cpus`` as a set, checked against the machine's CPUs up front (not in the thread); None stays None."""
    if cpus is None:
        return None
    if not hasattr(os, "sched_setaffinity"):
        raise ValueError("cpus needs os.sched_setaffinity (Linux)")
    wanted = {int(c) for c in cpus}
    # The machine's CPUs, not the calling thread's mask: a training loop that pinned itself to one core first
    # still gives the feed the others.
    count = os.cpu_count() or 1
    if not wanted or not wanted <= set(range(count)):
        raise ValueError(f"cpus {sorted(wanted)} must be a non-empty subset of this machine's CPUs 0..{count - 1}")
    return wanted
