"""The subscribing side of the MQTT bridge: every table of a venue, rebuilt from
the broker alone (``baulk board --mqtt URL``).

* ``state`` (retained) gives each table's whole board, as its host drew it;
* ``events`` are kept exactly once by ``(table, boot_id, seq)``: a repeat (QoS 1
  redelivery, a host catching up, a replay) is counted and dropped;
* each event names the one before it (``prev``).  When ``prev`` was never seen
  and lies after the point where this board joined the table's stream, some
  events are missing: a *gap*.  It closes when the missing event arrives (a host
  catching up sends it); if it stays open, the mirror asks the host to replay
  (``baulk/<venue>/<table>/replay``);
* ``status`` (retained, the hosts' last will) marks every table of a host that
  vanished as offline;
* a message on a ``baulk/`` topic that does not fit docs/MQTT.md is logged (at
  most once per topic every 10 s) and skipped; the mirror keeps running.

The mirror uses a persistent MQTT session (a fixed client id and
``clean_session`` off), so a broker with persistence keeps the events that
arrive while the board is away, and hands them over when it is back.
"""

from __future__ import annotations

import bisect
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from paho.mqtt.client import MQTTMessage

from baulk.host.mqtt import wire
from baulk.host.mqtt.connection import BrokerOptions, BrokerSession
from baulk.host.mqtt.wire import Position

log = logging.getLogger("baulk.mqtt.mirror")

GAP_GRACE: Final = 1.5  # s an open gap waits for a catching-up host before a replay request
REPLAY_EVERY: Final = 3.0  # s between replay requests for one table
MALFORMED_LOG_EVERY: Final = 10.0  # s between log lines for one topic


class SeqSet:
    """The sequence numbers seen in one boot, as sorted disjoint ranges
    ``[los[i], his[i]]``: a stream seen whole is one range, whatever its length."""

    def __init__(self) -> None:
        self.los: list[int] = []
        self.his: list[int] = []

    def _at(self, seq: int) -> int:
        """Index of the last range starting at or before ``seq`` (-1: none)."""
        return bisect.bisect_right(self.los, seq) - 1

    def __contains__(self, seq: int) -> bool:
        i = self._at(seq)
        return i >= 0 and seq <= self.his[i]

    def add(self, seq: int) -> bool:
        """Add ``seq``; False when it was already there."""
        los, his = self.los, self.his
        i = self._at(seq)
        if i >= 0 and seq <= his[i]:
            return False
        joins_left = i >= 0 and his[i] == seq - 1
        joins_right = i + 1 < len(los) and los[i + 1] == seq + 1
        if joins_left and joins_right:
            his[i] = his[i + 1]
            del los[i + 1], his[i + 1]
        elif joins_left:
            his[i] = seq
        elif joins_right:
            los[i + 1] = seq
        else:
            los.insert(i + 1, seq)
            his.insert(i + 1, seq)
        return True

    def below(self, seq: int) -> int | None:
        """The highest member smaller than ``seq``."""
        i = self._at(seq - 1)
        return min(self.his[i], seq - 1) if i >= 0 else None

    def ranges(self) -> list[list[int]]:
        return [[lo, hi] for lo, hi in zip(self.los, self.his, strict=True)]

    def __len__(self) -> int:
        return sum(hi - lo + 1 for lo, hi in zip(self.los, self.his, strict=True))


@dataclass
class Gap:
    missing: Position  # an event never seen that a later one names as its ``prev``
    before: Position  # that later event
    since: float  # monotonic time it was noticed


_UNSET: Final = Position(-1, -1)


