"""ChannelClient over TLS (channel-protocol.md, "TLS") against the in-test endpoint server serving TLS with a
certificate made by the openssl command line (tests/tls_certs.py): real sockets, real handshakes."""

import json
import os
import re
import signal
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from channel_server import EndpointServer, batches, sample_blob, wait_until
from fanout_client import ChannelClient, ChannelError, ChannelStallError, decode
from fanout_client.__main__ import main as cli_main
from tls_certs import make_certs

TESTS = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


def tls_registry(tmp_path, servers, certs, endpoints=2, count=6, **kwargs):
    registry = tmp_path / "registry"
    started = [servers(batches(i, count), index=i, num_endpoints=endpoints, registry=registry,
                       tls=(certs.server_cert, certs.server_key), **kwargs) for i in range(endpoints)]
    return registry, started


def test_a_client_with_the_ca_reads_every_message_and_still_sends_the_token(tmp_path, servers, certs):
    registry, started = tls_registry(tmp_path, servers, certs, token="s3cret")
    with ChannelClient(registry=registry, tls_ca=certs.ca, prefetch=2, connect_timeout=10) as client:
        received = list(client)
    assert sorted((m.endpoint, m.batch_id) for m in received) == sorted(
        (i, i * 100 + b) for i in range(2) for b in range(6))
    for msg in received:
        expected = decode(sample_blob(0, msg.batch_id, msg.endpoint))
        for name in expected:
            np.testing.assert_array_equal(msg[name], expected[name])
    assert [s.hellos[0][1] for s in started] == ["s3cret", "s3cret"]  # the token, inside TLS
    assert all(s.tls_failures == [] for s in started)


def test_a_ready_ssl_context_and_the_host_name_localhost_work_too(servers, certs):
    server = servers(batches(0, 4), tls=(certs.server_cert, certs.server_key))
    context = ssl.create_default_context(cafile=str(certs.ca))
    with ChannelClient(endpoints=[f"localhost:{server.port}"], ssl_context=context, connect_timeout=10) as client:
        assert [m.batch_id for m in client] == [0, 1, 2, 3]


def test_the_token_is_still_checked_inside_tls(tmp_path, servers, certs):
    server = servers(batches(0, 2), tls=(certs.server_cert, certs.server_key), token="right")
    with pytest.raises(ChannelError, match="refused the connection: bad access token"):
        ChannelClient(endpoints=[server.address], token="wrong", tls_ca=certs.ca, connect_timeout=10).connect()


def test_a_tls_endpoint_without_a_ca_is_refused_naming_the_endpoint(tmp_path, servers, certs):
    registry, started = tls_registry(tmp_path, servers, certs, endpoints=1)
    started_at = time.monotonic()
    with pytest.raises(ChannelError) as refused:
        ChannelClient(registry=registry, connect_timeout=10).connect()
    assert time.monotonic() - started_at < 5  # at once, not after the connect timeout
    assert refused.value.endpoint == f"endpoint 0 (127.0.0.1:{started[0].port})"
    assert re.search(r'serves TLS \("tls": true in .*endpoint-0\.json\): pass tls_ca', str(refused.value))
    assert started[0].hellos == [] and started[0].connections == 0  # nothing sent in clear


def test_a_plain_client_given_a_tls_endpoint_address_is_refused(servers, certs):
    # No registry to say so: the endpoint answers the plain HELLO with a TLS alert, or hangs up.
    server = servers(batches(0, 2), tls=(certs.server_cert, certs.server_key))
    with pytest.raises((ChannelError, TimeoutError), match=r"(serves TLS|pass tls_ca)"):
        ChannelClient(endpoints=[server.address], connect_timeout=3).connect()


