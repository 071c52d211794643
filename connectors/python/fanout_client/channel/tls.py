"""TLS (docs/channel-protocol.md, "TLS"): an endpoint with ``"tls": true`` in its registry file serves
TLS only; the client verifies its certificate chain against the CA it was given (``tls_ca``, or a
ready ``ssl_context``) and the host name against the address the registry advertises. No silent
downgrade either way: a TLS endpoint without a CA, or a CA given for a plain endpoint, is refused."""

from __future__ import annotations

import socket
import ssl
from typing import TYPE_CHECKING

from ..errors import ChannelError, _ServerRefused

if TYPE_CHECKING:
    from .endpoint import _Endpoint


def _client_context(tls_ca, ssl_context) -> ssl.SSLContext | None:
    """The context that verifies endpoints, or None for plain TCP; bad arguments raise ValueError."""
    if tls_ca is not None and ssl_context is not None:
        raise ValueError("give tls_ca=CA_FILE or ssl_context=CONTEXT, not both")
    if ssl_context is not None:
        if not isinstance(ssl_context, ssl.SSLContext):
            raise ValueError(f"ssl_context must be an ssl.SSLContext, got {type(ssl_context).__name__}")
        return ssl_context
    if tls_ca is None:
        return None
    try:
        # Verifies the chain against this CA only (not the system's) and the host name; TLS 1.2+.
        return ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=str(tls_ca))
    except FileNotFoundError:
        raise ValueError(f"tls_ca {tls_ca}: no such file") from None
    except PermissionError:
        raise ValueError(f"tls_ca {tls_ca}: not readable") from None
    except ssl.SSLError as e:
        raise ValueError(f"tls_ca {tls_ca}: not a PEM CA certificate ({e.reason or e})") from None


def _check_mode(ep: _Endpoint, context: ssl.SSLContext | None) -> None:
    """Refuse (``_ServerRefused``) an endpoint whose registry entry disagrees with the client's TLS
    setting: no CA for a TLS endpoint, or a CA for a plain one (which would send the token in clear)."""
    if ep.tls and context is None:
        raise _ServerRefused(ChannelError(
            ep.label(), f'serves TLS ("tls": true in {ep.registry_file}): pass tls_ca=CA_FILE (the PEM '
                        f'CA that signed its certificate; CLI --tls-ca) or ssl_context to verify it'))
    if not ep.tls and context is not None:
        raise _ServerRefused(ChannelError(
            ep.label(), f'serves plain TCP (no "tls": true in {ep.registry_file}) but tls_ca/ssl_context '
                        f'was given: refusing to connect without TLS'))


def _wrap(sock: socket.socket, context: ssl.SSLContext, host: str, ep: _Endpoint) -> ssl.SSLSocket:
    """TLS handshake on a connected socket (its timeout applies). A certificate that does not
    verify, or a handshake the endpoint fails, raises ``_ServerRefused`` naming the endpoint with
    ssl's reason; a connection closed during the handshake raises OSError (retried)."""
    try:
        return context.wrap_socket(sock, server_hostname=host)
    except ssl.SSLCertVerificationError as e:
        sock.close()
        raise _ServerRefused(ChannelError(
            ep.label(), f"TLS certificate verification failed: {e.verify_message or e.reason} "
                        f"(checked against the given CA, for host {host})")) from None
    except (ssl.SSLEOFError, ssl.SSLZeroReturnError):
        sock.close()
        raise
    except ssl.SSLError as e:
        sock.close()
        raise _ServerRefused(ChannelError(
            ep.label(), f"TLS handshake failed: {e.reason or e} (does the endpoint serve TLS?)")) from None
    except OSError:
        sock.close()
        raise


def _looks_like_tls(head: bytes) -> bool:
    """Whether the first bytes of an answer to HELLO are a TLS record (alert or handshake), i.e.
    a plain client talking to a TLS endpoint. Such a head read as a frame length is over 64 KiB,
    far beyond any WELCOME or ERROR."""
    return len(head) >= 3 and head[0] in (0x15, 0x16) and head[1] == 0x03 and head[2] <= 0x04


def _shutdown(sock: socket.socket) -> None:
    """Shut the connection down to wake a consumer blocked in recv. For a TLS socket this is the
    plain socket's shutdown: ``SSLSocket.shutdown`` drops the TLS state first, and a read racing
    with it would then take the raw TLS records for frames."""
    socket.socket.shutdown(sock, socket.SHUT_RDWR)