@dataclass
class MirroredTable:
    venue: str
    table: str
    host: str | None = None
    board: dict[str, Any] | None = None
    pos: Position | None = None  # newest event the board reflects, as its host said
    link_online: bool | None = None
    link_last_seen_ms: int | None = None
    baseline: Position | None = _UNSET  # where this mirror joined the stream (None: at its start)
    seen: dict[int, SeqSet] = field(default_factory=dict)
    gaps: dict[Position, Gap] = field(default_factory=dict)
    received: int = 0
    duplicates: int = 0
    gaps_noticed: int = 0
    gaps_filled: int = 0
    last_event: Position | None = None
    replay_at: float = 0.0
    replays_asked: int = 0

    def has_seen(self, p: Position) -> bool:
        s = self.seen.get(p.boot)
        return s is not None and p.seq in s

    def before_join(self, p: Position) -> bool:
        """``p`` lies at or before the point where this mirror joined (so the
        board state it started from already holds it)."""
        b = self.baseline
        return b is not None and b is not _UNSET and p.boot == b.boot and p.seq <= b.seq

    def summary(self) -> dict[str, Any]:
        return {
            "host": self.host,
            "pos": self.pos.to_json() if self.pos else None,
            "received": self.received,
            "duplicates": self.duplicates,
            "gaps_open": len(self.gaps),
            "gaps_noticed": self.gaps_noticed,
            "gaps_filled": self.gaps_filled,
            "last_event": self.last_event.to_json() if self.last_event else None,
        }

    def detail(self) -> dict[str, Any]:
        return {
            **self.summary(),
            "venue": self.venue,
            "table": self.table,
            "link_online": self.link_online,
            "seen": {str(boot): s.ranges() for boot, s in self.seen.items()},
            "gaps": [
                {"missing": g.missing.to_json(), "before": g.before.to_json()}
                for g in self.gaps.values()
            ],
            "replays_asked": self.replays_asked,
        }


@dataclass
class HostSeen:
    host: str
    online: bool
    reason: str
    at_ms: int | None
    tables: tuple[str, ...]


@dataclass
class MirrorStats:
    messages: int = 0
    events: int = 0
    duplicates: int = 0
    states: int = 0
    malformed: int = 0
    ignored: int = 0
    last_malformed: str | None = None


BoardCallback = Callable[[str, dict[str, Any]], None]
EventCallback = Callable[[str, wire.EventMessage], None]


