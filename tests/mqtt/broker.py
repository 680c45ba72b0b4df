"""A real Mosquitto for the MQTT tests: started on a free loopback port with a
config of its own in a temporary folder, stopped (or killed, or restarted on the
same port) when the test says so."""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def mosquitto_missing() -> str | None:
    if not os.path.exists(MOSQUITTO):
        return (
            "the MQTT tests need the Mosquitto broker: apt-get install mosquitto "
            "(make test installs it)"
        )
    return None


@dataclass(frozen=True)
class TlsFiles:
    ca: Path
    cert: Path
    key: Path


def make_test_ca(folder: Path) -> TlsFiles:
    """A throw-away CA and a server certificate for 127.0.0.1 (openssl)."""

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    run(
        "req",
        "-x509",
        *ec,
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=baulk test CA",
    )
    run("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    )
    return TlsFiles(folder / "ca.pem", folder / "server.pem", folder / "server.key")


class Broker:
    """One mosquitto process.  ``users`` switches anonymous access off and
    writes a password file; ``acl`` is the text of an ACL file (Mosquitto's
    ``acl_file``); ``persistence`` keeps sessions and retained messages across
    a graceful restart, as a production broker should."""

    def __init__(
        self,
        folder: Path,
        *,
        users: dict[str, str] | None = None,
        persistence: bool = True,
        tls: TlsFiles | None = None,
        acl: str | None = None,
    ) -> None:
        self.folder = folder
        self.port = free_port()
        self.users = users
        self.acl = acl
        self.persistence = persistence
        self.tls = tls
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = folder / "mosquitto.log"
        self.conf = folder / "mosquitto.conf"
        self.starts = 0
        self._write_config()

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{HOST}:{self.port}"

    def url_for(self, user: str, password: str) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{user}:{password}@{HOST}:{self.port}"

    def _write_config(self) -> None:
        lines = [
            f"listener {self.port} {HOST}",
            f"user {getpass.getuser()}",
            f"log_dest file {self.log_path}",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
            "max_queued_messages 100000",
            f"persistence {'true' if self.persistence else 'false'}",
            f"persistence_location {self.folder}/",
        ]
        if self.tls is not None:
            lines += [
                f"cafile {self.tls.ca}",
                f"certfile {self.tls.cert}",
                f"keyfile {self.tls.key}",
            ]
        if self.users is not None:
            pw = self.folder / "passwd"
            pw.write_text("")
            for user, password in self.users.items():
                subprocess.run(
                    [MOSQUITTO_PASSWD, "-b", str(pw), user, password],
                    check=True,
                    capture_output=True,
                )
            lines += ["allow_anonymous false", f"password_file {pw}"]
        else:
            lines.append("allow_anonymous true")
        if self.acl is not None:
            acl = self.folder / "acl"
            acl.write_text(self.acl)
            lines.append(f"acl_file {acl}")
        self.conf.write_text("\n".join(lines) + "\n")

    def start(self, timeout: float = 10.0) -> None:
        assert self.proc is None
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"mosquitto exited at start: {err} {self.log_text()[-2000:]}")
            try:
                with socket.create_connection((HOST, self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on {self.port}: {self.log_text()[-2000:]}")

    def stop(self) -> None:
        """Graceful: mosquitto saves its persistence file on SIGTERM."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def kill(self) -> None:
        """A crash: nothing is saved."""
        if self.proc is None:
            return
        self.proc.kill()
        self.proc.wait()
        self.proc = None

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        if down_for:
            time.sleep(down_for)
        self.start()

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""
