"""Tampering at random with a closed day's money rows, shared by
tests/chaos/test_money_tamper.py (short) and bench/chaos_tamper.py --money (full).

The day: a best-of-3 match played by the real firmware and stored by a real
daemon (tests/host/ledger_fixture.py), and four bills on its table written
as the desk writes them, one commit a row (host/store/club_writer.py): items
and a take-back, a correction, a refund and its reversal, a void, a close
taken back, an auto-opened session confirmed.  After each commit the host
sends the money chain's head and the device signs it (as
host/venue/anchors.py does), so every row is anchored.

Each trial takes a fresh copy of the store and makes one change by hand in
SQLite, the append-only triggers dropped first and made again after: any
column of any money row updated, a row inserted (a copy of another with one
value changed), or a row deleted.  ``naive``: the change alone, as the
issue found it done; ``rewritten``: the money chain's own table is then
rebuilt to match the changed rows, every entry following the one before, as
someone who read host/store/money_chain.py would.  ``verify --day``
(host/staff/takings.py check_day) must flag a bill (detected) and name the
bill the changed row belongs to (located).
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from baulk.host.club.clock import Stamp
from baulk.host.staff import activity, takings
from baulk.host.store import SessionWrite, StoreReader, money_chain
from tests.host.club.test_takings import BILLING, DAY, KEYS, OPENED_MS, by_hand
from tests.host.ledger_fixture import device_stream, store_stream
from tests.host.money_rows import desk_writes

MIN = 60_000
# The desk's routes of the rows the day's check counts in the activity log.
_LOGGED = dict(zip(("correct", "refund", "reverse"), takings._CORRECTING, strict=True))
TABLES = ("table_sessions", "session_marks", "bill_corrections", "bill_items")
MODES = ("naive", "rewritten")
OPS = ("update", "insert", "delete")


def day_rows(first: tuple[int, int]) -> list[SessionWrite]:
    """The day's money rows in the order the desk writes them."""
    tariff = BILLING.tariffs[0].to_json()

    def at(minute: int, op: str, sid: int, **kw: Any) -> SessionWrite:
        w = OPENED_MS + minute * MIN
        return SessionWrite(op, sid, "t1", kw.pop("who", "Dina"), w, minute * MIN, "b", **kw)

    return [
        at(0, "open", 1, tariff=tariff, from_event=first),
        at(5, "item", 1, item="Tea", item_fa="چای", price=113_000, quantity=2),
        at(6, "item", 1, item="Water", item_fa="آب", price=25_000, quantity=3),
        at(7, "item_back", 1, item="Water", item_fa="آب", price=25_000, quantity=-1, reverses=2),
        at(8, "correct", 1, who="Omid", amount=50_000, reason="a broken cue"),
        at(9, "refund", 1, who="Omid", amount=-10_000, reason="cold tea"),
        at(10, "reverse", 1, who="Omid", amount=10_000, reason="it was warm", reverses=2),
        at(90, "close", 1, reason="desk"),
        at(95, "open", 2, tariff=tariff),
        at(96, "void", 2, reason="opened on the wrong table"),
        at(100, "open", 3, tariff=tariff),
        at(130, "close", 3, reason="desk"),
        at(131, "reopen", 3, who="Omid", reason="they played on"),
        at(140, "item", 3, item="Tea", item_fa="چای", price=113_000, quantity=1),
        at(160, "close", 3, reason="desk"),
        at(170, "open", 4, how="auto", tariff=tariff),
        at(172, "confirm", 4),
        at(200, "close", 4, reason="idle"),
    ]


def _write_day(path: Path) -> list[tuple[int, bytes]]:
    """The day's rows into a store holding the match, a commit each; the
    chain's head after each commit."""
    db = sqlite3.connect(path)
    try:
        first = db.execute("SELECT boot_id, seq FROM events ORDER BY id LIMIT 1").fetchone()
    finally:
        db.close()
    heads = []
    for w in day_rows((int(first[0]), int(first[1]))):
        desk_writes(path, w)
        db = sqlite3.connect(path, isolation_level=None)
        try:
            heads.append(money_chain.head_of(db))
            if w.op in _LOGGED:  # and its line in the activity log, as the desk's route writes it
                route = _LOGGED[w.op]
                db.execute(
                    "INSERT INTO staff_activity (wall_ms, mono_ms, boot, who, role, action, what, "
                    "table_id, session_id, result) VALUES (?,?,?,?,'owner',?,?,?,?,'done')",
                    (w.wall_ms, w.mono_ms, w.boot, w.who, activity.action_of("POST", route, None),
                     f"POST {route}", w.table_id, w.session_id),
                )  # fmt: skip
        finally:
            db.close()
    return heads


def closed_day(where: Path) -> Path:
    """The day, every money row anchored by the table's signed checkpoints."""
    rows = where / "rows.sqlite"
    store_stream(rows, device_stream(seed=5, best_of=3))
    heads = _write_day(rows)  # the heads the daemon sends, worked out first
    day = where / "day.sqlite"
    store_stream(day, device_stream(seed=5, best_of=3, anchors=heads))
    assert _write_day(day) == heads  # the same rows make the same chain
    return day


def check(path: Path) -> dict[str, Any]:
    reader = StoreReader(path)
    try:
        return takings.check_day(reader, BILLING, DAY, KEYS, Stamp(OPENED_MS + 10**8, 0, "x"))
    finally:
        reader.close()


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in db.execute(f"PRAGMA table_info({table})")]


