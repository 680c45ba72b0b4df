"""``baulk backup`` and ``baulk restore``: their arguments, and the calls into
host/backup/ that do the work (docs/VENUE.md, "Backups").

* ``baulk backup --config C``: replicate the store to ``[backup] replica``
  until SIGTERM or Ctrl-C (what ``docs/systemd/baulk-backup.service`` runs);
* ``baulk backup --config C --now [--to FILE]``: one consistent copy now;
* ``baulk backup --config C --check [--json]``: restore the newest backup into
  a scratch file, check it, and set it beside the live store;
* ``baulk restore --config C [--from PATH] [--to FILE] [--force [--accept-loss]]``:
  the backup back in the store's place, with ``baulk run`` and ``baulk
  backup`` stopped; it first says what a store already there holds beyond
  the backup, and needs ``--accept-loss`` beside ``--force`` when the tables
  cannot send all of it again.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path
from typing import TextIO

from baulk.host import config as config_mod
from baulk.host.backup import litestream, replicate, restore, snapshots
from baulk.host.backup.losses import Loss
from baulk.host.backup.snapshots import BackupError
from baulk.host.cli.service import setup_logging


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    b = subparsers.add_parser(
        "backup",
        help="replicate the store to the [backup] replica (or copy it once, or check a backup)",
        description="Replicate the store to the folder [backup] replica names (a second disk, "
        "a NAS share, another PC's share) as it is written, until stopped: Litestream, or "
        "SQLite's online backup API on a schedule and at the end. docs/VENUE.md, 'Backups'.",
    )
    b.add_argument("--config", required=True, help="TOML config file with a [backup] section")
    what = b.add_mutually_exclusive_group()
    what.add_argument("--now", action="store_true", help="one consistent copy now, then exit")
    what.add_argument(
        "--check",
        action="store_true",
        help="restore the newest backup into a scratch file, check it, compare with the store",
    )
    b.add_argument("--to", help="with --now: the file to write (default: a new snapshot)")
    b.add_argument("--json", action="store_true", help="with --check: print JSON")
    b.add_argument("-v", "--verbose", action="store_true", help="log every step")
    b.set_defaults(handler=backup)

    r = subparsers.add_parser(
        "restore",
        help="put the newest backup back in the store's place",
        description="Restore the store from [backup] replica (or --from a replica folder or a "
        "snapshot file). Stop baulk run and baulk backup first; a store already there is "
        "refused, or with --force moved aside, never deleted. It first says what that store "
        "holds beyond the backup; when that is more than the tables' journals can send again "
        "(sessions, bills, staff changes, the activity log, or events too old), --force needs "
        "--accept-loss beside it. Revocations, disables and resets made since the backup are "
        "made again in it. Then start baulk run: the tables send again from their journals "
        "what the backup had not caught.",
    )
    r.add_argument("--config", required=True, help="TOML config file with a [backup] section")
    r.add_argument("--from", dest="source", help="a replica folder or a snapshot file")
    r.add_argument("--to", help="the file to write (default: the config's store)")
    r.add_argument("--force", action="store_true", help="move a store already there aside")
    r.add_argument(
        "--accept-loss",
        action="store_true",
        help="with --force: restore even when the store there holds what no table can send again",
    )
    r.set_defaults(handler=restore_cmd)


def _load(args: argparse.Namespace) -> tuple[config_mod.Config, config_mod.BackupConfig]:
    cfg = config_mod.load(args.config)
    if cfg.backup is None:
        raise config_mod.ConfigError(
            f"{args.config} has no [backup] section: add one with replica = a folder on "
            "another disk (docs/VENUE.md, 'Backups')"
        )
    return cfg, cfg.backup


def backup(args: argparse.Namespace) -> int:
    setup_logging(args.verbose)
    try:
        cfg, bc = _load(args)
    except config_mod.ConfigError as e:
        print(f"baulk backup: {e}", file=sys.stderr)
        return 2
    if args.to and not args.now:
        print("baulk backup: --to goes with --now", file=sys.stderr)
        return 2
    try:
        if args.now:
            return _now(cfg, bc, Path(args.to) if args.to else None)
        if args.check:
            return _check(cfg, bc, args.json)
    except BackupError as e:
        print(f"baulk backup: {e}", file=sys.stderr)
        return 1
    return _replicate(cfg, bc)


def _now(cfg: config_mod.Config, bc: config_mod.BackupConfig, to: Path | None) -> int:
    if to is not None:
        made = snapshots.take(cfg.store_path, to.parent, to.name)
    else:
        made = snapshots.take(cfg.store_path, bc.replica / snapshots.FOLDER)
    print(f"baulk backup: {made}: {restore.summarize(made).line()}")
    return 0


def _check(cfg: config_mod.Config, bc: config_mod.BackupConfig, as_json: bool) -> int:
    found = restore.check(bc, cfg.store_path)
    sound = found.replica.integrity == "ok"
    if as_json:
        print(json.dumps(found.as_dict()))
        return 0 if sound else 1
    print(f"baulk backup: the backup ({found.source.describe()}): {found.replica.line()}")
    print(f"  integrity: {found.replica.integrity}")
    if found.store is None:
        print(f"  there is no store at {cfg.store_path} to compare it with")
    else:
        print(f"  the store: {found.store.line()}")
        print(
            f"  behind the store by {found.behind_events} events"
            + (f" ({found.seconds_behind:.1f} s)" if found.seconds_behind is not None else "")
        )
    return 0 if sound else 1


def _replicate(cfg: config_mod.Config, bc: config_mod.BackupConfig) -> int:
    how = replicate.plan(bc)
    store = cfg.store_path
    try:
        bc.replica.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        why = e.strerror or e
        print(f"baulk backup: cannot use the replica {bc.replica}: {why}", file=sys.stderr)
        return 2
    if how.note:
        print(f"baulk backup: {how.note}: falling back to snapshots", file=sys.stderr)
    if replicate.same_disk(store, bc.replica):
        print(
            f"baulk backup: warning: {bc.replica} is on the store's own disk; a disk that "
            "dies takes both (name a second disk, a NAS share or another PC's share)",
            file=sys.stderr,
        )
    if how.method == "litestream":
        where = litestream.replica_folder(bc.replica)
        every = f"within {bc.sync_ms} ms of each commit"
    else:
        where = bc.replica / snapshots.FOLDER
        every = f"every {bc.every_min} min and at the end"
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(f"baulk backup: replicating {store} to {where} ({how.tool}, {every})", flush=True)
    try:
        replicate.Replication(bc, store, how).run(stop)
    except OSError as e:  # the replica's disk went away, say: the service manager restarts us
        print(f"baulk backup: cannot go on: {e}", file=sys.stderr)
        return 1
    print("baulk backup: stopped", flush=True)
    return 0


def _tell_loss(store: Path, loss: Loss, out: TextIO) -> None:
    print(f"baulk restore: what the store at {store} holds beyond the backup:", file=out)
    for line in loss.lines():
        print(f"  {line}", file=out)


def restore_cmd(args: argparse.Namespace) -> int:
    setup_logging(False)
    try:
        cfg, bc = _load(args)
    except config_mod.ConfigError as e:
        print(f"baulk restore: {e}", file=sys.stderr)
        return 2
    if args.accept_loss and not args.force:
        print("baulk restore: --accept-loss goes with --force", file=sys.stderr)
        return 2
    target = Path(args.to) if args.to else cfg.store_path
    source = Path(args.source) if args.source else None
    try:
        done = restore.restore(bc, target, source, args.force, args.accept_loss)
    except restore.Refused as e:
        _tell_loss(target, e.loss, sys.stderr)
        print(f"baulk restore: refused: {e}", file=sys.stderr)
        return 1
    except BackupError as e:
        print(f"baulk restore: {e}", file=sys.stderr)
        return 1
    if done.loss is not None:
        _tell_loss(target, done.loss, sys.stdout)
    for what in done.reapplied:
        print(f"baulk restore: made again in the restored store: {what}")
    if done.aside is not None:
        print(f"baulk restore: the store that was there is now {done.aside}")
    print(f"baulk restore: {target} from {done.source.describe()}: {done.summary.line()}")
    print(
        "baulk restore: start baulk run (and baulk backup) again; the tables send what "
        "the backup had not caught from their journals"
    )
    return 0
