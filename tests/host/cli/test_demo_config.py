"""``baulk demo --config FILE``: a club tries its own tariffs on simulated
tables, and the demo's own tariff is written down (its --help says it).  The
demo runs for real: simulated tables over ptys, the daemon, the desk's API."""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from baulk.host.cli import demo
from tests.host.harness import http

pytestmark = pytest.mark.slow
CLUB = """
[[table]]
id = "north"
name = "North table"
port = "/dev/ttyACM0"

[billing]
timezone = "Europe/London"
venue = "Test Club"

[[tariff]]
name = "pounds"
currency = "GBP"
per_hour = 7.5
per_frame = 1

[[item]]
name = "Cola"
price = 2.2
"""


def test_the_demos_own_tariff_is_in_its_help() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "baulk.host.cli.main", "demo", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    flat = " ".join(out.split())
    assert "120,000 toman an hour" in flat and "--config" in flat
    assert demo.DEMO_BILLING.tariffs[0].per_hour == 120_000
    assert demo.DEMO_BILLING.tariffs[0].peaks[0].per_hour == 180_000


def test_a_bad_config_stops_the_demo_with_its_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "club.toml"
    bad.write_text(CLUB.replace("per_hour = 7.5", "per_hour = 7.555"))
    done = subprocess.run(
        [sys.executable, "-m", "baulk.host.cli.main", "demo", "--config", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "tariff[0].per_hour 7.555 has more than 2 decimals for GBP" in done.stderr


DEMO = (sys.executable, "-m", "baulk.host.cli.main", "demo")


@contextlib.contextmanager
def running_demo(tmp_path: Path, *extra: str) -> Iterator[tuple[str, str, list[str]]]:
    """``baulk demo`` with ``extra`` arguments, once it printed its token:
    (its URL, the token, what it printed)."""
    proc = subprocess.Popen(
        [*DEMO, "--speed", "5", "--store", str(tmp_path / "demo.sqlite"), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines: list[str] = []
        assert proc.stdout is not None
        while not any("operator token" in x for x in lines):
            line = proc.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        token = re.search(r"operator token\s+(\S+)", "".join(lines))
        url = re.search(r"the boards are on (\S+)", "".join(lines))
        assert token is not None and url is not None
        yield url.group(1), token.group(1), lines
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_demo_bills_with_the_clubs_tariff(tmp_path: Path) -> None:
    club = tmp_path / "club.toml"
    club.write_text(CLUB)
    port = str(_free_port())
    with running_demo(tmp_path, "--config", str(club), "--port", port) as (url, token, lines):
        assert url.endswith(f":{port}")
        assert any("pounds" in x for x in lines)
        status, reply = http(url + "/api/tables/north/session", {}, token=token)
        assert status == 200, reply
        bill = reply["bill"]
        assert (bill["tariff"], bill["currency"], bill["table_id"]) == ("pounds", "GBP", "north")
        desk = http(url + "/api/desk", token=token)[1]
        assert desk["venue"] == "Test Club"
        table = desk["tables"][0]
        assert table["name"] == "North table" and table["items"][0]["name"] == "Cola"


def test_the_demo_simulates_every_table_of_the_config_on_its_port(tmp_path: Path) -> None:
    """Each [[table]] (not the first two), its name and handset language, and
    the [server] port when no --port is given."""
    port = _free_port()
    club = tmp_path / "club.toml"
    more = "".join(
        f'[[table]]\nid = "{tid}"\nname = "{tid.title()} table"\nserial_number = "S{tid}"\n'
        for tid in ("south", "east")
    )
    text = CLUB.replace("[billing]", f'handset_lang = "fa"\n\n{more}\n[billing]')
    club.write_text(f"[server]\nport = {port}\n" + text)
    with running_demo(tmp_path, "--config", str(club)) as (url, token, _):
        assert url == f"http://127.0.0.1:{port}"
        tables = http(url + "/api/tables")[1]
        named = {t["table"]: t["name"] for t in tables["tables"]}
        assert named == {"north": "North table", "south": "South table", "east": "East table"}
        lang = http(url + "/api/tables/north/handset", token=token)[1]
        assert lang["lang"] == "fa", lang
