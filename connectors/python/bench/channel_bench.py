"""Receiving side of the channel benchmark (deploy/bin/fanout-channel-bench): times one way of getting
COUNT messages of SIZE bytes into this Python process and prints one JSON line.

  channel_bench.py raw HOST:PORT SIZE COUNT   plain socket bytes, recv_into one reused buffer (no framing)
  channel_bench.py tcp HOST:PORT SIZE COUNT   ChannelClient: framed, credits, one decoded Message each
  channel_bench.py shm PATH      SIZE COUNT   ShmRingReader: decoded Message viewing the ring (zero copy)

Each mode connects (or opens the ring) first, then prints "ready"; the Java sender starts only
then, and the clock runs from "ready" to the last message, so setup and fill-ahead are excluded
alike. Every message is touched (shape and last element of its tensor) so nothing is skipped lazily.
The receiving thread's own CPU over the same span (user and system, microseconds per message) goes
in the JSON line too: what one message costs the trainer's process, whatever else the machine runs.
"""

import json
import resource
import socket
import sys
import time

from fanout_client import ChannelClient, ShmRingReader


def raw(address, size, count):
    host, _, port = address.rpartition(":")
    buf = bytearray(size)
    view = memoryview(buf)
    with socket.create_connection((host, int(port))) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        start = _ready()
        for _ in range(count):
            got = 0
            while got < size:
                n = s.recv_into(view[got:], size - got)
                if n == 0:
                    raise EOFError(f"sender closed after {got} bytes of a message")
                got += n
            _ = buf[-1]
    return start, count * size


def _ready():
    print("ready", flush=True)
    return time.perf_counter(), resource.getrusage(resource.RUSAGE_THREAD)


def _touch(msg):
    x = msg["x"]
    return int(x.shape[0]) + float(x[-1])


def tcp(address, size, count):
    n = total = 0
    with ChannelClient(registry=address, connect_timeout=60) as client:  # default prefetch 4 and prefetch_bytes
        client.connect()
        start = _ready()
        for msg in client:
            _touch(msg)
            total += len(msg.blob)
            n += 1
    assert n == count, (n, count)
    return start, total


def shm(path, size, count):
    n = total = 0
    ring = ShmRingReader(path, timeout=60)
    start = _ready()
    for msg in ring:
        _touch(msg)
        total += len(msg.blob)
        n += 1
    assert n == count, (n, count)
    ring.close()
    return start, total


def main():
    mode, where, size, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    (t0, cpu0), total = {"raw": raw, "tcp": tcp, "shm": shm}[mode](where, size, count)
    seconds = time.perf_counter() - t0
    cpu = resource.getrusage(resource.RUSAGE_THREAD)  # every mode receives on this thread alone
    print(json.dumps({"mode": mode, "size": size, "messages": count, "bytes": total, "seconds": seconds,
                      "mb_per_s": total / seconds / 1e6, "messages_per_s": count / seconds,
                      "receiver_user_us": (cpu.ru_utime - cpu0.ru_utime) / count * 1e6,
                      "receiver_sys_us": (cpu.ru_stime - cpu0.ru_stime) / count * 1e6}))


if __name__ == "__main__":
    main()