class BrokerMirror:
    """Follows one venue on the broker.  ``on_board(table, board)`` runs (on
    paho's thread) whenever a table's board, as a scoreboard should draw it,
    changed; ``on_event(table, message)`` for every new event."""

    def __init__(
        self,
        options: BrokerOptions,
        venue: str,
        *,
        client_id: str,
        on_board: BoardCallback | None = None,
        on_event: EventCallback | None = None,
        gap_grace: float = GAP_GRACE,
        replay_every: float = REPLAY_EVERY,
        ask_replays: bool = True,
    ) -> None:
        self.venue = wire.check_id("venue", venue)
        self.on_board = on_board
        self.on_event = on_event
        self.gap_grace = gap_grace
        self.replay_every = replay_every
        self.ask_replays = ask_replays
        self.stats = MirrorStats()
        self.tables: dict[str, MirroredTable] = {}
        self.hosts: dict[str, HostSeen] = {}
        self._lock = threading.RLock()
        self._malformed_logged: dict[str, tuple[float, int]] = {}
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None
        self.session = BrokerSession(
            options,
            client_id,
            clean_session=False,
            name=f"board {venue}",
            subscriptions=(f"{wire.ROOT}/{self.venue}/#",),
            on_message=self._on_message,
        )

    @property
    def client_id(self) -> str:
        return self.session.client_id

    # ------------------------------------------------------------------ life
    def start(self, timeout: float = 5.0) -> bool:
        """Connect; raises BrokerRefused on wrong credentials or TLS trouble.
        Returns False when the broker is not reachable yet (it keeps trying)."""
        self._timer = threading.Thread(target=self._watch_gaps, name="baulk-mqtt-gaps", daemon=True)
        self._timer.start()
        try:
            return self.session.start(timeout)
        except Exception:
            self._stop.set()
            raise

    def stop(self) -> None:
        self._stop.set()
        if self._timer is not None:
            self._timer.join(timeout=2)
        self.session.stop()

    # ------------------------------------------------------------------ reading
    def _on_message(self, msg: MQTTMessage) -> None:
        self.stats.messages += 1
        payload = bytes(msg.payload)
        try:
            t = wire.parse_topic(msg.topic)
            if t.venue != self.venue:
                raise wire.Malformed(f"topic {msg.topic!r} is not of venue {self.venue!r}")
            if t.leaf == wire.EVENTS:
                self._event(wire.parse_event(t, payload))
            elif t.leaf == wire.STATE:
                if not payload:
                    return  # a retained state cleared by an operator
                self._state(wire.parse_state(t, payload))
            elif t.leaf == wire.LINK:
                if payload:
                    self._link(wire.parse_link(t, payload))
            elif t.leaf == wire.STATUS:
                if payload:
                    self._status(wire.parse_status(t, payload))
            else:
                self.stats.ignored += 1  # replay requests: for hosts
        except wire.Malformed as e:
            self._malformed(msg.topic, str(e))

    def _malformed(self, topic: str, why: str) -> None:
        self.stats.malformed += 1
        self.stats.last_malformed = f"{topic}: {why}"
        now = time.monotonic()
        with self._lock:
            if len(self._malformed_logged) > 1000:
                self._malformed_logged.clear()
            last, skipped = self._malformed_logged.get(topic, (0.0, 0))
            if now - last < MALFORMED_LOG_EVERY:
                self._malformed_logged[topic] = (last, skipped + 1)
                return
            self._malformed_logged[topic] = (now, 0)
        more = f" ({skipped} more since the last report)" if skipped else ""
        log.warning("skipped a malformed message on %s: %s%s", topic, why, more)

    def _mirror(self, table: str) -> MirroredTable:
        m = self.tables.get(table)
        if m is None:
            m = self.tables[table] = MirroredTable(self.venue, table)
        return m

    def _event(self, msg: wire.EventMessage) -> None:
        e = msg.event
        with self._lock:
            m = self._mirror(e.table)
            seen = m.seen.get(e.pos.boot)
            if seen is None:
                seen = m.seen[e.pos.boot] = SeqSet()
            if not seen.add(e.pos.seq):
                m.duplicates += 1
                self.stats.duplicates += 1
                return
            m.received += 1
            self.stats.events += 1
            m.last_event = e.pos
            if m.baseline is _UNSET:
                # First news of this table: the stream starts here for us.
                m.baseline = msg.prev
            elif (
                msg.prev is not None
                and not m.has_seen(msg.prev)
                and not m.before_join(msg.prev)
                and not m.before_join(e.pos)
                and msg.prev not in m.gaps
            ):
                m.gaps[msg.prev] = Gap(msg.prev, e.pos, time.monotonic())
                m.gaps_noticed += 1
                log.warning(
                    "table %s: events missing before %s (the one before it, %s, never came); "
                    "waiting for the host to catch up",
                    e.table,
                    e.pos,
                    msg.prev,
                )
            if m.gaps.pop(e.pos, None) is not None:
                m.gaps_filled += 1
                log.info("table %s: the missing event %s arrived", e.table, e.pos)
        if self.on_event is not None:
            self.on_event(e.table, msg)

    def _state(self, msg: wire.StateMessage) -> None:
        with self._lock:
            m = self._mirror(msg.table)
            if m.host is not None and m.host != msg.host:
                log.warning(
                    "table %s is now published by host %s (before: %s); if both run, "
                    "two hosts claim one table id",
                    msg.table,
                    msg.host,
                    m.host,
                )
            m.host = msg.host
            m.board = msg.state
            m.pos = msg.pos
            if m.baseline is _UNSET:
                m.baseline = msg.pos
            self.stats.states += 1
        self._emit(msg.table)

    def _link(self, msg: wire.LinkMessage) -> None:
        with self._lock:
            m = self._mirror(msg.table)
            m.link_online = msg.online
            m.link_last_seen_ms = msg.last_seen_ms
            if m.host is None:
                m.host = msg.host
        self._emit(msg.table)

    def _status(self, msg: wire.StatusMessage) -> None:
        with self._lock:
            before = self.hosts.get(msg.host)
            self.hosts[msg.host] = HostSeen(msg.host, msg.online, msg.reason, msg.at_ms, msg.tables)
            affected = [t for t, m in self.tables.items() if m.host == msg.host]
        if before is None or before.online != msg.online:
            log.info(
                "host %s is %s%s",
                msg.host,
                "online" if msg.online else "offline",
                f" ({msg.reason})" if msg.reason else "",
            )
        for table in affected:
            self._emit(table)

    # ------------------------------------------------------------------ boards
    def board(self, table: str) -> dict[str, Any] | None:
        """The table's board as a scoreboard should draw it: the host's board,
        marked offline when the host or the link is gone, plus an ``mqtt`` key."""
        with self._lock:
            m = self.tables.get(table)
            if m is None or m.board is None:
                return None
            board = dict(m.board)
            status = dict(board.get("status") or {})
            host = self.hosts.get(m.host) if m.host else None
            if host is not None and not host.online:
                status.update(
                    link="offline",
                    state="offline",
                    reason=f"host {host.host} is offline ({host.reason or 'no reason given'})",
                )
            elif m.link_online is False and status.get("link") == "online":
                status.update(link="offline", state="offline", reason="link offline")
            board["status"] = status
            board["mqtt"] = {
                **m.summary(),
                "venue": self.venue,
                "host_online": host.online if host is not None else None,
            }
            return board

    def _emit(self, table: str) -> None:
        if self.on_board is None:
            return
        board = self.board(table)
        if board is not None:
            self.on_board(table, board)

    def snapshot(self) -> dict[str, Any]:
        """Everything the mirror knows, for ``/api/mqtt``."""
        with self._lock:
            return {
                "venue": self.venue,
                "broker": self.session.options.describe(),
                "client_id": self.client_id,
                "connected": self.session.connected,
                "connects": self.session.connects,
                "stats": {
                    "messages": self.stats.messages,
                    "events": self.stats.events,
                    "duplicates": self.stats.duplicates,
                    "states": self.stats.states,
                    "malformed": self.stats.malformed,
                    "last_malformed": self.stats.last_malformed,
                },
                "hosts": {
                    h.host: {
                        "online": h.online,
                        "reason": h.reason,
                        "at_ms": h.at_ms,
                        "tables": list(h.tables),
                    }
                    for h in self.hosts.values()
                },
                "tables": {t: m.detail() for t, m in sorted(self.tables.items())},
            }

    # ------------------------------------------------------------------ gaps
    def _watch_gaps(self) -> None:
        while not self._stop.wait(0.5):
            if not self.ask_replays or not self.session.connected:
                continue
            try:
                self._ask_replays()
            except Exception:
                log.exception("mqtt mirror: checking gaps")

    def _ask_replays(self) -> None:
        now = time.monotonic()
        asks: list[tuple[str, Position]] = []
        with self._lock:
            for table, m in self.tables.items():
                if not m.gaps or now - m.replay_at < self.replay_every:
                    continue
                old = [g for g in m.gaps.values() if now - g.since >= self.gap_grace]
                if not old:
                    continue
                g = min(old, key=lambda g: (g.missing.boot, g.missing.seq))
                after = self._replay_from(m, g.missing)
                m.replay_at = now
                if after is None:
                    log.warning(
                        "table %s: cannot name an event before the gap at %s, so no replay "
                        "can be asked for",
                        table,
                        g.missing,
                    )
                    continue
                m.replays_asked += 1
                asks.append((table, after))
        for table, after in asks:
            log.info("table %s: asking its host to replay the events after %s", table, after)
            self.session.publish(
                wire.topic(self.venue, table, wire.REPLAY),
                wire.replay_payload(after, self.client_id),
            )

    @staticmethod
    def _replay_from(m: MirroredTable, missing: Position) -> Position | None:
        seen = m.seen.get(missing.boot)
        below = seen.below(missing.seq) if seen is not None else None
        b = m.baseline
        if b is not None and b is not _UNSET and b.boot == missing.boot and b.seq < missing.seq:
            below = max(below or 0, b.seq)
        return Position(missing.boot, below) if below is not None else None