def _other(rng: random.Random, value: Any, column: str) -> Any:
    """Another value of the same kind: what someone changing a bill would write."""
    if value is None:
        return rng.randint(1, 10**7)
    if isinstance(value, int):
        return value + rng.choice((-1, 1)) * rng.randint(1, 50_000)
    if column == "tariff":
        t = json.loads(value)
        t["per_hour"] = int(t.get("per_hour", 0)) + rng.randint(1, 500)
        return json.dumps(t)
    return str(value) + rng.choice(("x", " ", "e", "2"))


def _session_of(table: str, row: dict[str, Any]) -> int:
    return int(row["id"] if table == "table_sessions" else row["session_id"])


def _tamper(rng: random.Random, path: Path, op: str) -> tuple[str, set[int]]:
    """One change by hand; what it was, and the bills it belongs to."""
    db = sqlite3.connect(path, isolation_level=None)
    db.row_factory = sqlite3.Row
    try:
        rows = [(t, dict(r)) for t in TABLES for r in db.execute(f"SELECT * FROM {t}")]
    finally:
        db.close()
    table, row = rng.choice(rows)
    bills = {_session_of(table, row)}
    if op == "delete":
        by_hand(path, table, f"DELETE FROM {table} WHERE id = {row['id']}")
        return f"{table} {row['id']} deleted", bills
    db = sqlite3.connect(path, isolation_level=None)
    try:
        columns = _columns(db, table)
        new_id = int(db.execute(f"SELECT max(id) FROM {table}").fetchone()[0]) + 1
    finally:
        db.close()
    for _ in range(50):  # until the store's CHECKs take it
        column = rng.choice(columns)
        value = _other(rng, row[column], column)
        if op == "update":
            statement = f"UPDATE {table} SET {column} = ? WHERE id = ?"
            args: tuple[Any, ...] = (value, row["id"])
            what = f"{table} {row['id']}.{column} {row[column]!r} -> {value!r}"
        else:
            copy = dict(row, id=new_id)
            if column != "id":
                copy[column] = value
            marks = ", ".join("?" * len(columns))
            statement = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
            args = tuple(copy[c] for c in columns)
            what = f"{table} {new_id} inserted, a copy of {row['id']} with {column}"
        try:
            by_hand(path, table, statement, args)
        except sqlite3.IntegrityError:
            continue
        if op == "update" and column == ("id" if table == "table_sessions" else "session_id"):
            bills.add(int(value))  # the row moved to another bill: either may be named
        if op == "insert":
            bills = {_session_of(table, dict(zip(columns, args, strict=True)))}
        return what, bills
    raise AssertionError(f"no change of {table} {row['id']} the store takes")


def rewrite_chain(rng: random.Random, path: Path) -> None:
    """The money chain made again to match the rows as they are now: the
    old order kept, a row no longer there left out, a row never chained put
    in at a random place.  Only the heads the table signed can tell."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        order = [(str(k), int(i)) for k, i in db.execute(
            "SELECT kind, row_id FROM money_chain ORDER BY n"
        )]  # fmt: skip
        present = []
        for kind, (table, _, _) in money_chain.KINDS.items():
            where = money_chain._PRESENT.get(kind, "1")  # the rule the check reads rows by
            present += [
                (kind, int(r[0])) for r in db.execute(f"SELECT id FROM {table} WHERE {where}")
            ]
        kept = [e for e in order if e in set(present)]
        for e in present:
            if e not in kept:
                kept.insert(rng.randint(0, len(kept)), e)
        db.execute("DROP TRIGGER money_chain_no_delete")
        db.execute("DELETE FROM money_chain")
        for kind, i in kept:
            money_chain.append(db, kind, i)
        db.executescript(money_chain.MONEY_CHAIN_SCHEMA)  # its triggers again
    finally:
        db.close()


def _named(day: dict[str, Any]) -> dict[int, list[str]]:
    """Each bill the check names, with its money findings' kinds."""
    out: dict[int, list[str]] = {}
    for b in day["bills"]:
        kinds = [f["kind"] for f in b["findings"] if f["kind"].startswith("money ")]
        if kinds:
            out[int(b["session_id"])] = kinds
    return out


def run(seed: int, trials: int, modes: tuple[str, ...] = MODES) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="baulk-money-tamper-") as tmp:
        where = Path(tmp)
        day = closed_day(where)
        clean = check(day)
        out: dict[str, Any] = {
            "seed": seed,
            "money_rows": sum(1 for _ in day_rows((1, 1))),
            "clean": {str(b["session_id"]): b["status"] for b in clean["bills"]},
            "clean_unanchored": sum(len(b["unanchored"]) for b in clean["bills"]),
            "clean_findings": sum(len(b["findings"]) for b in clean["bills"]),
        }
        for mode in modes:
            f: dict[str, Any] = {"trials": 0, "detected": 0, "located": 0, "bills_named": 0}
            by_op: Counter[str] = Counter()
            unlocated: Counter[str] = Counter()  # by op
            missed: list[str] = []
            for _ in range(trials):
                op = rng.choice(OPS)
                path = where / "trial.sqlite"
                shutil.copy(day, path)
                what, bills = _tamper(rng, path, op)
                if mode == "rewritten":
                    rewrite_chain(rng, path)
                named = _named(check(path))
                f["trials"] += 1
                by_op[op] += 1
                detected = bool(named)
                located = detected and bool(bills & set(named))
                f["detected"] += detected
                f["located"] += located
                f["bills_named"] += len(named)
                if not located:
                    unlocated[op] += 1
                    if len(missed) < 50:
                        missed.append(f"{op}: {what} (bills {sorted(bills)}; named {named})")
            f["by_op"] = dict(by_op)
            f["unlocated_by_op"] = dict(unlocated)
            f["missed"] = missed
            out[mode] = f
    return out
