"""The score path comes first, in the store: a row of any other kind that the
store cannot keep is refused alone (at its edge, or by the writer, which
narrows a failing batch down to it), a projection that fails is dropped and
its event stored, an event row is never refused, and while the store cannot
write at all the events wait and every other row is refused at once."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any, ClassVar

import pytest

from baulk.host.errors import Refusal
from baulk.host.referee.shadow import ShadowReferee
from baulk.host.sim.matches import generate_match
from baulk.host.store import (
    Batch,
    CheckpointRow,
    CommandRow,
    EventRow,
    GroupCommitter,
    HealthRow,
    LinkRow,
    NameFixRow,
    Projection,
    RawRow,
    SessionWrite,
    Store,
    StoreFailing,
    StoreRefused,
)
from baulk.host.store.edges import fit_event, unstorable


def event_rows(table: str, n: int, boot: int = 1, first: int = 1) -> list[EventRow]:
    shadow = ShadowReferee(table)
    out = []
    for i, ev in enumerate(generate_match(2, best_of=3)[: n + first - 1], 1):
        a = shadow.apply(ev, (boot, i))
        if i >= first:
            out.append(EventRow(table, boot, i, 1000 + i, ev, [0, 0], applied=a, body=b"\xa0"))
    return out


def count(store: Store, table: str) -> int:
    return int(store.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def boom(store: Store, table: str, when: str = "1") -> None:
    """Every insert into ``table`` (matching ``when``) fails, as a bug would."""
    store.db.execute(
        f"CREATE TRIGGER boom_{table} BEFORE INSERT ON {table} WHEN {when} "
        "BEGIN SELECT RAISE(ABORT, 'boom'); END"
    )


class Exploding:
    """Another part of the host's own row kind, whose write has a bug."""

    KIND: ClassVar[str] = "activity entry"

    def __init__(self, error: str) -> None:
        self.error = error

    def write(self, db: sqlite3.Connection) -> None:
        raise OverflowError(self.error) if self.error else TypeError("a bug")


class EndsTheTransaction:
    """A row kind whose write rolls the whole transaction back."""

    KIND: ClassVar[str] = "activity entry"

    def write(self, db: sqlite3.Connection) -> None:
        db.execute("ROLLBACK")


# ---------------------------------------------------------------------- the edges
@pytest.mark.parametrize(
    ("value", "why"),
    [
        (1 << 63, "an integer beyond 64 bits"),
        (-(1 << 63) - 1, "an integer beyond 64 bits"),
        (float("inf"), "not finite"),
        (float("nan"), "not finite"),
        ("\ud800", "lone surrogate"),
        ("x" * 70_000, "longer than"),
        (b"x" * 70_000, "bytes longer than"),
        (object(), "type object"),
        ({1.5: 1}, "a key of type float"),
        ([[[[[[[[[[[[[[1]]]]]]]]]]]]]], "nested more than"),
    ],
)
def test_a_value_the_store_cannot_keep_is_named(value: Any, why: str) -> None:
    assert why in (unstorable({"field": value}) or "")


def test_what_the_store_keeps_passes() -> None:
    assert (
        unstorable({"a": [1, -(1 << 63), (1 << 63) - 1, 1.5, "Ali", b"\x00", None, True]}) is None
    )


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
@pytest.mark.parametrize(
    "row",
    [
        SessionWrite("correct", 1, "t1", amount=10**308, reason="x"),
        SessionWrite("correct", 1, "t1", amount=1, reason="\udcff"),
        CommandRow("t1", 0, 8, {"input": {"ev": "undo", "t": 1 << 70}}, None, 0),
        NameFixRow("m1", ["Ali", float("nan")], None, 0),
        LinkRow("t1", last_seen_ms=1 << 64),
        HealthRow("t1", 0, [1 << 64] * 6, [0] * 6, [0] * 6, [0] * 6),
        RawRow("t1", 0, 1, 0, b"x" * 100_000),
    ],
    ids=["amount", "reason", "command", "names", "link", "health", "raw"],
)
def test_a_row_beyond_the_store_is_refused_at_its_edge_and_nothing_waits(
    tmp_path: Path, row: Any
) -> None:
    async def run() -> None:
        store = Store(tmp_path / "s.sqlite")
        acked: list[tuple[str, int]] = []
        c = GroupCommitter(store, lambda t, s: acked.append((t, s)))
        c.start()
        with pytest.raises(StoreRefused) as refused:
            c.submit(row)
        assert refused.value.kind is Refusal.BAD_INPUT
        assert refused.value.text.startswith("the store cannot keep this ")
        assert refused.value.text.endswith("; nothing was changed")
        for r in event_rows("t1", 5):
            c.submit_event(r)
        await c.flush()
        assert acked[-1] == ("t1", 5) and not len(c.pending)
        await c.close()
        store.close()

    asyncio.run(run())


