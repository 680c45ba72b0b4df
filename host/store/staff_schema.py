"""The staff's tables in the store (host/staff/ keeps them in memory at run
time; docs/VENUE.md, "Staff"):

* ``staff_accounts``: one row a person: his name, role (owner, desk,
  referee), the tables a referee is limited to, his password's and PIN's
  argon2 hashes, and whether he is disabled.  A change (a reset, a disable)
  updates his row and moves its ``generation`` on by one; the activity log
  keeps who made it and when.
* ``staff_tokens``: named API tokens, each with a role; only the token's
  SHA-256 is kept (a token is 32 random bytes: a fast hash is enough, and
  the token is never stored).  A token is revoked, never deleted.  Each is
  bound to what made it, as a sign-in is: the owner's account
  (``maker_account``), another token (``maker_token``), or the operator
  token as a keyed hash (``credential``); it ends when that ends.
* ``staff_sessions``: the console's and the desk's sign-ins, by the SHA-256
  of the cookie's secret, with their CSRF token and when they end, so a
  restarted daemon keeps everyone signed in; sign-out writes ``ended_ms``.
  Each is bound to the credential it was made with: an account's
  ``generation`` at the time, or for the operator token a keyed hash of the
  token (``credential``, never the token); a sign-in whose credential has
  changed since is no sign-in (host/staff/registry.py).
* ``staff_devices``: the browsers an account has signed in from (the
  SHA-256 of a device cookie): the guessing cap never shuts those out.
* ``staff_codes``: one-time sign-in codes the owner gives a person for a
  phone he has never signed in from (the SHA-256 of the code, the account,
  when it ends, when it was used): the guessing cap never holds one back.
  A code is a credential like a password: it keeps the account's
  ``generation`` when it was made, and any change of the account after
  that (a reset, a disable, a role or tables) leaves it nothing to sign in.
* ``staff_activity``: the activity log, append-only like
  ``bill_corrections``: triggers refuse UPDATE and DELETE.  ``who`` is the
  person who acted (signed in, or ``shell``); a name a stranger only tried
  is ``tried``, never ``who``.
* ``meta.staff_version`` counts changes to accounts and tokens, so a daemon
  sees within a second what ``baulk users`` changed in the file.

Rows come to the writer as :class:`StaffWrite`, a row kind of its own
(host/store/records.py ``RowWrite``): the writer writes each in a savepoint,
so a row the file refuses is refused to its caller alone and can never hold
up the events of the same commit.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any, ClassVar

log = logging.getLogger("baulk.store")

STAFF_SCHEMA = """
CREATE TABLE IF NOT EXISTS staff_accounts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    tables TEXT,
    password TEXT,
    pin TEXT,
    disabled INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    changed_ms INTEGER NOT NULL,
    changed_by TEXT,
    generation INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS staff_tokens (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    tables TEXT,
    hash TEXT NOT NULL UNIQUE,
    created_ms INTEGER NOT NULL,
    created_by TEXT,
    revoked_ms INTEGER,
    revoked_by TEXT,
    maker_account INTEGER,
    maker_token INTEGER,
    credential TEXT
);
CREATE TABLE IF NOT EXISTS staff_sessions (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    account_id INTEGER,
    name TEXT NOT NULL,
    role TEXT NOT NULL,
    tables TEXT,
    csrf TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    address TEXT,
    device TEXT,
    ended_ms INTEGER,
    ended_why TEXT,
    generation INTEGER,
    credential TEXT
);
CREATE INDEX IF NOT EXISTS staff_sessions_live ON staff_sessions (expires_ms)
    WHERE ended_ms IS NULL;