def test_a_certificate_another_ca_signed_is_refused_with_ssl_reason(tmp_path, servers, certs):
    registry, started = tls_registry(tmp_path, servers, certs, endpoints=1)
    with pytest.raises(ChannelError) as refused:
        ChannelClient(registry=registry, tls_ca=certs.other_ca, connect_timeout=10).connect()
    assert refused.value.endpoint == f"endpoint 0 (127.0.0.1:{started[0].port})"
    # The server sends its chain with its CA: ssl's reason names that self-signed CA as untrusted.
    assert re.search(r"TLS certificate verification failed: (self-signed certificate in certificate chain|"
                     r"unable to get local issuer certificate)", str(refused.value))
    assert started[0].hellos == []
    assert wait_until(lambda: started[0].tls_failures)  # the server saw the handshake fail


def test_a_host_name_the_certificate_does_not_name_is_refused(servers, certs):
    # The certificate names 127.0.0.1 and localhost only; 127.0.0.2 is a loopback address too.
    server = servers(batches(0, 2), tls=(certs.server_cert, certs.server_key), host="127.0.0.2")
    with pytest.raises(ChannelError, match=r"endpoint 127\.0\.0\.2:\d+: TLS certificate verification failed: "
                                           r".*(mismatch|not valid for).*127\.0\.0\.2"):
        ChannelClient(endpoints=[server.address], tls_ca=certs.ca, connect_timeout=10).connect()
    assert server.hellos == []


def test_a_ca_given_for_a_plain_endpoint_is_refused(tmp_path, servers, certs):
    registry = tmp_path / "registry"
    server = servers(batches(0, 2), registry=registry)
    with pytest.raises(ChannelError) as refused:
        ChannelClient(registry=registry, tls_ca=certs.ca, connect_timeout=10).connect()
    assert refused.value.endpoint == f"endpoint 0 (127.0.0.1:{server.port})"
    assert 'serves plain TCP (no "tls": true in' in str(refused.value)
    assert "refusing to connect without TLS" in str(refused.value)
    assert server.hellos == []


def test_a_ca_given_for_a_plain_endpoint_address_fails_the_handshake(servers, certs):
    server = servers(batches(0, 2))
    with pytest.raises(ChannelError, match=r"endpoint 127\.0\.0\.1:\d+: TLS handshake failed"):
        ChannelClient(endpoints=[server.address], tls_ca=certs.ca, connect_timeout=10).connect()
    assert server.hellos == []  # the token never left in clear


def test_bad_tls_arguments_are_value_errors_naming_the_file(tmp_path, certs):
    with pytest.raises(ValueError, match=r"tls_ca .*missing\.pem: no such file"):
        ChannelClient(endpoints=["127.0.0.1:1"], tls_ca=tmp_path / "missing.pem")
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    with pytest.raises(ValueError, match=r"tls_ca .*garbage\.pem: not a PEM CA certificate"):
        ChannelClient(endpoints=["127.0.0.1:1"], tls_ca=garbage)
    with pytest.raises(ValueError, match="not both"):
        ChannelClient(endpoints=["127.0.0.1:1"], tls_ca=certs.ca, ssl_context=ssl.create_default_context())


def test_a_dropped_tls_connection_is_resumed_and_nothing_is_lost_or_repeated(servers, certs):
    server = servers(batches(0, 8), drop_after=3, tls=(certs.server_cert, certs.server_key))
    with ChannelClient(endpoints=[server.address], tls_ca=certs.ca, prefetch=2, connect_timeout=10,
                       reconnect_timeout=10) as client:
        received = [m.batch_id for m in client]
    assert received == list(range(8))
    assert server.connections == 2
    assert server.hellos[1][2] == EndpointServer.SESSION  # the client resumed its session
    assert set(server.acks) == set(range(1, 9))


def test_an_idle_tls_endpoint_that_sends_heartbeats_does_not_stall(servers, certs):
    server = servers(batches(0, 6), heartbeat=0.1, pauses={2: 1.5, 4: 1.5}, tls=(certs.server_cert, certs.server_key))
    with ChannelClient(endpoints=[server.address], tls_ca=certs.ca, prefetch=2, connect_timeout=10,
                       stall_timeout=0.5) as client:
        assert [m.batch_id for m in client] == list(range(6))
    assert server.heartbeats >= 20


