"""Connecting (docs/channel-protocol.md, "Endpoint registry" and "Conversation" steps 1-2): find the
endpoints (in the registry directory, waiting until every ``endpoint-<i>.json`` is there, or from a
``host:port`` list), open a TCP connection to each and do the HELLO/WELCOME handshake, resuming the
endpoint's session when it has one; and closing the connections."""

from __future__ import annotations

import json
import logging
import socket
import struct
import time
import warnings
from pathlib import Path

from .endpoint import _Endpoint, _parse_address
from ..errors import ChannelError, ChannelRankError, ChannelTimeoutError, _ServerRefused
from .frames import ERROR, FRAME_NAMES, HELLO, PROTOCOL_VERSION, WELCOME, _FrameStream, _read_frame, _send_frame, \
    _WELCOME
from .liveness import _set_receive_timeout
from .tls import _check_mode, _looks_like_tls, _shutdown, _wrap

log = logging.getLogger("fanout_client.channel")

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


def _stale_answer(ep: _Endpoint, answer: str) -> bool:
    """Something other than endpoint ``ep`` answered at the address of its registry file: the file
    still names the address of an endpoint that is gone (a restarted endpoint writes its new one once
    it listens), where another endpoint of the channel or another process listens now. Not an error:
    False, to read the registry again and retry until the deadline."""
    error = f"{ep.address} answered HELLO with {answer}: not this endpoint (a stale registry address?)"
    if error != ep.last_error:  # once, not at every retry
        log.info("%s: %s; trying again", ep.label(), error)
    ep.last_error = error
    return False


