"""The subscribing side of the MQTT bridge: every table of a venue, rebuilt from
the broker alone (``baulk board --mqtt URL``).

* ``state`` (retained) gives each table's whole board, as its host drew it;
* ``events`` are kept exactly once by ``(table, boot_id, seq)``: a repeat (QoS 1
  redelivery, a host catching up, a replay) is counted and dropped;
* each event names the one before it (``prev``).  When ``prev`` was never seen
  and lies after the point where this board joined the table's stream, some
  events are missing: a *gap*.  It closes when the missing event arrives (a host
  catching up sends it); if it stays open, the mirror asks the host to replay
  (``baulk/<venue>/<host>/<table>/replay``);
* ``status`` (retained, the hosts' last will) marks every table of a host that
  vanished as offline;
* a message on a ``baulk/`` topic that does not fit docs/MQTT.md is counted,
  logged (at most once per topic every 10 s, never with a traceback) and
  skipped; the mirror keeps running.

**Whose table it is.**  Every message names its host in its topic, and a
broker with the venue's ACL lets each host publish under its own id only.  A
table belongs to the first host the mirror hears it from; the same table id
under a second host is refused (counted, logged once, and listed in
``conflicts`` and on the table's board as a warning), and never drawn as that
table.  Only the owner gives a table up: its own ``status`` saying it serves
other tables, or its retained ``state`` cleared.  A host's online or offline
state comes from its own ``status`` topic alone (its last will included).

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
from baulk.host.mqtt.quiet import QuietLog
from baulk.host.mqtt.wire import Position

log = logging.getLogger("baulk.mqtt.mirror")

GAP_GRACE: Final = 1.5  # s an open gap waits for a catching-up host before a replay request
REPLAY_EVERY: Final = 3.0  # s between replay requests for one table
MAX_TABLES: Final = 1000  # tables one mirror follows; more are refused (a flood of ids)
MAX_HOSTS: Final = 256


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
class Conflict:
    """A second host that publishes a table another host owns."""

    table: str
    owner: str
    host: str  # the refused one
    messages: int = 0
    first_ms: int = 0
    last_ms: int = 0
    state: wire.StateMessage | None = None  # its latest board, taken if the owner lets go

    def summary(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "owner": self.owner,
            "refused_host": self.host,
            "messages": self.messages,
            "first_ms": self.first_ms,
            "last_ms": self.last_ms,
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
    refused: int = 0  # messages for a table another host owns
    last_malformed: str | None = None


TableMessage = wire.EventMessage | wire.StateMessage | wire.LinkMessage
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
        self.conflicts: dict[tuple[str, str], Conflict] = {}
        self._lock = threading.RLock()
        self._quiet = QuietLog(log)
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
            if t.leaf == wire.STATUS:
                if payload:
                    self._status(wire.parse_status(t, payload))
                return
            assert t.table is not None
            if t.leaf == wire.REPLAY:
                self.stats.ignored += 1  # replay requests: for hosts
                return
            if not payload:
                if t.leaf == wire.STATE:
                    self._cleared(t.host, t.table)  # a retained state cleared by an operator
                return
            message: TableMessage
            if t.leaf == wire.EVENTS:
                message = wire.parse_event(t, payload)
            elif t.leaf == wire.STATE:
                message = wire.parse_state(t, payload)
            else:
                message = wire.parse_link(t, payload)
            if not self._admit(t.host, t.table, message):
                return
            if isinstance(message, wire.EventMessage):
                self._event(message)
            elif isinstance(message, wire.StateMessage):
                self._state(message)
            else:
                self._link(message)
        except wire.Malformed as e:
            self._malformed(msg.topic, str(e))
        except Exception as e:
            # Whatever a message holds, it costs a count and a line, never a
            # traceback: the paho thread and the boards go on.
            self._malformed(msg.topic, f"could not be read ({type(e).__name__}: {str(e)[:100]})")

    # ------------------------------------------------------------------ ownership
    # A table belongs to the host that says, on its own ``status`` topic (which
    # the venue's ACL lets no other host write), that it serves the table.
    # Until some host says so, the first host heard from holds it.

    def _lists(self, host: str | None, table: str) -> bool:
        h = self.hosts.get(host) if host is not None else None
        return h is not None and table in h.tables

    def _lister(self, table: str, but: str | None) -> str | None:
        """A host other than ``but`` whose status lists ``table``."""
        return next((h for h in self.hosts if h != but and self._lists(h, table)), None)

    def _admit(self, host: str, table: str, message: TableMessage) -> bool:
        """Whether ``host``'s message about ``table`` may reach the table."""
        first = False
        with self._lock:
            m = self.tables.get(table)
            if m is None and len(self.tables) >= MAX_TABLES:
                raise wire.Malformed(f"table {table!r}: this board follows {MAX_TABLES}")
            owner = m.host if m is not None else None
            if owner is None:
                # Nobody's yet: the host's, unless another host says it is theirs.
                owner = next((h for h in self.hosts if h != host and self._lists(h, table)), host)
                self._mirror(table).host = owner
            if owner == host:
                return True
            first = self._refuse(owner, host, table, message)
        if first:
            self._emit(table)  # the owner's board, now with the warning
        return False

    def _refuse(self, owner: str, host: str, table: str, message: TableMessage | None) -> bool:
        """With the lock held: ``host`` publishes ``table``, which ``owner``
        has.  True the first time this host does."""
        now = time.time_ns() // 1_000_000
        c = self.conflicts.get((table, host))
        first = c is None
        if c is None:
            if len(self.conflicts) >= MAX_TABLES:
                self.conflicts.clear()
            c = self.conflicts[(table, host)] = Conflict(table, owner, host, first_ms=now)
        c.owner = owner
        c.last_ms = now
        if message is not None:
            c.messages += 1
            self.stats.refused += 1
        if isinstance(message, wire.StateMessage):
            c.state = message
        if first:
            log.warning(
                "table %s belongs to host %s, but host %s publishes it too: its messages are "
                "refused (two hosts with one table id, or a host posing as another's table)",
                table,
                owner,
                host,
            )
        return first

    def _hand_over(self, table: str, to: str | None, *, given_up: bool) -> None:
        """With the lock held: ``table`` is ``to``'s from now on (None: the
        latest refused claimant's, else nobody's until the next claim).  The
        new owner's latest refused board, if one came, is the table's board at
        once.  Unless the old owner gave the table up itself, it is refused
        from now on."""
        m = self.tables.get(table)
        old = m.host if m is not None else None
        log.info("table %s: from host %s to host %s", table, old, to or "(none yet)")
        self.tables[table] = MirroredTable(self.venue, table, host=to)
        kept = self.conflicts.pop((table, to), None) if to is not None else None
        for c in self.conflicts.values():
            if c.table == table:
                c.owner = to or "(none)"
        if to is None:
            waiting = [c for c in self.conflicts.values() if c.table == table]
            kept = max(waiting, key=lambda c: c.last_ms, default=None)
            if kept is not None:
                del self.conflicts[(table, kept.host)]
                self.tables[table].host = kept.host
        elif old is not None and old != to and not given_up:
            self._refuse(to, old, table, None)
        if kept is not None and kept.state is not None:
            self._state(kept.state)

    def _cleared(self, host: str, table: str) -> None:
        """A retained ``state`` of ``host`` was cleared: if the table was
        its, it is given up."""
        with self._lock:
            m = self.tables.get(table)
            if m is not None and m.host == host:
                self._hand_over(table, self._lister(table, but=host), given_up=True)

    def _malformed(self, topic: str, why: str) -> None:
        self.stats.malformed += 1
        self.stats.last_malformed = f"{topic[:200]}: {why}"
        self._quiet.warn(topic, f"skipped a malformed message on {topic[:200]}: {why}")

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
        self._emit(msg.table)

    def _status(self, msg: wire.StatusMessage) -> None:
        """A host's own word on itself: online or offline, and the tables it
        serves.  The tables it lists are its; a table it held and no longer
        lists, while online, it has given up."""
        with self._lock:
            before = self.hosts.get(msg.host)
            if before is None and len(self.hosts) >= MAX_HOSTS:
                raise wire.Malformed(f"host {msg.host!r}: this board follows {MAX_HOSTS} already")
            tables = msg.tables
            if not msg.online and not tables and before is not None:
                tables = before.tables  # a last will that names no tables
            self.hosts[msg.host] = HostSeen(msg.host, msg.online, msg.reason, msg.at_ms, tables)
            for table, m in list(self.tables.items()):
                if m.host == msg.host and msg.online and table not in tables:
                    self._hand_over(table, self._lister(table, but=msg.host), given_up=True)
                elif m.host != msg.host and table in tables and not self._lists(m.host, table):
                    self._hand_over(table, msg.host, given_up=False)
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
            refused = sorted(c.host for (t, _), c in self.conflicts.items() if t == table)
            board["mqtt"] = {
                **m.summary(),
                "venue": self.venue,
                "host_online": host.online if host is not None else None,
                "refused_hosts": refused,
                "warning": (
                    f"host {', '.join(refused)} also publishes table {table}, which belongs "
                    f"to host {m.host}: refused"
                    if refused
                    else None
                ),
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
                    "refused": self.stats.refused,
                    "last_malformed": self.stats.last_malformed,
                },
                "conflicts": [c.summary() for c in self.conflicts.values()],
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
        asks: list[tuple[str, str, Position]] = []
        with self._lock:
            for table, m in self.tables.items():
                if not m.gaps or m.host is None or now - m.replay_at < self.replay_every:
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
                asks.append((m.host, table, after))
        for host, table, after in asks:
            log.info("table %s: asking its host to replay the events after %s", table, after)
            self.session.publish(
                wire.table_topic(self.venue, host, table, wire.REPLAY),
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
