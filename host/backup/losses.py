"""What a store holds beyond a copy of it: what putting the copy in its place
would lose, and the staff's restrictions the copy would undo.

A restore puts an older state of the store back.  Of what the store holds
beyond the copy, only the tables' own stream can come back: when a table
finds the venue holds less than it had acknowledged, it sends again from its
journal what it still keeps, which is at least its ``KEEP_ACKED`` newest
acknowledged records (firmware/journal.py; protocol/SPEC.md, "Handshake").
Everything else only the PC knew: table sessions, bills' corrections and
items, name corrections, operator actions, the staff's accounts, tokens and
sign-in codes, and the activity log.  :func:`compare` counts each, and names
every revocation, disable and reset of an account the copy would undo;
:func:`reapply` writes those restrictions into the copy before it goes in
place, so a restore never brings back a credential the owner had ended.

Both read the store read-only and attach the copy read-only beside it: the
store is never written.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

from baulk.firmware.journal import KEEP_ACKED

# What a table can always send again after a restore: its journal keeps at
# least this many acknowledged records of its stream.
JOURNAL_KEEPS: Final = KEEP_ACKED

# The tables' reliable stream, one numbering per table (SPEC.md "Reliability"):
# each row is keyed by (table_id, boot_id, seq), and the journal resends them all.
STREAM: Final = ("events", "checkpoints", "pocket_checks")

# Rows only the PC keeps, by what they are, with the words the report uses.
PC_ONLY: Final = (
    ("table_sessions", "table sessions opened"),
    ("session_marks", "sessions closed, reopened or voided"),
    ("bill_corrections", "bill corrections or refunds"),
    ("bill_items", "items sold onto bills"),
    ("name_fixes", "name corrections"),
    ("commands", "operator actions"),
)
SESSIONS: Final = ("table_sessions", "session_marks")
MONEY: Final = ("bill_corrections", "bill_items")
ACTIVITY: Final = "staff_activity"

# An account's columns that say when and by whom it was made or changed;
# every other column (role, tables, password, pin, disabled, and whatever a
# later baulk adds) says who may sign in and as what.
ACCOUNT_STAMPS: Final = ("id", "created_ms", "changed_ms", "changed_by")


def _stamp(ms: Any) -> str:
    if not isinstance(ms, int):
        return "at a time not recorded"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ms / 1000))


def _by(who: Any) -> str:
    return f" by {who}" if who else ""


@dataclass(frozen=True)
class TableLoss:
    """A table's stream records the store holds and the copy not."""

    table_id: str
    events: int  # of them, events (the rest: checkpoints, pocket checks)
    records: int
    resent: int  # of the records, those the table's journal sends again

    @property
    def lost(self) -> int:
        return self.records - self.resent

    def line(self) -> str:
        events = f"{self.events} event" + ("" if self.events == 1 else "s")
        others = self.records - self.events
        what = events + (f" and {others} other records of its stream" if others else "")
        if self.lost == 0:
            return f"table {self.table_id}: {what}; its journal sends them again"
        return (
            f"table {self.table_id}: {what}; its journal keeps only its {JOURNAL_KEEPS} "
            f"newest acknowledged, so {self.lost} never come back"
        )


@dataclass
class Loss:
    """What the store holds beyond the copy."""

    tables: list[TableLoss] = field(default_factory=list)
    rows: dict[str, int] = field(default_factory=dict)  # PC_ONLY table -> rows
    staff_added: list[str] = field(default_factory=list)  # accounts, tokens, codes made
    # Changes of accounts and tokens both hold (a revocation, a disable, a
    # reset, ...): the copy would undo them, and reapply() makes them again.
    undone: list[str] = field(default_factory=list)
    signed_out: int = 0  # sign-ins ended in the store, live in the copy
    codes_used: int = 0  # one-time codes used in the store, unused in the copy
    activity: int = 0
    unreadable: str | None = None  # the store opens, but cannot be compared: why

    @property
    def events(self) -> int:
        return sum(t.events for t in self.tables)

    @property
    def beyond_journals(self) -> bool:
        """Something would be lost that no table can send again, and no
        :func:`reapply` makes again."""
        return bool(
            any(t.lost for t in self.tables)
            or any(self.rows.values())
            or self.staff_added
            or self.activity
        )

    @property
    def nothing(self) -> bool:
        return not (self.tables or self.beyond_journals or self.signed_out or self.codes_used)

    def lines(self) -> list[str]:
        """The report, a line each, for the command to print."""
        if self.unreadable is not None:
            return [f"what it holds beyond the copy cannot be told: {self.unreadable}"]
        if self.nothing:
            return ["it holds nothing the copy does not"]
        out = [t.line() for t in self.tables]
        sessions = [f"{self.rows[t]} {w}" for t, w in PC_ONLY if t in SESSIONS and self.rows.get(t)]
        if sessions:
            out.append("table sessions: " + ", ".join(sessions))
        money = [f"{self.rows[t]} {w}" for t, w in PC_ONLY if t in MONEY and self.rows.get(t)]
        if money:
            out.append("money: " + ", ".join(money))
        other = [
            f"{self.rows[t]} {w}"
            for t, w in PC_ONLY
            if t not in SESSIONS + MONEY and self.rows.get(t)
        ]
        if other:
            out.append("the record: " + ", ".join(other))
        for what in self.staff_added:
            out.append(f"staff: {what}")
        for what in self.undone:
            out.append(f"staff, undone by the copy (made again after the restore): {what}")
        if self.signed_out:
            out.append(
                f"staff: {self.signed_out} sign-ins ended since, live in the copy "
                "(ended again after the restore)"
            )
        if self.codes_used:
            out.append(
                f"staff: {self.codes_used} one-time codes used since, unused in the copy "
                "(used again after the restore)"
            )
        if self.activity:
            out.append(f"activity log: {self.activity} rows")
        return out


