"""Test certificates made with the openssl command line: a CA and a server certificate signed by it
for subjectAltName IP:127.0.0.1 and DNS:localhost (PEM; the key PKCS#8, unencrypted, as the job's
--channel-tls-key takes it), and a second, unrelated CA."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Certs:
    ca: Path           # the CA that signed server_cert
    server_cert: Path  # leaf first, then the CA: a chain
    server_key: Path
    other_ca: Path     # a CA that signed nothing here


def _openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed: {done.stderr.strip()}")


def _ca(directory: Path, name: str) -> None:
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=fanout test {name}",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
             cwd=directory)


def make_certs(directory: Path) -> Certs:
    """Write the CAs and the server certificate into ``directory``."""
    if shutil.which("openssl") is None:
        raise RuntimeError("the TLS tests need the openssl command (Debian: apt-get install openssl)")
    directory.mkdir(parents=True, exist_ok=True)
    _ca(directory, "ca")
    _ca(directory, "other-ca")
    (directory / "server.ext").write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
        "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost", cwd=directory)
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
             "-days", "2", "-extfile", "server.ext", "-out", "server-leaf.pem", cwd=directory)
    chain = directory / "server.pem"
    chain.write_text((directory / "server-leaf.pem").read_text() + (directory / "ca.pem").read_text())
    return Certs(ca=directory / "ca.pem", server_cert=chain, server_key=directory / "server.key",
                 other_ca=directory / "other-ca.pem")
