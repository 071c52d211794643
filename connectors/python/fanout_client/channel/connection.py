"""Connecting (docs/channel-protocol.md, "Endpoint registry" and "Conversation" steps 1-2): find the
endpoints in the registry directory (waiting until every ``endpoint-<i>.json`` is there), open TCP
connections, and connect every endpoint of a client before the deadline. The HELLO/WELCOME handshake of
one endpoint, resuming its session when it has one, is ``_Endpoint.try_connect``."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from ..errors import ChannelTimeoutError, _ServerRefused

# Socket receive buffer (SO_RCVBUF), set before connecting so the TCP window can use it.
_RECEIVE_BUFFER_BYTES = 4 << 20


def _connect(host: str, port: int, timeout: float) -> socket.socket:
    last = OSError(f"no address for {host}")
    for family, kind, proto, _, address in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM):
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, _RECEIVE_BUFFER_BYTES)
            sock.settimeout(timeout)
            sock.connect(address)
            return sock
        except OSError as e:
            sock.close()
            last = e
    raise last


def _read_registry_file(path: Path):
    """The parsed JSON of a registry file, or None while it is absent or unreadable."""
    try:
        with open(path, "rb") as f:
            info = json.loads(f.read().decode("utf-8"))
    except (FileNotFoundError, PermissionError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return info if isinstance(info, dict) else None


def _connected_to_itself(sock: socket.socket) -> bool:
    try:
        return sock.getsockname() == sock.getpeername()
    except OSError:
        return False


def _wait_for_registry(registry: Path, deadline: float, connect_timeout: float) -> list[dict]:
    """The parsed ``endpoint-<i>.json`` files of ``registry``, by index, once all ``num_endpoints`` are
    there; ``ChannelTimeoutError`` naming the missing ones at the deadline."""
    while True:
        infos = {}
        for path in sorted(registry.glob("endpoint-*.json")) if registry.is_dir() else []:
            info = _read_registry_file(path)
            if info is not None:
                infos[path.name] = info
        expected = {info.get("num_endpoints") for info in infos.values()}
        if len(expected) > 1:
            raise ValueError(f"registry {registry}: endpoint files disagree on num_endpoints: "
                             f"{sorted(map(str, expected))}")
        if infos:
            (n,) = expected
            if not isinstance(n, int) or n < 1:
                raise ValueError(f"registry {registry}: bad num_endpoints {n!r}")
            missing = [f"endpoint-{i}.json" for i in range(n) if f"endpoint-{i}.json" not in infos]
            if not missing:
                return [infos[f"endpoint-{i}.json"] for i in range(n)]
        else:
            missing = ["endpoint-*.json"]
        if time.monotonic() >= deadline:
            detail = (f"no endpoint-*.json file appeared" if not infos else
                      f"num_endpoints={n} but {', '.join(missing)} did not appear "
                      f"(found {', '.join(sorted(infos))})")
            raise ChannelTimeoutError(f"registry {registry}: after {connect_timeout:g}s {detail}", missing)
        time.sleep(0.05)


def _connect_all(endpoints: list, deadline: float, connect_timeout: float) -> None:
    """Connect every endpoint (``_Endpoint``) not finished, retrying until the deadline; an endpoint that
    refuses raises its ChannelError, the deadline ``ChannelTimeoutError`` naming the missing ones."""
    pending = [ep for ep in endpoints if not ep.done]
    while pending:
        for ep in list(pending):
            if ep.registry_file is not None:
                ep.refresh_from_registry()
                if ep.done:
                    pending.remove(ep)
                    continue
            try:
                ok = ep.try_connect(deadline)
            except _ServerRefused as e:
                raise e.args[0] from None
            if ok:
                pending.remove(ep)
        if not pending:
            break
        if time.monotonic() >= deadline:
            names = [ep.label() for ep in pending]
            detail = "; ".join(f"{ep.label()}: {ep.last_error}" for ep in pending)
            raise ChannelTimeoutError(
                f"{len(pending)} of {len(endpoints)} channel endpoints did not answer within "
                f"{connect_timeout:g}s: {detail}", names)
        time.sleep(0.05)