# ---------------------------------------------------------------------- reading
def _uri(path: Path, mode: str) -> str:
    return f"file:{quote(str(path))}?mode={mode}"


def _open(store: Path, copy: Path) -> sqlite3.Connection:
    """The store read-only, with the copy attached read-only as ``copy``."""
    db = sqlite3.connect(_uri(store, "ro"), uri=True, timeout=10)
    try:
        db.execute("ATTACH DATABASE ? AS copy", (_uri(copy, "ro"),))
    except sqlite3.Error:
        db.close()
        raise
    db.row_factory = sqlite3.Row
    return db


def _tables(db: sqlite3.Connection, schema: str) -> set[str]:
    return {
        str(r[0])
        for r in db.execute(f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table'")
    }


def _columns(db: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [str(r[1]) for r in db.execute(f"PRAGMA {schema}.table_info({table})")]


def _new_rows(db: sqlite3.Connection, table: str, key: str, have: set[str]) -> int:
    """Rows of ``table`` in the store whose ``key`` the copy lacks (all of
    them when the copy has no such table)."""
    if table not in have:
        return 0
    if table not in _tables(db, "copy"):
        return int(db.execute(f"SELECT count(*) FROM main.{table}").fetchone()[0])
    return int(
        db.execute(
            f"SELECT count(*) FROM main.{table} s WHERE NOT EXISTS "
            f"(SELECT 1 FROM copy.{table} c WHERE c.{key} = s.{key})"
        ).fetchone()[0]
    )


def _stream(db: sqlite3.Connection, have: set[str]) -> list[TableLoss]:
    """Per table, its stream's records the copy lacks, and how many of them
    its journal sends again: those within its JOURNAL_KEEPS newest, counted
    back from the newest record the store holds of it (what the table had
    been acknowledged when the store was last written)."""
    copy = _tables(db, "copy")
    newest: dict[str, int] = {}
    lost: dict[str, list[tuple[str, int]]] = {}
    for table in STREAM:
        if table not in have:
            continue
        for r in db.execute(f"SELECT table_id, max(seq) FROM main.{table} GROUP BY table_id"):
            newest[r[0]] = max(newest.get(r[0], 0), int(r[1]))
        if table in copy:
            missing = db.execute(
                f"SELECT table_id, seq FROM main.{table} s WHERE NOT EXISTS "
                f"(SELECT 1 FROM copy.{table} c WHERE c.table_id = s.table_id "
                "AND c.boot_id = s.boot_id AND c.seq = s.seq)"
            )
        else:
            missing = db.execute(f"SELECT table_id, seq FROM main.{table}")
        for r in missing:
            lost.setdefault(r[0], []).append((table, int(r[1])))
    found = []
    for table_id in sorted(lost):
        rows = lost[table_id]
        first_kept = newest[table_id] - JOURNAL_KEEPS + 1
        found.append(
            TableLoss(
                table_id,
                events=sum(1 for kind, _ in rows if kind == "events"),
                records=len(rows),
                resent=sum(1 for _, seq in rows if seq >= first_kept),
            )
        )
    return found


def _pairs(
    db: sqlite3.Connection, table: str, key: str, have: set[str]
) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Each row of the store's ``table`` with the copy's row of the same
    ``key`` (None: the copy has none)."""
    if table not in have:
        return []
    mine = [dict(r) for r in db.execute(f"SELECT * FROM main.{table} ORDER BY {key}")]
    theirs: dict[Any, dict[str, Any]] = {}
    if table in _tables(db, "copy"):
        theirs = {r[key]: dict(r) for r in db.execute(f"SELECT * FROM copy.{table}")}
    return [(r, theirs.get(r[key])) for r in mine]


def _changed_since(a: dict[str, Any], c: dict[str, Any]) -> bool:
    """The store changed this account after the copy was taken: what
    :func:`reapply` writes back (the same rule as its ``_accounts``)."""
    shared = (k for k in a if k in c and k not in ACCOUNT_STAMPS)
    differs = any(a[k] != c[k] for k in shared)
    return differs and (a.get("changed_ms") or 0) >= (c.get("changed_ms") or 0)


def _account_changes(a: dict[str, Any], c: dict[str, Any]) -> list[str]:
    """What the store changed in an account since the copy, in words."""
    name = a["name"]
    when = f"{_stamp(a.get('changed_ms'))}{_by(a.get('changed_by'))}"
    found = []
    if a.get("disabled") and not c.get("disabled"):
        found.append(f"account {name!r} disabled {when}")
    elif c.get("disabled") and not a.get("disabled"):
        found.append(f"account {name!r} enabled again {when}")
    for key, what in (("password", "password"), ("pin", "PIN")):
        if a.get(key) != c.get(key):
            verb = "removed" if a.get(key) is None else "reset" if c.get(key) else "given"
            found.append(f"account {name!r}: its {what} {verb} {when}")
    if (a.get("role"), a.get("tables")) != (c.get("role"), c.get("tables")):

        def says(r: dict[str, Any]) -> str:
            return str(r.get("role")) + (f" of tables {r['tables']}" if r.get("tables") else "")

        found.append(f"account {name!r} made {says(a)} (the copy: {says(c)}) {when}")
    if not found and a.get("changed_ms") == c.get("changed_ms"):
        # Only the generation moved, and no change of the account stamped
        # it: "sign everyone out" did (host/store/staff_schema.py).
        return [f"account {name!r}: its sign-ins ended when everyone was signed out"]
    return found or [f"account {name!r} changed {when}"]


def _staff(db: sqlite3.Connection, have: set[str], loss: Loss) -> None:
    for a, c in _pairs(db, "staff_accounts", "id", have):
        if c is None or c.get("name_key") != a.get("name_key"):
            loss.staff_added.append(
                f"account {a['name']!r} ({a['role']}) added "
                f"{_stamp(a.get('created_ms'))}{_by(a.get('changed_by'))}"
            )
        elif _changed_since(a, c):
            loss.undone += _account_changes(a, c)
    for t, c in _pairs(db, "staff_tokens", "id", have):
        name = f"token {t['name']!r} ({t['role']})"
        if c is None or c.get("hash") != t.get("hash"):
            loss.staff_added.append(
                f"{name} made {_stamp(t.get('created_ms'))}{_by(t.get('created_by'))}"
                + (", and revoked since" if t.get("revoked_ms") is not None else "")
            )
        elif t.get("revoked_ms") is not None and c.get("revoked_ms") is None:
            loss.undone.append(
                f"{name} revoked {_stamp(t['revoked_ms'])}{_by(t.get('revoked_by'))}"
            )
    made = _new_rows(db, "staff_codes", "hash", have)
    if made:
        loss.staff_added.append(f"{made} one-time sign-in codes made")
    loss.signed_out = _ended(db, have, "staff_sessions", "hash", "ended_ms")
    loss.codes_used = _ended(db, have, "staff_codes", "hash", "used_ms")


def _ended(db: sqlite3.Connection, have: set[str], table: str, key: str, column: str) -> int:
    """Rows both hold, ``column`` set in the store and not in the copy."""
    if table not in have or table not in _tables(db, "copy"):
        return 0
    return int(
        db.execute(
            f"SELECT count(*) FROM main.{table} s JOIN copy.{table} c ON c.{key} = s.{key} "
            f"WHERE s.{column} IS NOT NULL AND c.{column} IS NULL"
        ).fetchone()[0]
    )


def compare(store: Path, copy: Path) -> Loss:
    """What ``store`` holds beyond ``copy`` (both read-only).  A store that
    is not a readable baulk store gives a Loss saying why (``unreadable``)."""
    try:
        db = _open(store, copy)
    except sqlite3.Error as e:
        return Loss(unreadable=f"{store} does not open: {e}")
    try:
        have = _tables(db, "main")
        if "events" not in have:
            return Loss(unreadable=f"{store} is not a baulk store (it has no events table)")
        loss = Loss(tables=_stream(db, have))
        for table, _ in PC_ONLY:
            n = _new_rows(db, table, "id", have)
            if n:
                loss.rows[table] = n
        _staff(db, have, loss)
        loss.activity = _new_rows(db, ACTIVITY, "id", have)
        return loss
    except sqlite3.DatabaseError as e:
        return Loss(unreadable=f"{store} cannot be read whole: {e}")
    finally:
        db.close()


# ---------------------------------------------------------------------- writing
def reapply(copy: Path, store: Path) -> list[str]:
    """Write into ``copy`` (not yet in place) the restrictions ``store`` made
    since: tokens revoked, accounts as the owner last set them (disabled,
    reset, their role and tables), sign-ins ended, one-time codes used.
    Returns what was applied, a line each."""
    done: list[str] = []
    db = sqlite3.connect(_uri(copy, "rw"), uri=True, timeout=10)
    try:
        # A file on its own, as a snapshot is: nothing left in a WAL beside it
        # when it is renamed into place (the daemon makes it WAL again).
        db.execute("PRAGMA main.journal_mode = DELETE")
        db.execute("ATTACH DATABASE ? AS old", (_uri(store, "ro"),))
        mine = _tables(db, "main")
        theirs = _tables(db, "old")
        with db:
            if {"staff_tokens"} <= mine & theirs:
                done += _revoke(db)
            if {"staff_accounts"} <= mine & theirs:
                done += _accounts(db)
            if {"staff_sessions"} <= mine & theirs:
                n = _copy_end(db, "staff_sessions", ("ended_ms", "ended_why"))
                if n:
                    done.append(f"{n} sign-ins ended again")
            if {"staff_codes"} <= mine & theirs:
                n = _copy_end(db, "staff_codes", ("used_ms",))
                if n:
                    done.append(f"{n} one-time codes used again")
            if done and "meta" in mine:  # a daemon reading the file sees the staff changed
                db.execute(
                    "INSERT INTO meta (key, value) VALUES ('staff_version', '1') "
                    "ON CONFLICT (key) DO UPDATE SET "
                    "value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
                )
        db.execute("DETACH DATABASE old")
    finally:
        db.close()
    return done


def _revoke(db: sqlite3.Connection) -> list[str]:
    rows = db.execute(
        "SELECT c.id, o.name, o.role, o.revoked_ms, o.revoked_by FROM main.staff_tokens c "
        "JOIN old.staff_tokens o ON o.id = c.id AND o.hash = c.hash "
        "WHERE c.revoked_ms IS NULL AND o.revoked_ms IS NOT NULL"
    ).fetchall()
    for token_id, _, _, at, by in rows:
        db.execute(
            "UPDATE main.staff_tokens SET revoked_ms = ?, revoked_by = ? WHERE id = ?",
            (at, by, token_id),
        )
    return [f"token {name!r} ({role}) revoked again" for _, name, role, _, _ in rows]


def _accounts(db: sqlite3.Connection) -> list[str]:
    """Each account both hold that the store changed since the copy: as the
    store has it, every column but its id and when it was made (so columns
    a later baulk adds, a sign-in's generation say, come with it)."""
    shared = [
        c
        for c in _columns(db, "main", "staff_accounts")
        if c in _columns(db, "old", "staff_accounts") and c not in ("id", "created_ms")
    ]
    keys = [k for k in shared if k not in ACCOUNT_STAMPS]
    differs = " OR ".join(f"c.{k} IS NOT o.{k}" for k in keys) or "0"
    rows = db.execute(
        f"SELECT c.id, o.name FROM main.staff_accounts c JOIN old.staff_accounts o "
        f"ON o.id = c.id AND o.name_key = c.name_key WHERE ({differs}) "
        "AND o.changed_ms >= c.changed_ms"
    ).fetchall()
    sets = ", ".join(
        f"{k} = (SELECT o.{k} FROM old.staff_accounts o WHERE o.id = ?)" for k in shared
    )
    for account_id, _ in rows:
        db.execute(
            f"UPDATE main.staff_accounts SET {sets} WHERE id = ?",
            [account_id] * len(shared) + [account_id],
        )
    return [
        f"account {name!r} as it was last set (role, tables, password, PIN, disabled)"
        for _, name in rows
    ]


def _copy_end(db: sqlite3.Connection, table: str, columns: Sequence[str]) -> int:
    first = columns[0]
    sets = ", ".join(
        f"{c} = (SELECT o.{c} FROM old.{table} o WHERE o.hash = main.{table}.hash)" for c in columns
    )
    cur = db.execute(
        f"UPDATE main.{table} SET {sets} WHERE {first} IS NULL AND hash IN "
        f"(SELECT hash FROM old.{table} WHERE {first} IS NOT NULL)"
    )
    return int(cur.rowcount)