class _Connecting:
    """The connection phase of ``ChannelClient`` (a part of it: uses its options and endpoints)."""

    def connect(self) -> "ChannelClient":
        """Find and connect every endpoint, handshake and send the initial credits. Iterating
        calls this on first use; calling it yourself surfaces connection errors early."""
        if self._closed:
            raise RuntimeError("ChannelClient is closed")
        if self._connected:
            return self
        deadline = time.monotonic() + self.connect_timeout
        try:
            if self.registry is not None:
                self._endpoints = self._wait_for_registry(deadline)
            else:
                tls = self._tls_context is not None  # a host:port list is as the caller says
                self._endpoints = [_Endpoint(index=None, address=a, token=self.token, tls=tls)
                                   for a in self._addresses]
            self._connect_all(deadline)
        except BaseException:
            self._close_sockets()
            raise
        self._connected = True
        for ep in self._endpoints:
            if ep.done:
                continue
            ep.window = self.prefetch
            self._grant(ep, ep.window)
            ep.stream = _FrameStream(ep.sock, self.max_frame_bytes)
            ep.heard = time.monotonic()
        return self

    def _wait_for_registry(self, deadline: float) -> list[_Endpoint]:
        while True:
            infos = {}
            for path in sorted(self.registry.glob("endpoint-*.json")) if self.registry.is_dir() else []:
                info = _read_registry_file(path)
                if info is not None:
                    infos[path.name] = info
            expected = {info.get("num_endpoints") for info in infos.values()}
            if len(expected) > 1:
                raise ValueError(f"registry {self.registry}: endpoint files disagree on num_endpoints: "
                                 f"{sorted(map(str, expected))}")
            if infos:
                (n,) = expected
                if not isinstance(n, int) or n < 1:
                    raise ValueError(f"registry {self.registry}: bad num_endpoints {n!r}")
                missing = [f"endpoint-{i}.json" for i in range(n) if f"endpoint-{i}.json" not in infos]
                if not missing:
                    return [self._endpoint_from_registry(i, infos[f"endpoint-{i}.json"]) for i in range(n)]
            else:
                missing = ["endpoint-*.json"]
            if time.monotonic() >= deadline:
                detail = (f"no endpoint-*.json file appeared" if not infos else
                          f"num_endpoints={n} but {', '.join(missing)} did not appear "
                          f"(found {', '.join(sorted(infos))})")
                raise ChannelTimeoutError(
                    f"registry {self.registry}: after {self.connect_timeout:g}s {detail}", missing)
            time.sleep(0.05)

    def _endpoint_from_registry(self, index: int, info: dict) -> _Endpoint:
        path = self.registry / f"endpoint-{index}.json"
        # The file names the oldest protocol version the endpoint serves (2 for a v3 endpoint).
        version = info.get("version", PROTOCOL_VERSION)
        if not isinstance(version, int) or version > PROTOCOL_VERSION:
            raise ValueError(f"{path}: the endpoint needs protocol version {version!r}, this client speaks "
                             f"{PROTOCOL_VERSION}")
        ep = _Endpoint(index=index, address=f"{info.get('host')}:{info.get('port')}", registry_file=path,
                       token=self.token or info.get("token") or "", tls=info.get("tls") is True)
        ep.done = info.get("state") == "finished"
        return ep

    def _refresh_from_registry(self, ep: _Endpoint) -> None:
        # The endpoint may have finished, or moved (a restarted subtask writes a new port).
        info = _read_registry_file(ep.registry_file)
        if info is not None:
            ep.address = f"{info.get('host')}:{info.get('port')}"
            if not self.token and info.get("token"):
                ep.token = info["token"]
            ep.done = info.get("state") == "finished"
            ep.tls = info.get("tls") is True  # checked again on connecting: no downgrade on a restart

    def _connect_all(self, deadline: float) -> None:
        pending = [ep for ep in self._endpoints if not ep.done]
        while pending:
            for ep in list(pending):
                if ep.registry_file is not None:
                    self._refresh_from_registry(ep)
                    if ep.done:
                        pending.remove(ep)
                        continue
                try:
                    ok = self._try_connect(ep, deadline)
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
                    f"{len(pending)} of {len(self._endpoints)} channel endpoints did not answer within "
                    f"{self.connect_timeout:g}s: {detail}", names)
            time.sleep(0.05)

    def _try_connect(self, ep: _Endpoint, deadline: float) -> bool:
        """One connection + handshake attempt: True when WELCOMEd, False to retry later; raises
        _ServerRefused(ChannelError) when the endpoint answered with ERROR or nonsense, its TLS
        certificate does not verify, or it does not serve what the client expects (TLS or plain)."""
        _check_mode(ep, self._tls_context)
        try:
            host, port = _parse_address(ep.address)
        except ValueError as e:
            ep.last_error = str(e)
            return False
        remaining = max(deadline - time.monotonic(), 0.05)
        try:
            sock = _connect(host, port, min(remaining, 2.0))
        except OSError as e:
            ep.last_error = f"connect failed: {e.strerror or e}"
            return False
        if _connected_to_itself(sock):
            # Nothing listens at a local port in the ephemeral range, and the kernel gave this
            # socket that very port: TCP's simultaneous open connects it to itself, and it would
            # read its own HELLO as the answer. The registry names the old port of a restarted
            # endpoint until the new one writes its file.
            sock.close()
            ep.last_error = f"nothing listens at {ep.address} (the connection reached itself)"
            return False
        # An endpoint answers HELLO at once; a registry address taken by another process may never answer.
        handshake_seconds = min(self.handshake_timeout, max(deadline - time.monotonic(), 0.05))
        if self._tls_context is not None:
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(handshake_seconds)  # as long as HELLO may take
                sock = _wrap(sock, self._tls_context, host, ep)
            except OSError as e:
                ep.last_error = f"TLS handshake failed: {e}"
                return False
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.settimeout(handshake_seconds)
            token = ep.token.encode("utf-8")  # inside TLS when the endpoint serves it
            hello = struct.pack("<HH", PROTOCOL_VERSION, len(token)) + token + struct.pack("<Q", ep.session)
            if self.world_size is not None:
                # A data-parallel trainer: the endpoint sends it only its rank's share.
                hello += struct.pack("<ii", self.rank, self.world_size)
            _send_frame(sock, HELLO, hello)
            tls_answer = self._tls_context is None and _looks_like_tls(sock.recv(3, socket.MSG_PEEK))
            if not tls_answer:
                frame_type, body = _read_frame(sock, self.max_frame_bytes)
        except (OSError, EOFError, ValueError) as e:
            sock.close()
            ep.last_error = (f"no answer to HELLO within {handshake_seconds:g}s" if isinstance(e, TimeoutError)
                             else f"handshake failed: {e}")
            if isinstance(e, (EOFError, ConnectionResetError)) and self._tls_context is None \
                    and ep.registry_file is None:
                ep.last_error += " (if the endpoint serves TLS, pass tls_ca)"
            return False
        if tls_answer:
            sock.close()
            raise _ServerRefused(ChannelError(ep.label(), "answered HELLO with TLS: the endpoint serves TLS; pass "
                                                          "tls_ca=CA_FILE (CLI --tls-ca) or ssl_context"))
        if frame_type == ERROR:
            sock.close()
            text = body.decode("utf-8", "replace")
            if self.world_size is not None and text.startswith(("world size ", "rank ")):
                raise _ServerRefused(ChannelRankError(ep.label(), f"refused rank {self.rank} of world size "
                                                                  f"{self.world_size}: {text}", server_text=text))
            raise _ServerRefused(ChannelError(ep.label(), f"refused the connection: {text}", server_text=text))
        stale = ep.registry_file is not None  # the file may still name an old address (see _stale_answer)
        if frame_type != WELCOME or len(body) != _WELCOME.size:
            sock.close()
            if stale:
                return _stale_answer(ep, f"{FRAME_NAMES.get(frame_type, f'frame type {frame_type}')} "
                                         f"({len(body)} bytes), not WELCOME")
            raise _ServerRefused(ChannelError(ep.label(), f"answered HELLO with "
                                              f"{FRAME_NAMES.get(frame_type, frame_type)} ({len(body)} bytes), "
                                              f"expected WELCOME"))
        version, index, num_endpoints, session, resumed = _WELCOME.unpack(body)
        if version != PROTOCOL_VERSION:
            sock.close()
            raise _ServerRefused(ChannelError(ep.label(), f"speaks protocol version {version}, this client "
                                                          f"{PROTOCOL_VERSION}"))
        if ep.index is not None and index != ep.index:
            sock.close()
            if stale:
                return _stale_answer(ep, f"WELCOME of endpoint {index}")
            raise _ServerRefused(ChannelError(ep.label(), f"WELCOME says it is endpoint {index}"))
        if ep.index is None:
            ep.index = index
            if num_endpoints != len(self._endpoints):
                warnings.warn(f"{ep.label()} belongs to a channel of {num_endpoints} endpoints but "
                              f"{len(self._endpoints)} were given; messages on the others are not read",
                              stacklevel=4)
        if ep.session and not resumed:
            log.info("%s: session %x is gone (endpoint restarted or session expired); new session %x",
                     ep.label(), ep.session, session)
        sock.settimeout(None)
        if self.stall_timeout:
            _set_receive_timeout(sock, self.stall_timeout)
        with ep.lock:
            ep.sock = sock
            ep.session = session
            ep.granted = 0
            ep.received = 0
            ep.extra = ep.withhold = 0  # a new connection is granted its whole window afresh
        log.info("connected to %s (endpoint %d of %d)%s", ep.label(), index, num_endpoints,
                 " resuming its session" if resumed else "")
        return True

    def _close_endpoint(self, ep: _Endpoint) -> None:
        if ep.sock is not None:
            try:
                _shutdown(ep.sock)  # wakes a consumer blocked in recv
            except OSError:
                pass
            try:
                ep.sock.close()
            except OSError:
                pass

    def _close_sockets(self) -> None:
        for ep in self._endpoints:
            self._close_endpoint(ep)