CREATE TABLE IF NOT EXISTS staff_devices (
    hash TEXT NOT NULL,
    account_id INTEGER NOT NULL,
    first_ms INTEGER NOT NULL,
    PRIMARY KEY (hash, account_id)
);
CREATE TABLE IF NOT EXISTS staff_codes (
    hash TEXT PRIMARY KEY,
    account_id INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    created_by TEXT,
    expires_ms INTEGER NOT NULL,
    used_ms INTEGER,
    generation INTEGER
);
CREATE TABLE IF NOT EXISTS staff_activity (
    id INTEGER PRIMARY KEY,
    wall_ms INTEGER NOT NULL,
    mono_ms INTEGER NOT NULL,
    boot TEXT NOT NULL,
    who TEXT,
    role TEXT,
    address TEXT,
    device TEXT,
    action TEXT NOT NULL,
    what TEXT NOT NULL,
    table_id TEXT,
    session_id INTEGER,
    result TEXT NOT NULL,
    why TEXT,
    tried TEXT
);
CREATE INDEX IF NOT EXISTS staff_activity_when ON staff_activity (wall_ms);
CREATE TRIGGER IF NOT EXISTS staff_activity_no_update BEFORE UPDATE ON staff_activity
BEGIN SELECT RAISE(ABORT, 'staff_activity is append-only'); END;
CREATE TRIGGER IF NOT EXISTS staff_activity_no_delete BEFORE DELETE ON staff_activity
BEGIN SELECT RAISE(ABORT, 'staff_activity is append-only'); END;
"""

ACCOUNT_COLUMNS = (
    "id, name, name_key, role, tables, password, pin, disabled, created_ms, changed_ms, "
    "changed_by, generation"
)
TOKEN_COLUMNS = (
    "id, name, role, tables, hash, created_ms, created_by, revoked_ms, revoked_by, "
    "maker_account, maker_token, credential"
)
SESSION_COLUMNS = (
    "id, hash, account_id, name, role, tables, csrf, created_ms, expires_ms, address, device, "
    "generation, credential"
)
ACTIVITY_COLUMNS = (
    "id, wall_ms, mono_ms, boot, who, role, address, device, action, what, table_id, "
    "session_id, result, why, tried, why_said"
)
# Columns a store made by an older baulk lacks, added when it is opened.  Its
# sign-ins and unused codes have no credential to check: they end, and
# everyone signs in once again.  Its activity rows keep a tried name in
# ``who`` (read as tried by staff_queries.activity).
_ADDED = (
    ("staff_accounts", "generation", "INTEGER NOT NULL DEFAULT 0"),
    ("staff_sessions", "generation", "INTEGER"),
    ("staff_sessions", "credential", "TEXT"),
    ("staff_activity", "tried", "TEXT"),
    # An older baulk's rows keep a refusal's English alone (read back by the
    # catalogue's templates); a row now keeps it by id and values too.
    ("staff_activity", "why_said", "TEXT"),
    ("staff_codes", "generation", "INTEGER"),  # an older baulk's unused codes: none holds
    # An older baulk's named tokens were bound to nothing: they hold until revoked.
    ("staff_tokens", "maker_account", "INTEGER"),
    ("staff_tokens", "maker_token", "INTEGER"),
    ("staff_tokens", "credential", "TEXT"),
)


def migrate(db: sqlite3.Connection) -> None:
    """The staff's tables, and the columns a store made by an older baulk lacks."""
    db.executescript(STAFF_SCHEMA)
    for table, column, kind in _ADDED:
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")


@dataclass
class StaffWrite:
    """One change to the staff's tables.  ``op`` names it:

    * ``account``: insert or update an account (``values``: its columns; an
      ``id`` updates that row, none inserts one); an update moves the
      account's ``generation`` on, and ``generation`` here is then the new one;
    * ``token``: insert a token, or revoke one (``values``: ``id``,
      ``revoked_ms``, ``revoked_by``);
    * ``session``: insert a sign-in, or end one (``values``: ``hash``,
      ``ended_ms``, ``ended_why``), every one of an account (``account_id``
      instead of ``hash``) or every one there is (``everyone``: True instead,
      which spends every unused one-time code too and moves every account's
      ``generation`` on);
    * ``device``: remember that an account signed in from a device;
    * ``code``: insert a one-time sign-in code, or use one (``values``:
      ``hash``, ``used_ms``; a code used already is refused);
    * ``activity``: append a row to the activity log.

    A row kind of its own beside the score path (host/store/records.py
    ``RowWrite``): the committer's receipt for it says whether it was stored,
    and a row the file refuses is refused alone, never holding up events.
    """

    KIND: ClassVar[str] = "staff change"

    op: str
    values: dict[str, Any] = field(default_factory=dict)
    row_id: int = 0  # an inserted row's id, once written
    generation: int = 0  # an updated account's generation, once written

    def write(self, db: sqlite3.Connection) -> None:
        _one(db, self)


_ACTIVITY_KEYS = (
    "wall_ms", "mono_ms", "boot", "who", "role", "address", "device", "action", "what",
    "table_id", "session_id", "result", "why", "tried", "why_said",
)  # fmt: skip


