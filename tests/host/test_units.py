"""Host parts on their own: config, frame splitting, store, live feed."""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from pathlib import Path

import pytest

from baulk.host import config as config_mod
from baulk.host.link.channel import NOISE_EVERY_MS, NoiseReport, TableChannel
from baulk.host.link.port import PortFinder, PortInfo
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.sim.matches import generate_match
from baulk.host.store import Batch, EventRow, Store
from baulk.host.venue.live import LiveHub
from baulk.protocol import frame, host_codec, messages

GOOD = """
[server]
bind = "127.0.0.1"
port = 9000
operator_token = "from-the-file-123"

[store]
path = "data/venue.sqlite"

[autodetect]
usb = ["2e8a:0005", "1A86:7523"]

[[table]]
id = "t1"
name = "Table 1"
port = "/dev/ttyACM0"

[[table]]
id = "t2"
name = "Table 2"
serial_number = "E6614103E7452D2F"
"""


def test_config_reads_tables_token_and_defaults(tmp_path: Path) -> None:
    path = tmp_path / "baulk.toml"
    path.write_text(GOOD)
    cfg = config_mod.load(path, env={})
    assert [t.id for t in cfg.tables] == ["t1", "t2"]
    assert cfg.tables[1].serial_number == "E6614103E7452D2F" and cfg.tables[1].port is None
    assert cfg.bind == "127.0.0.1" and cfg.port == 9000
    assert cfg.operator_token == "from-the-file-123"
    assert cfg.store_path == tmp_path.resolve() / "data/venue.sqlite"
    assert cfg.usb_ids == ((0x2E8A, 0x0005), (0x1A86, 0x7523))
    assert config_mod.load(path, env={"BAULK_TOKEN": "from-the-env-456"}).operator_token == (
        "from-the-env-456"
    )
    empty = config_mod.parse({}, env={})
    assert (empty.bind, empty.port, empty.operator_token) == ("127.0.0.1", 8047, None)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[server\nport = 1", "not valid TOML"),
        ("[server]\nport = 'x'", "server.port must be an integer"),
        ("[server]\nport = 70000", "0..65535"),
        ("[server]\nbogus = 1", "unknown key 'bogus'"),
        ("[server]\noperator_token = 'short'", "at least 8"),
        ("[[table]]\nid = 't 1'\nport = '/dev/x'", "table[0].id"),
        ("[[table]]\nid = 't1'", "exactly one of port or serial_number"),
        ("[[table]]\nid = 't1'\nport = 'a'\n[[table]]\nid = 't1'\nport = 'b'", "used twice"),
        ("[autodetect]\nusb = ['2e8a']", "VID:PID"),
        # a rate no port can take used to kill the table's link silently,
        # and 0 silently became 115200
        ("[[table]]\nid = 't1'\nport = 'a'\nbaud = 99999999999999999", "table[0].baud"),
        ("[[table]]\nid = 't1'\nport = 'a'\nbaud = 0", "table[0].baud must be a serial"),
        ("[[table]]\nid = 't1'\nport = 'a'\nbaud = 115201", "not 115201"),
        ("[[table]]\nid = 't1'\nport = 'a'\nbaud = " + "9" * 5000, "a number is far too long"),
    ],
)
def test_bad_config_is_refused_with_a_clear_message(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(config_mod.ConfigError, match=re.escape(needle)):
        config_mod.load(path, env={})


def test_missing_config_file() -> None:
    with pytest.raises(config_mod.ConfigError, match="cannot read config"):
        config_mod.load("/nonexistent/baulk.toml")


def test_port_finder_by_serial_number_and_vid_pid() -> None:
    ports = [
        PortInfo("/dev/ttyACM0", "AAA", 0x2E8A, 0x0005),
        PortInfo("/dev/ttyUSB0", "BBB", 0x0403, 0x6001),
    ]
    finder = PortFinder([(0x2E8A, 0x0005)], lister=lambda: ports)
    assert finder.by_serial("AAA") == "/dev/ttyACM0"
    assert finder.by_serial("ZZZ") is None
    assert [p.device for p in finder.controllers()] == ["/dev/ttyACM0"]


def test_frame_splitter_resyncs_after_garbage_and_keeps_raw_bytes() -> None:
    body = messages.event_body({"ev": "pot", "ball": "red", "pocket": "tl"}, [1, 0])
    good = frame.encode_frame(messages.EVENT, frame.FLAG_REL, 7, body)
    s = host_codec.StreamDecoder()
    noise = bytes(range(1, 200)) * 4  # longer than a frame: dropped up to the next 0x00
    got = s.feed_raw(noise + b"\x00" + good[:5]) + s.feed_raw(good[5:] + b"\x02\x01\x00" + good)
    errors = [f.error for _, f in got]
    assert errors[0] == frame.E_OVERSIZE
    good_ones = [(raw, f) for raw, f in got if f.error is None]
    assert len(good_ones) == 2
    assert all(raw + b"\x00" == good for raw, _ in good_ones)
    assert good_ones[0][1].seq == 7 and good_ones[0][1].body == body


def event_rows(table: str, events: list[dict[str, object]], boot: int = 1) -> list[EventRow]:
    shadow = ShadowReferee(table)
    out = []
    for i, ev in enumerate(events, 1):
        a = shadow.apply(ev, (boot, i))
        out.append(EventRow(table, boot, i, 1000 + i, ev, scores=[0, 0], applied=a, raw=b"x"))
    return out


def test_store_keeps_each_event_once_and_raw_frames_append_only(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    events = generate_match(1, best_of=1)
    rows = event_rows("t1", events)
    done = store.write(Batch(events=rows[:50])).done
    assert done == {"t1": 50}
    # a batch that repeats stored events (overlap) stores only the new ones
    store.write(Batch(events=rows[40:]))
    db = store.db
    assert db.execute("SELECT count(*), count(DISTINCT seq) FROM events").fetchone() == (
        len(events),
        len(events),
    )
    assert db.execute("SELECT count(*) FROM raw_frames").fetchone()[0] == len(events)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE raw_frames SET data = x'00'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM raw_frames")
    assert db.execute("SELECT count(*) FROM matches").fetchone()[0] == 1
    assert db.execute("SELECT count(*) FROM frames").fetchone()[0] == 1
    store.close()


def test_store_refuses_a_file_that_is_not_sqlite(tmp_path: Path) -> None:
    bad = tmp_path / "not.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    from baulk.host.store import StoreError

    with pytest.raises(StoreError, match="cannot open the store"):
        Store(bad)


def test_live_feed_coalesces_for_slow_clients() -> None:
    async def run() -> None:
        hub = LiveHub()
        hub.publish("t1", {"n": 0})
        sub = hub.subscribe({"t1"})
        other = hub.subscribe({"t2"})
        for n in range(1, 50):
            hub.publish("t1", {"n": n})
        got = await sub.take()
        assert len(got) == 1 and '"n":49' in got[0] and '"version":50' in got[0]
        assert not other.pending
        assert '"schema": 1' in hub.hello()

    asyncio.run(run())


def test_shadow_projects_frames_and_big_breaks() -> None:
    shadow = ShadowReferee("t1")
    events: list[dict[str, object]] = [{"ev": "match", "players": ["A", "B"], "best_of": 1}]
    for _ in range(15):
        events += [{"ev": "strike"}, {"ev": "pot", "ball": "red"}, {"ev": "pot", "ball": "black"}]
        events.pop()
        events += [{"ev": "rest"}, {"ev": "strike"}, {"ev": "pot", "ball": "black"}]
        events += [{"ev": "rest"}]
    for c in ("yellow", "green", "brown", "blue", "pink", "black"):
        events += [{"ev": "strike"}, {"ev": "pot", "ball": c}, {"ev": "rest"}]
    breaks = []
    frames = []
    for i, ev in enumerate(events, 1):
        a = shadow.apply(ev, (1, i))
        assert a.accepted, ev
        breaks += a.breaks
        frames += a.frames_done
    assert [(b.side, b.points) for b in breaks] == [(0, 147)]
    assert [(f.frame, f.scores, f.winner) for f in frames] == [(1, [147, 0], 0)]


def test_a_noisy_line_is_summed_up_in_the_log_not_line_by_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="baulk.link")
    noise = NoiseReport("t1")
    for i in range(5000):
        noise.bad("crc" if i % 4 else "cobs", i)
    noise.report(5000)  # not yet: at most one line every NOISE_EVERY_MS
    assert not caplog.records
    noise.report(NOISE_EVERY_MS)
    (line,) = caplog.records
    assert line.levelno == logging.WARNING
    assert line.getMessage() == "table t1: 5000 bad frames in 10 s (cobs 1250, crc 3750)"
    noise.bad("crc", 20_000)
    noise.report(30_000)  # a trickle is information, not a warning
    assert caplog.records[-1].levelno == logging.INFO
    assert noise.total == 5001


def test_a_dead_link_is_logged_as_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    class Quiet:
        def on_status(self, channel: TableChannel) -> None:
            pass

    caplog.set_level(logging.INFO, logger="baulk.link")
    channel = TableChannel("t1", lambda: None, Quiet())  # type: ignore[arg-type]
    channel._set_state("online", "")
    channel._set_state("connecting", "no frame from the device for 2.5 s")
    assert caplog.records[-1].levelno == logging.WARNING
    assert caplog.records[-1].getMessage() == (
        "table t1: link down: no frame from the device for 2.5 s"
    )


def test_a_refused_device_saying_hello_twice_in_one_read_counts_no_gap() -> None:
    """A wrong device numbered far ahead of the table (base 101, the table
    stored 20) says hello twice before the daemon reads its port: both land
    in one batch.  Its numbering implies no loss of this table's events, so
    the gap count stays 0 once the daemon refuses it; the count held from
    before the second hello already had the first one's 80 in it."""

    class Refuses:
        def on_status(self, channel: TableChannel) -> None:
            pass

        def on_hello(self, channel: TableChannel, hello: object, raw: bytes) -> None:
            channel.not_this_tables_stream()  # what DeviceHandler does for a wrong table

    channel = TableChannel("t1", lambda: None, Refuses(), delivered=20)  # type: ignore[arg-type]
    body = {0: "peer-1.0", 1: "t2", 2: 1, 3: 100, 4: 101, 5: 0, 6: 8, 7: 256}
    raw = frame.encode_frame(messages.HELLO, 0, 0, body)
    hello = host_codec.decode_frame(raw[:-1])
    assert hello.error is None
    channel.feed([(raw, hello), (raw, hello)])
    assert channel.session.open and channel.hello is not None
    assert channel.session.receiver.gaps == 0
