"""``baulk users``: the club's staff accounts, from the venue PC's shell
(docs/VENUE.md, "Staff").

    baulk users add NAME --role owner|desk|referee [--tables t1,t2] [--pin] --config FILE
    baulk users disable NAME --config FILE      (and enable)
    baulk users reset NAME [--pin] --config FILE   a new password (or PIN)
    baulk users set NAME [--role ROLE] [--tables t1,t2 | --all-tables] --config FILE
    baulk users code NAME --config FILE         a one-time sign-in code for a new phone
    baulk users list --config FILE
    baulk users tokens --config FILE            the named API tokens
    baulk users revoke TOKEN_ID --config FILE   revoke a named API token
    baulk users sign-out-all --config FILE      end every sign-in and unused code

The password (or PIN) is asked for twice on the terminal, or read as one
line from standard input with ``--password-stdin``; it is never an argument
(a shell's history and ``ps`` would show it).  The store file is changed
directly, the daemon running or not: a running daemon holds the change for
the very next request that carries a credential (host/staff/registry.py).
Any change of an account (disable, reset, set) ends its sign-ins; a revoked
token is refused at once.  Every change is in the activity log, by ``shell``.

Exit status: 0 done; 2 the store or the input cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import sqlite3
import sys
from datetime import datetime
from pathlib import Path

from baulk.host import config as config_mod
from baulk.host.club.clock import VenueClock
from baulk.host.errors import Refusal
from baulk.host.staff import activity
from baulk.host.staff.registry import TOKEN_ENDED, Registry, StaffError
from baulk.host.store import Batch, StaffWrite, Store, StoreError, staff_queries

SHELL = "shell"  # who the activity log names for a change made here
_NAMELESS = ("list", "tokens", "sign-out-all")
_ACTIONS = {
    "add": "user add",
    "code": "sign-in code",
    "revoke": "token revoke",
    "sign-out-all": "sign everyone out",
}


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "users",
        help="the club's staff accounts and API tokens: add, disable, reset, revoke, sign out",
        description="Staff accounts: owner, desk and referee (docs/VENUE.md). Passwords and "
        "PINs are asked for on the terminal, or read from stdin with --password-stdin.",
    )
    sub = p.add_subparsers(dest="users_command", required=True)
    for name, text in (
        ("add", "add an account"),
        ("disable", "disable an account (its sign-ins end)"),
        ("enable", "enable a disabled account"),
        ("reset", "give an account a new password, or PIN (its sign-ins end)"),
        ("set", "give an account another role or tables (its sign-ins end)"),
        ("code", "a one-time sign-in code for a new phone (15 minutes)"),
        ("list", "list the accounts"),
        ("tokens", "list the named API tokens"),
        ("revoke", "revoke a named API token (refused at once)"),
        ("sign-out-all", "end every sign-in on every phone, and unused codes (API tokens stay)"),
    ):
        q = sub.add_parser(name, help=text, description=text)
        src = q.add_mutually_exclusive_group(required=True)
        src.add_argument("--config", help="TOML config file (its store is used)")
        src.add_argument("--store", help="the SQLite store file")
        if name in _NAMELESS:
            continue
        if name == "revoke":
            q.add_argument("token", help="the token's number, as baulk users tokens lists it")
            continue
        q.add_argument("name", help="the person's name, as he signs in")
        if name == "set":
            q.add_argument("--role", choices=("owner", "desk", "referee"))
            which = q.add_mutually_exclusive_group()
            which.add_argument("--tables", help="a referee's tables, comma-separated")
            which.add_argument("--all-tables", action="store_true", help="a referee of every table")
        if name in ("add", "reset"):
            q.add_argument("--pin", action="store_true", help="a desk clerk's PIN (4-8 digits)")
            q.add_argument(
                "--password-stdin", action="store_true", help="read the secret from stdin"
            )
        if name == "add":
            q.add_argument("--role", required=True, choices=("owner", "desk", "referee"))
            q.add_argument("--tables", help="a referee's tables, comma-separated (default: all)")
    p.set_defaults(handler=run)


def _secret(args: argparse.Namespace, what: str) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass(f"{what}: ")
    if getpass.getpass(f"{what} again: ") != first:
        raise ValueError(f"the two {what}s differ")
    return first


def _open(args: argparse.Namespace) -> tuple[Store, Registry]:
    config = config_mod.load(args.config) if args.config else None
    path = config.store_path if config is not None else Path(args.store)
    if args.store and not path.is_file():
        raise StoreError(f"no store at {path}")
    store = Store(path)

    async def save(w: StaffWrite) -> bool:
        try:
            written = store.write(Batch(writes=[w]))
        except sqlite3.Error as e:
            raise StoreError(f"the store could not take the change: {e}") from None
        return not written.refused  # the writer refused it alone, and says why

    # The config's operator token, to judge the tokens made with it; with
    # only --store it is unknown, and those tokens are listed as such.
    registry = Registry(save, operator=config.operator_token if config is not None else None)
    registry.load(store.db)
    return store, registry


def _log(store: Store, action: str, what: str, result: str, why: str | None) -> None:
    at = VenueClock().now()
    entry = activity.Entry(
        at, None, None, None, "baulk users", action, f"baulk users {what}"[:300],
        None, None, result, why, by=SHELL,
    )  # fmt: skip
    store.write(Batch(writes=[entry.write()]))


async def _change(
    args: argparse.Namespace, store: Store, registry: Registry
) -> tuple[str, str | None]:
    """What the command did, as it is printed, and as the activity log keeps
    it (None: the same)."""
    cmd = args.users_command
    if cmd == "add":
        secret = _secret(args, "PIN" if args.pin else "password")
        tables = args.tables.split(",") if args.tables else None
        a = await registry.add(
            args.name,
            args.role,
            None if args.pin else secret,
            secret if args.pin else None,
            tables,
            SHELL,
        )
        return f"added {a.name} ({a.role})", None
    if cmd == "code":
        code, a, ends = await registry.new_code(args.name, SHELL)
        until = datetime.fromtimestamp(ends / 1000).strftime("%H:%M")  # this PC's time
        # the code is a secret until used: the log says only that one was made
        return (
            f"sign-in code for {a.name}: {code} (once, until {until})",
            f"sign-in code for {a.name}",
        )
    if cmd in ("disable", "enable"):
        a = await registry.change(args.name, SHELL, disabled=cmd == "disable")
        return f"{a.name} is {'disabled' if a.disabled else 'enabled'}", None
    if cmd == "set":
        given: object = ...  # the tables as they are
        if args.tables:
            given = args.tables.split(",")
        elif args.all_tables:
            given = None
        a = await registry.change(args.name, SHELL, role=args.role, tables=given)
        limited = ", ".join(sorted(a.tables)) if a.tables is not None else "every table"
        return f"{a.name} is {a.role} ({limited})", None
    if cmd == "revoke":
        if not (args.token.isascii() and args.token.isdigit() and len(args.token) < 12):
            raise StaffError(Refusal.NOT_FOUND, f"there is no token {args.token[:20]} in use")
        t = await registry.revoke_token(int(args.token), SHELL)
        return f"token {t.id} ({t.name}) is revoked", None
    if cmd == "sign-out-all":
        live = len(staff_queries.live_session_hashes(store.db, registry.clock.wall_ms()))
        await registry.sign_out_all(f"{SHELL} signed everyone out")
        return f"signed everyone out: {live} sign-ins ended", None
    secret = _secret(args, "PIN" if args.pin else "password")
    if args.pin:
        a = await registry.change(args.name, SHELL, pin=secret)
    else:
        a = await registry.change(args.name, SHELL, password=secret)
    return f"{a.name} has a new {'PIN' if args.pin else 'password'}", None


def run(args: argparse.Namespace) -> int:
    try:
        store, registry = _open(args)
    except (StoreError, config_mod.ConfigError) as e:
        print(f"baulk users: {e}", file=sys.stderr)
        return 2
    try:
        if args.users_command == "list":
            for a in registry.accounts.values():
                limited = f" tables {','.join(sorted(a.tables))}" if a.tables is not None else ""
                state = " (disabled)" if a.disabled else ""
                print(f"{a.name}\t{a.role}{limited}{state}")
            return 0
        if args.users_command == "tokens":
            for t in sorted(registry.tokens.values(), key=lambda t: t.id):
                limited = f" tables {','.join(sorted(t.tables))}" if t.tables is not None else ""
                ended = registry.token_ended(t)
                if ended == "operator_changed" and not args.config:
                    state = " (made with the operator token: give --config to see if it holds)"
                elif ended == "revoked":
                    state = " (revoked)"
                else:
                    state = f" (ended: {TOKEN_ENDED[ended]})" if ended else ""
                print(f"{t.id}\t{t.name}\t{t.role}{limited}{state}")
            return 0
        action = _ACTIONS.get(args.users_command, "user change")
        named: str = getattr(args, "name", None) or getattr(args, "token", None) or ""
        what = f"{args.users_command} {named}".strip()
        try:
            said, logged = asyncio.run(_change(args, store, registry))
        except (StaffError, ValueError, StoreError) as e:
            _log(store, action, what, "refused", str(e))
            print(f"baulk users: {e}", file=sys.stderr)
            return 2
        _log(store, action, what, "done", logged or said)
        print(said)
        return 0
    finally:
        store.close()