def _insert(db: sqlite3.Connection, table: str, values: dict[str, Any]) -> int:
    keys = list(values)
    cur = db.execute(
        f"INSERT INTO {table} ({', '.join(keys)}) VALUES ({', '.join('?' * len(keys))})",
        [values[k] for k in keys],
    )
    return int(cur.lastrowid or 0)


def _update(
    db: sqlite3.Connection, table: str, key: str, values: dict[str, Any], also: str = ""
) -> int:
    rest = [k for k in values if k != key and k != "generation"]
    sets = [f"{k} = ?" for k in rest] + ([also] if also else [])
    cur = db.execute(
        f"UPDATE {table} SET {', '.join(sets)} WHERE {key} = ?",
        [values[k] for k in rest] + [values[key]],
    )
    return cur.rowcount


def _bump(db: sqlite3.Connection) -> None:
    db.execute(
        "INSERT INTO meta (key, value) VALUES ('staff_version', '1') ON CONFLICT (key) "
        "DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)"
    )


def _one(db: sqlite3.Connection, w: StaffWrite) -> None:
    v = w.values
    if w.op == "activity":
        _insert(db, "staff_activity", {k: v.get(k) for k in _ACTIVITY_KEYS})
    elif w.op == "account":
        if v.get("id") is None:
            w.row_id = _insert(db, "staff_accounts", {k: x for k, x in v.items() if k != "id"})
        else:
            # Every change of an account is a new generation of its
            # credentials: the sign-ins made with the one before end.
            also = "generation = generation + 1"
            if _update(db, "staff_accounts", "id", v, also) != 1:
                raise sqlite3.IntegrityError(f"there is no account {v['id']}")
            row = db.execute("SELECT generation FROM staff_accounts WHERE id = ?", (v["id"],))
            w.generation = int(row.fetchone()[0])
        _bump(db)
    elif w.op == "token":
        if "revoked_ms" in v:
            _update(db, "staff_tokens", "id", v)
        else:
            w.row_id = _insert(db, "staff_tokens", v)
        _bump(db)
    elif w.op == "session":
        if "ended_ms" in v and "hash" in v:
            db.execute(
                "UPDATE staff_sessions SET ended_ms = ?, ended_why = ? "
                "WHERE hash = ? AND ended_ms IS NULL",
                (v["ended_ms"], v.get("ended_why"), v["hash"]),
            )
        elif "ended_ms" in v and v.get("everyone"):  # every sign-in there is
            db.execute(
                "UPDATE staff_sessions SET ended_ms = ?, ended_why = ? WHERE ended_ms IS NULL",
                (v["ended_ms"], v.get("ended_why")),
            )
            # ... and every one-time code not used yet: a code is a sign-in
            # still to be made.  Spent (used_ms), the column every reader of
            # a code's end already knows: the live codes, a backup's losses.
            db.execute("UPDATE staff_codes SET used_ms = ? WHERE used_ms IS NULL", (v["ended_ms"],))
            # ... and every account's generation moves on, so a sign-in whose
            # password, PIN or code was checked before this and stored after
            # it holds no more either (host/staff/registry.py ended_why).
            db.execute("UPDATE staff_accounts SET generation = generation + 1")
            _bump(db)  # a running daemon drops them too (baulk users sign-out-all)
        elif "ended_ms" in v:  # every sign-in of an account
            db.execute(
                "UPDATE staff_sessions SET ended_ms = ?, ended_why = ? "
                "WHERE account_id = ? AND ended_ms IS NULL",
                (v["ended_ms"], v.get("ended_why"), v["account_id"]),
            )
        else:
            _insert(db, "staff_sessions", v)
    elif w.op == "device":
        db.execute(
            "INSERT OR IGNORE INTO staff_devices (hash, account_id, first_ms) VALUES (?,?,?)",
            (v["hash"], v["account_id"], v["first_ms"]),
        )
    elif w.op == "code":
        if "used_ms" in v:
            used = db.execute(
                "UPDATE staff_codes SET used_ms = ? WHERE hash = ? AND used_ms IS NULL",
                (v["used_ms"], v["hash"]),
            )
            if used.rowcount != 1:
                raise sqlite3.IntegrityError("that sign-in code was used already")
        else:
            _insert(db, "staff_codes", v)
            _bump(db)  # a code made by baulk users reaches the running daemon
    else:
        raise sqlite3.IntegrityError(f"{w.op!r} is not a staff change")