def test_a_stopped_tls_endpoint_process_raises_a_stall_error_naming_it(tmp_path, certs):
    registry = tmp_path / "registry"
    server = subprocess.Popen(
        [sys.executable, str(TESTS / "channel_server.py"), "--registry", str(registry), "--count", "10",
         "--heartbeat", "0.2", "--pause", "3:600", "--tls-cert", str(certs.server_cert),
         "--tls-key", str(certs.server_key)],
        env={**os.environ, "PYTHONPATH": str(TESTS.parent)})
    try:
        with ChannelClient(registry=registry, tls_ca=certs.ca, prefetch=2, connect_timeout=20,
                           stall_timeout=1.0) as client:
            messages = iter(client)
            assert [next(messages).batch_id for _ in range(3)] == [0, 1, 2]
            threading.Timer(2.5, os.kill, (server.pid, signal.SIGSTOP)).start()
            started = time.monotonic()
            with pytest.raises(ChannelStallError) as stalled:
                next(messages)
            waited = time.monotonic() - started
        # Idle 2.5 s without a stall, then a stall 1 s after the last heartbeat, which came up to one
        # heartbeat interval (0.2 s) before the stop.
        assert 2.5 + 1.0 - 0.2 - 0.05 <= waited < 2.5 + 3.0
        assert re.fullmatch(r"endpoint 0 \(127\.0\.0\.1:\d+\)", stalled.value.endpoint)
        assert stalled.value.last_frame == "HEARTBEAT" and 1.0 <= stalled.value.seconds < 2.0
    finally:
        server.kill()
        server.wait()


def test_the_pull_command_takes_tls_ca(tmp_path, servers, certs, capsys):
    registry, _ = tls_registry(tmp_path, servers, certs, count=3)
    assert cli_main(["pull", "--registry", str(registry), "--output", str(tmp_path / "refused"),
                     "--timeout", "10"]) == 1
    assert "pass tls_ca" in capsys.readouterr().err
    out = tmp_path / "out"
    assert cli_main(["pull", "--registry", str(registry), "--tls-ca", str(certs.ca), "--output", str(out),
                     "--timeout", "10"]) == 0
    assert "pulled 6 messages from 2 endpoints" in capsys.readouterr().out


def test_the_real_job_serves_tls_and_every_batch_is_read_once(tmp_path, certs):
    from test_job_end_to_end import CORA, JOB, LOCAL, check_messages, cora_edges
    if not CORA.exists():
        pytest.skip("../shared/data/cora is missing")
    registry = tmp_path / "registry"
    job = subprocess.Popen([str(LOCAL), *JOB, "--serve", "--registry", str(registry), "--channel-tls-cert",
                            str(certs.server_cert), "--channel-tls-key", str(certs.server_key)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with pytest.raises(ChannelError, match=r"endpoint \d \(127\.0\.0\.1:\d+\): serves TLS .*pass tls_ca"):
            ChannelClient(registry=registry, connect_timeout=120).connect()
        with pytest.raises(ChannelError, match=r"endpoint \d \(127\.0\.0\.1:\d+\): TLS certificate verification "
                                               r"failed"):
            ChannelClient(registry=registry, tls_ca=certs.other_ca, connect_timeout=120).connect()
        # Given the address alone, a plain client's HELLO gets the endpoint's plain ERROR.
        info = json.loads((registry / "endpoint-0.json").read_text())
        with pytest.raises(ChannelError, match=r"refused the connection: .*serves TLS only"):
            ChannelClient(endpoints=[f"{info['host']}:{info['port']}"], token=info["token"],
                          connect_timeout=30).connect()
        with ChannelClient(registry=registry, tls_ca=certs.ca, prefetch=2, connect_timeout=120) as client:
            pulled = list(client)
        stdout, stderr = job.communicate(timeout=120)
    finally:
        if job.poll() is None:
            job.kill()
            job.communicate()
    assert job.returncode == 0, stderr[-4000:]
    check_messages(pulled, cora_edges())  # every batch of both epochs exactly once, real edges
    assert client.duplicates == 0
    infos = [json.loads(p.read_text()) for p in sorted(registry.glob("endpoint-*.json"))]
    assert len(infos) == 2 and all(info["tls"] is True for info in infos)