def test_an_event_beyond_the_store_is_kept_bare_never_refused() -> None:
    row = EventRow(
        "t1", 1, 7, 0, {"ev": "pot", "x": float("inf")}, [0, 0], action=1 << 64, body=b"\xa1"
    )
    left = fit_event(row)
    assert row.action == 0 and row.ev is None and row.body == b"\xa1"
    assert "action" in left[0] and "ev" in left[1]
    assert row.invalid is not None and "could not keep this event as decoded" in row.invalid
    bad = Projection("m1", 1, True, new_match={"players": [1 << 70, "B"], "best_of": 1, "reds": 15})
    row = EventRow("t1", 1, 8, 0, {"ev": "match"}, [0, 0], applied=bad)
    assert "what it made" in fit_event(row)[0]
    assert row.applied is not None and row.applied.new_match is None
    assert row.applied.match_id == "m1" and row.ev == {"ev": "match"}


# ---------------------------------------------------------------------- the writer
def test_a_row_that_fails_in_the_writer_is_refused_alone(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    boom(store, "name_fixes")
    fix = NameFixRow("m1", ["Ali", "Reza"], "desk", 0)
    cmd = CommandRow("t1", 0, 8, {"input": {"ev": "undo"}}, None, 0, epoch=3)
    bug = Exploding("")
    batch = Batch(events=event_rows("t1", 40), commands=[cmd], name_fixes=[fix], writes=[bug])
    batch.links.append(LinkRow("t1", name="Table 1"))
    w = store.write(batch)
    assert w.done == {"t1": 40}
    assert [(type(r).__name__, why) for r, why in w.refused] == [
        ("NameFixRow", "boom"),
        ("Exploding", "TypeError: a bug"),
    ]
    assert count(store, "events") == 40 and count(store, "name_fixes") == 0
    assert count(store, "commands") == 1 and cmd.action == (3 << 32) | 1
    assert store.db.execute("SELECT name FROM links").fetchone() == ("Table 1",)
    store.close()


@pytest.mark.slow  # seconds of a core: make test runs it, make check does not
@pytest.mark.parametrize(
    "table", ["matches", "frames", "breaks", "frame_play", "player_frames", "frame_accounts"]
)
def test_a_projection_that_fails_is_dropped_and_its_events_stored(
    tmp_path: Path, table: str
) -> None:
    store = Store(tmp_path / "s.sqlite")
    boom(store, table)
    rows = event_rows("t1", 10_000)
    w = store.write(Batch(events=rows))
    assert w.done == {"t1": len(rows)}
    assert count(store, "events") == len(rows) and count(store, table) == 0
    assert w.dropped and all("what it made (boom)" in why for _, _, why in w.dropped)
    valid = store.db.execute("SELECT count(*) FROM events WHERE invalid IS NULL").fetchone()[0]
    assert valid == len(rows)
    store.close()


def test_an_event_row_that_fails_is_kept_with_its_bytes(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    boom(store, "events", "NEW.name = 'pot'")
    rows = event_rows("t1", 60)
    pots = [r.seq for r in rows if r.ev and r.ev["ev"] == "pot"]
    w = store.write(Batch(events=rows))
    assert w.done == {"t1": 60} and pots
    got = store.db.execute(
        "SELECT seq, invalid, body FROM events WHERE ev IS NULL ORDER BY seq"
    ).fetchall()
    assert [s for s, _, _ in got] == pots
    assert all("could not store this event as decoded: boom" in why for _, why, _ in got)
    assert all(body == b"\xa0" for _, _, body in got)
    store.close()


def test_a_checkpoint_that_fails_keeps_its_place_in_the_stream(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    boom(store, "checkpoints")
    cp = CheckpointRow("t1", 1, 11, 0, 10, b"h" * 32, b"m", b"a" * 32, raw=b"raw")
    w = store.write(Batch(events=event_rows("t1", 10), checkpoints=[cp]))
    assert w.done == {"t1": 11}
    assert (
        store.db.execute("SELECT invalid FROM events WHERE seq = 11")
        .fetchone()[0]
        .startswith("a checkpoint the host could not store")
    )
    store.close()


def test_a_row_that_ends_the_transaction_is_narrowed_to_alone(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    fix = NameFixRow("m1", ["Ali", "Reza"], "desk", 0)
    w = store.commit(
        Batch(events=event_rows("t1", 30), name_fixes=[fix], writes=[EndsTheTransaction()])
    )
    assert w.done == {"t1": 30}
    assert [type(r).__name__ for r, _ in w.refused] == ["EndsTheTransaction"]
    assert count(store, "events") == 30 and count(store, "name_fixes") == 1
    store.close()


# ---------------------------------------------------------------------- the committer
async def on_writer(c: GroupCommitter, sql: str) -> None:
    """Run SQL on the writer's own thread, between two commits."""
    await asyncio.get_running_loop().run_in_executor(c.executor, c.store.db.execute, sql)


def test_the_committer_refuses_a_failing_row_to_its_caller_once_and_acks_the_events(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def run() -> None:
        store = Store(tmp_path / "s.sqlite")
        acked: list[int] = []
        c = GroupCommitter(store, lambda t, s: acked.append(s))
        c.start()
        receipts = []
        for r in event_rows("t1", 200):
            c.submit_event(r)
            if r.seq % 20 == 0:
                receipts.append(c.submit(Exploding("too large")))
        await c.flush()
        assert acked[-1] == 200
        for receipt in receipts:
            with pytest.raises(StoreRefused) as refused:
                await receipt
            assert refused.value.kind is Refusal.FAILED
            assert refused.value.text == (
                "the store could not write this activity entry: OverflowError: too large; "
                "nothing was changed"
            )
        fine = c.submit(NameFixRow("m1", ["Ali", "Reza"], None, 0))
        await fine
        await c.close()
        store.close()

    asyncio.run(run())
    told = [r for r in caplog.records if "could not write this activity entry" in r.getMessage()]
    assert len(told) == 1, [r.getMessage() for r in told]


def test_while_the_store_cannot_write_other_rows_are_refused_at_once(tmp_path: Path) -> None:
    async def run() -> None:
        store = Store(tmp_path / "s.sqlite")
        acked: list[int] = []
        c = GroupCommitter(store, lambda t, s: acked.append(s))
        c.RETRY_FIRST_S = c.RETRY_MAX_S = 0.05
        c.start()
        rows = event_rows("t1", 300)
        for r in rows[:10]:
            c.submit_event(r)
        await c.flush()
        n = store.db.execute("PRAGMA page_count").fetchone()[0]
        await on_writer(c, f"PRAGMA max_page_count = {n}")
        for r in rows[10:]:
            c.submit_event(r)
        waiting = c.submit(NameFixRow("m1", ["Ali", "Reza"], None, 0))
        with pytest.raises(StoreFailing) as failing:
            await c.flush()
        assert failing.value.kind is Refusal.UNAVAILABLE
        assert failing.value.text == (
            "the store cannot write: database or disk is full; nothing was changed"
        )
        with pytest.raises(StoreFailing):
            await waiting
        later = c.submit(SessionWrite("close", 1, "t1", reason="desk"))
        assert later.done()  # refused at once, not kept waiting for the disk
        with pytest.raises(StoreFailing):
            await later
        assert acked[-1] == 10
        await on_writer(c, "PRAGMA max_page_count = 1073741823")
        while c.failing is not None:
            await asyncio.sleep(0.01)
        await c.flush()
        assert acked[-1] == 300
        await c.close()
        store.close()

    asyncio.run(run())
