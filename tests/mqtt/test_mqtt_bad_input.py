"""Bad input on both sides of the bridge: wrong credentials, malformed
messages on baulk/ topics, duplicates and gaps, bad URLs and config."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from baulk.host.config import ConfigError
from baulk.host.mqtt import wire
from baulk.host.mqtt.connection import BrokerRefused, parse_url, settings_from_config
from baulk.host.mqtt.wire import BridgeEvent, Position
from baulk.host.store import Store
from tests.mqtt.broker import Broker
from tests.mqtt.helpers import (
    VENUE,
    RawClient,
    TableStream,
    make_bridge,
    make_mirror,
    received_all,
    seen_positions,
    wait_for,
)

pytestmark = pytest.mark.broker


def _event(seq: int, prev: int | None, boot: int = 5, table: str = "t1") -> bytes:
    e = BridgeEvent(table, Position(boot, seq), 1_700_000_000_000, {"ev": "strike"}, [0, 0])
    return wire.event_payload(VENUE, "pc-x", e, Position(boot, prev) if prev else None)


# ---------------------------------------------------------------------- credentials
def test_wrong_password_is_refused_with_a_clear_sentence(
    secured_broker: Broker, tmp_path: Path
) -> None:
    store = Store(tmp_path / "a.sqlite")
    try:
        bridge = make_bridge(secured_broker.url_for("scorer", "wrong"), store.path)
        with pytest.raises(BrokerRefused, match="refused the user name or password"):
            bridge.start()
        anonymous = make_bridge(secured_broker.url, store.path)
        with pytest.raises(BrokerRefused, match="refused the user name or password"):
            anonymous.start()
        mirror = make_mirror(secured_broker.url_for("nobody", "x"))
        with pytest.raises(BrokerRefused, match=r"mqtt://nobody@127\.0\.0\.1:\d+"):
            mirror.start()
    finally:
        store.close()


def round_trip(url: str, tmp_path: Path, count: int) -> None:
    """A bridge publishes ``count`` stored events and a mirror receives them all."""
    store = Store(tmp_path / "a.sqlite")
    t1 = TableStream(store, "t1")
    mirror = make_mirror(url)
    bridge = make_bridge(url, store.path)
    try:
        assert mirror.start()
        assert bridge.start()
        t1.add(count, bridge)
        wait_for(lambda: received_all(mirror, "t1", t1.written), f"{count} events")
    finally:
        bridge.stop()
        mirror.stop()
        store.close()


def test_right_password_is_taken(secured_broker: Broker, tmp_path: Path) -> None:
    round_trip(secured_broker.url_for("scorer", "right-password"), tmp_path, 5)


def test_a_password_never_shows_in_descriptions() -> None:
    o = parse_url("mqtt://scorer:s%40cret@broker.local:1884", env={})
    assert o.password == "s@cret"
    assert "s@cret" not in o.describe() and "s@cret" not in repr(o)
    assert o.describe() == "mqtt://scorer@broker.local:1884"


# ---------------------------------------------------------------------- malformed
def test_malformed_messages_are_logged_and_skipped(
    broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    mirror = make_mirror(broker.url)
    raw = RawClient(broker.url)
    caplog.set_level(logging.WARNING, logger="baulk.mqtt.mirror")
    try:
        assert mirror.start()
        on = f"baulk/{VENUE}/pc-x"
        bad = [
            (f"{on}/t1/events", b"not json at all"),
            (f"{on}/t7/events", b"\xff\xfe\x00"),
            (f"{on}/t2/events", b"[1, 2, 3]"),
            (f"{on}/t3/events", json.dumps({"v": 2, "table": "t3"}).encode()),
            (f"{on}/t4/events", _event(1, None, table="t1")),  # table differs
            (f"baulk/{VENUE}/pc-y/t1/events", _event(1, None)),  # host differs
            (f"{on}/t5/state", json.dumps({"v": 1, "table": "t5"}).encode()),
            (
                f"{on}/t6/events",
                json.dumps(
                    {
                        "v": 1,
                        "venue": VENUE,
                        "table": "t6",
                        "host": "pc-x",
                        "boot": -1,
                        "seq": 1,
                        "rx_ms": 0,
                    }
                ).encode(),
            ),
            (f"baulk/{VENUE}/pc-a/status", b'{"v": 1, "online": "yes"}'),
            (f"{on}/t1/nonsense", b"{}"),
            (f"{on}/bad id!/state", b"{}"),
            (f"{on}/t1/extra/level", b"{}"),
            (f"baulk/{VENUE}/t1/state", b"{}"),  # a host of an older baulk: no host level
            (f"{on}/t8/events", b"[" * 100_000),  # deep: refused before the parser
            (f"{on}/t8/state", b'{"v": 1, "state": ' + b'{"a": ' * 40 + b"1" + b"}" * 41),
            (f"{on}/t8/events", b" " * (wire.LIMITS[wire.EVENTS] + 1)),
        ]
        for topic, payload in bad:
            raw.publish(topic, payload)
        raw.publish(f"{on}/t1/events", _event(1, None))
        wait_for(lambda: seen_positions(mirror, "t1") == {Position(5, 1)}, "the good event")
        assert mirror.stats.malformed == len(bad)
        assert mirror.session.connected
        skipped = [r.getMessage() for r in caplog.records if "malformed" in r.getMessage()]
        assert len(skipped) == len(bad) - 1  # the second t8/events came within 10 s of the first
        # Counted and logged in a line, never with a traceback.
        assert not [r for r in caplog.records if r.exc_info]
        assert any("not JSON" in m for m in skipped)
        assert any("v=2" in m for m in skipped)
        assert any("not UTF-8" in m for m in skipped)
        assert any("unknown kind 'nonsense'" in m for m in skipped)
        assert any("'boot' must be an integer" in m for m in skipped)
        assert any("field 'host' is 'pc-x' but the topic says 'pc-y'" in m for m in skipped)
        assert any("from a host of an older baulk" in m for m in skipped)
        assert any("nests deeper than 32 levels" in m for m in skipped)
        # Nothing of the bad messages made it into the mirror's tables.
        assert set(mirror.tables) == {"t1"}
    finally:
        raw.close()
        mirror.stop()


def test_a_flood_of_malformed_messages_is_logged_sparingly(
    broker: Broker, caplog: pytest.LogCaptureFixture
) -> None:
    mirror = make_mirror(broker.url)
    raw = RawClient(broker.url)
    caplog.set_level(logging.WARNING, logger="baulk.mqtt.mirror")
    try:
        assert mirror.start()
        for i in range(50):
            raw.publish(f"baulk/{VENUE}/pc-x/t1/events", b"garbage")
            raw.publish(f"baulk/{VENUE}/pc-x/f{i}/events", b"garbage")  # a new topic each time
        raw.publish(f"baulk/{VENUE}/pc-x/t1/events", _event(1, None))
        wait_for(lambda: seen_positions(mirror, "t1") == {Position(5, 1)}, "the good event")
        assert mirror.stats.malformed == 100
        # One line for the topic, and at most 20 in 10 s however many topics.
        assert len([r for r in caplog.records if "malformed" in r.getMessage()]) == 20
    finally:
        raw.close()
        mirror.stop()


# ---------------------------------------------------------------------- duplicates, gaps
def gaps(table: Any) -> list[Position]:
    return [g.missing for g in list(table.gaps.values())]


def test_duplicates_are_dropped_and_gaps_noticed_until_filled(broker: Broker) -> None:
    mirror = make_mirror(broker.url, ask_replays=False)
    raw = RawClient(broker.url)
    topic = f"baulk/{VENUE}/pc-x/t1/events"
    try:
        assert mirror.start()
        for seq, prev in ((1, None), (2, 1), (2, 1), (1, None), (3, 2)):
            raw.publish(topic, _event(seq, prev))
        wait_for(lambda: mirror.stats.messages >= 5, "five messages")
        m = mirror.tables["t1"]
        assert (m.received, m.duplicates) == (3, 2)
        assert not m.gaps
        # 4 and 5 are lost on the way: 6 names 5 as the one before it.
        raw.publish(topic, _event(6, 5))
        # The mirror updates its gaps on its own thread: wait for the outcome,
        # not just the arrival.
        wait_for(lambda: gaps(m) == [Position(5, 5)], "the gap before event 6")
        assert m.received == 4
        assert m.gaps_noticed == 1
        board_gap = mirror.snapshot()["tables"]["t1"]["gaps"]
        assert board_gap == [{"missing": [5, 5], "before": [5, 6]}]
        # The host catches up: 5 arrives (naming 4, also never seen), then 4.
        raw.publish(topic, _event(5, 4))
        wait_for(lambda: gaps(m) == [Position(5, 4)], "event 5 and the gap before it")
        assert m.received == 5
        raw.publish(topic, _event(4, 3))
        wait_for(lambda: m.received == 6 and not gaps(m), "event 4 filling the last gap")
        assert m.gaps_filled == 2
        assert mirror.snapshot()["tables"]["t1"]["seen"] == {"5": [[1, 6]]}
        # A new boot carries on from the last event of the old one: no gap.
        raw.publish(
            topic,
            wire.event_payload(
                VENUE, "pc-x", BridgeEvent("t1", Position(9, 7), 0, {"ev": "rest"}), Position(5, 6)
            ),
        )
        wait_for(lambda: m.received == 7, "the new boot's first event")
        assert not m.gaps and m.duplicates == 2
    finally:
        raw.close()
        mirror.stop()


# ---------------------------------------------------------------------- URLs and config
@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://broker:1883", "must start with mqtt://"),
        ("mqtt://", "names no broker host"),
        ("mqtt://broker:99999", "Port out of range"),
        ("mqtt://broker:1883/topic", "a path is not used"),
        ("mqtt://broker?bogus=1", "unknown option 'bogus'"),
        ("mqtts://broker?insecure=perhaps", "must be true or false"),
        ("mqtt://broker?keepalive=1", "5..3600"),
    ],
)
def test_bad_urls_are_refused_with_the_reason(url: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        parse_url(url, env={})


def test_url_forms() -> None:
    o = parse_url("mqtts://u:p@broker.example?ca=/etc/ssl/ca.pem&keepalive=30", env={})
    assert (o.host, o.port, o.tls, o.username, o.password) == (
        "broker.example",
        8883,
        True,
        "u",
        "p",
    )
    assert (o.ca_file, o.keepalive) == ("/etc/ssl/ca.pem", 30)
    assert parse_url("mqtt://broker", env={}).port == 1883
    o = parse_url("mqtt://u@broker", env={"BAULK_MQTT_PASSWORD": "from-env"})
    assert o.password == "from-env"


def test_settings_from_config() -> None:
    assert settings_from_config({}) is None  # no broker anywhere: the bridge is off
    s = settings_from_config(
        {
            "url": "mqtt://broker",
            "venue": "north-club",
            "host_id": "pc-1",
            "username": "u",
            "password": "p",
        },
        env={},
    )
    assert s is not None
    assert (s.venue, s.host_id, s.options.username, s.options.password) == (
        "north-club",
        "pc-1",
        "u",
        "p",
    )
    s = settings_from_config({"url": "mqtt://a"}, url="mqtt://b", venue="v2", env={})
    assert s is not None and s.options.host == "b" and s.venue == "v2"
    cases: list[tuple[dict[str, Any], str]] = [
        ({"url": "mqtt://b", "colour": "red"}, "unknown key 'colour'"),
        ({"url": "mqtt://b", "venue": "north club"}, "venue id must be"),
        ({"url": "mqtt://b", "password": "p"}, "no user name"),
        ({"url": "mqtt://b", "ca_file": "/x.pem"}, "use mqtts://"),
        ({"url": "mqtts://b", "ca_file": "/no/such/ca.pem"}, "does not exist"),
        ({"url": 5}, "must be a string"),
        ({"url": "mqtt://b", "tls_insecure": "yes"}, "true or false"),
    ]
    for section, problem in cases:
        with pytest.raises(ConfigError, match=problem):
            settings_from_config(section, env={})


# ---------------------------------------------------------------------- TLS
def test_tls_with_the_venue_ca_and_a_password(tls_broker: Broker, tmp_path: Path) -> None:
    assert tls_broker.tls is not None
    url = tls_broker.url_for("scorer", "right-password") + f"?ca={tls_broker.tls.ca}"
    round_trip(url, tmp_path, 3)


def test_tls_refuses_a_broker_it_cannot_trust(tls_broker: Broker, tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite")
    try:
        bridge = make_bridge(tls_broker.url_for("scorer", "right-password"), store.path)
        with pytest.raises(BrokerRefused, match="TLS certificate is not trusted"):
            bridge.start()
        plain = make_bridge(tls_broker.url.replace("mqtts", "mqtt"), store.path)
        assert not plain.start(timeout=1.0)  # no answer in plain MQTT: keeps trying
        plain.stop()
    finally:
        store.close()
