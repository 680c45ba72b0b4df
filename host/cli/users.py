"""``baulk users``: the club's staff accounts, from the venue PC's shell
(docs/VENUE.md, "Staff").

    baulk users add NAME --role owner|desk|referee [--tables t1,t2] [--pin] --config FILE
    baulk users disable NAME --config FILE      (and enable)
    baulk users reset NAME [--pin] --config FILE   a new password (or PIN)
    baulk users code NAME --config FILE         a one-time sign-in code for a new phone
    baulk users list --config FILE

The password (or PIN) is asked for twice on the terminal, or read as one
line from standard input with ``--password-stdin``; it is never an argument
(a shell's history and ``ps`` would show it).  The store file is changed
directly, the daemon running or not: a running daemon sees the change
within a second (host/staff/registry.py), and a disabled or reset account's
sign-ins end.  Every change is in the activity log, by ``shell``.

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
from baulk.host.staff import activity
from baulk.host.staff.registry import Registry, StaffError
from baulk.host.store import Batch, StaffWrite, Store, StoreError

SHELL = "shell"  # who the activity log names for a change made here


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "users",
        help="add, disable, enable, reset or list the club's staff accounts",
        description="Staff accounts: owner, desk and referee (docs/VENUE.md). Passwords and "
        "PINs are asked for on the terminal, or read from stdin with --password-stdin.",
    )
    sub = p.add_subparsers(dest="users_command", required=True)
    for name, text in (
        ("add", "add an account"),
        ("disable", "disable an account (its sign-ins end)"),
        ("enable", "enable a disabled account"),
        ("reset", "give an account a new password, or PIN (its sign-ins end)"),
        ("code", "a one-time sign-in code for a new phone (15 minutes)"),
        ("list", "list the accounts"),
    ):
        q = sub.add_parser(name, help=text, description=text)
        src = q.add_mutually_exclusive_group(required=True)
        src.add_argument("--config", help="TOML config file (its store is used)")
        src.add_argument("--store", help="the SQLite store file")
        if name == "list":
            continue
        q.add_argument("name", help="the person's name, as he signs in")
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
    path = config_mod.load(args.config).store_path if args.config else Path(args.store)
    if args.store and not path.is_file():
        raise StoreError(f"no store at {path}")
    store = Store(path)

    async def save(w: StaffWrite) -> bool:
        try:
            written = store.write(Batch(writes=[w]))
        except sqlite3.Error as e:
            raise StoreError(f"the store could not take the change: {e}") from None
        return not written.refused  # the writer refused it alone, and says why

    registry = Registry(save)
    registry.load(store.db)
    return store, registry


def _log(store: Store, action: str, name: str, result: str, why: str | None) -> None:
    at = VenueClock().now()
    entry = activity.Entry(
        at, None, SHELL, None, "baulk users", action, f"baulk users {action} {name}"[:300],
        None, None, result, why,
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
        action = {"add": "user add", "code": "sign-in code"}.get(args.users_command, "user change")
        try:
            said, logged = asyncio.run(_change(args, store, registry))
        except (StaffError, ValueError, StoreError) as e:
            _log(store, action, args.name, "refused", str(e))
            print(f"baulk users: {e}", file=sys.stderr)
            return 2
        _log(store, action, args.name, "done", logged or said)
        print(said)
        return 0
    finally:
        store.close()
