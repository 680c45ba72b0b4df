"""HTTPS for the operator's phone: [server] tls_cert and tls_key in the
config, checked when it is read, and the boards, API and console served
over TLS with a Secure session cookie."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from baulk.host import config as config_mod
from tests.host.harness import TOKEN, DaemonThread
from tests.web.client import Browser


def make_certificate(folder: Path, name: str = "server") -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "baulk test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / f"{name}.crt", folder / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


def write_config(folder: Path, server: str) -> Path:
    path = folder / "baulk.toml"
    path.write_text(
        f'[server]\nport = 0\noperator_token = "{TOKEN}"\n{server}\n'
        '[store]\npath = "store.sqlite"\n[autodetect]\nenabled = false\n'
    )
    return path


def test_the_boards_and_the_console_are_served_over_https(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)
    cfg = config_mod.load(write_config(tmp_path, 'tls_cert = "server.crt"\ntls_key = "server.key"'))
    assert cfg.tls_cert == cert and cfg.tls_key == key  # relative to the config's folder
    d = DaemonThread(cfg).start()
    try:
        assert d.url.startswith("https://127.0.0.1:")
        trusted = ssl.create_default_context(cafile=str(cert))
        b = Browser(d.url, context=trusted)
        assert b.send("GET", "/api").body["actions_enabled"] is True
        signed = b.sign_in(TOKEN)
        assert signed.status == 200
        cookies = signed.header("Set-Cookie")
        assert {c.split("=")[0] for c in cookies} == {"baulk_session", "baulk_device"}
        for cookie in cookies:
            assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        # A client that does not trust the certificate gets no answer at all.
        with pytest.raises(ssl.SSLError):
            Browser(d.url, context=ssl.create_default_context()).send("GET", "/api")
    finally:
        d.stop()


def test_tls_config_mistakes_are_clear(tmp_path: Path) -> None:
    cert, key = make_certificate(tmp_path)
    other_cert, _ = make_certificate(tmp_path, "other")
    cases = {
        'tls_cert = "server.crt"': "go together",
        'tls_cert = "missing.crt"\ntls_key = "server.key"': "there is no file",
        'tls_cert = "other.crt"\ntls_key = "server.key"': "cannot be used",
        'tls_cert = "server.key"\ntls_key = "server.key"': "cannot be used",
        "tls_cert = 5\ntls_key = 6": "must be a str",
        "session_hours = 0": "session_hours",
    }
    for server, words in cases.items():
        with pytest.raises(config_mod.ConfigError) as why:
            config_mod.load(write_config(tmp_path, server))
        assert words in str(why.value), (server, why.value)
        assert "BEGIN" not in str(why.value)  # a key's content is never printed
    assert other_cert.exists() and key.exists() and cert.exists()


def test_without_tls_files_the_server_speaks_plain_http(tmp_path: Path) -> None:
    cfg = config_mod.load(write_config(tmp_path, ""))
    assert cfg.tls_cert is None and config_mod.tls_context(cfg) is None
    assert cfg.session_hours == config_mod.DEFAULT_SESSION_HOURS


def test_the_venue_guides_certificate_commands_work(tmp_path: Path) -> None:
    """docs/VENUE.md's openssl commands, run as written (in a scratch folder
    and for 127.0.0.1), make files baulk serves HTTPS with and that a phone
    trusting the club's CA accepts."""
    import re
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is missing")
    guide = (Path(__file__).resolve().parents[2] / "docs" / "VENUE.md").read_text()
    section = guide.split("## 4.", 1)[1].split("## 5.", 1)[0]
    script = re.search(r"```sh\n(.*?)```", section, re.S)
    assert script is not None
    lines = []
    for line in script.group(1).replace("\\\n", " ").splitlines():
        if line.startswith(("sudo mkdir", "sudo chown")):
            continue  # folders and owners of the real PC
        lines.append(line.replace("sudo ", "").replace("cd /etc/baulk/tls", ":"))
    commands = "\n".join(lines).replace("192.168.1.20", "127.0.0.1")
    subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=tmp_path, check=True,
                   capture_output=True)  # fmt: skip
    cfg = config_mod.load(write_config(tmp_path, 'tls_cert = "cert.pem"\ntls_key = "key.pem"'))
    d = DaemonThread(cfg).start()
    try:
        phone = ssl.create_default_context(cafile=str(tmp_path / "ca.crt"))
        assert Browser(d.url, context=phone).send("GET", "/api").status == 200
    finally:
        d.stop()
