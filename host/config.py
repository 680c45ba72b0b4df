"""The daemon's configuration: one TOML file, checked whole before anything starts.

Every key is declared once, below, in the section models (pydantic v2, as
the web side's request models are): its type, its range, its default and
its help.  Parsing, the checks, the defaults the rest of the code starts
from, ``baulk demo --config`` (which loads a file through :func:`load`) and
the reference in docs/CONFIG.md all come from those declarations;
``.venv/bin/python -m baulk.host.config > docs/CONFIG.md`` writes the
reference again, and tests/host/test_config_reference.py fails when it is
not current.  ``[mqtt]`` is declared here too and made into the bridge's
settings by host/mqtt/connection.py; the club's sections are declared beside
the code that reads them, in the same way, and checked here with the rest:
``[billing]``, ``[[tariff]]`` and ``[[item]]`` in host/club/tariffs.py,
``[printer]`` in host/club/printing.py.

Numbers with a fraction (``6.5``) are read as exact decimals, never as
binary floats, so a price is what was written.

Every mistake is reported as :class:`ConfigError` with one sentence that
names the key (``server.port must be 0..65535, not 70000``), so ``baulk
run`` can print it and stop before touching a port; nothing is changed.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import ssl
import sys
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, ValidationError, model_validator

from baulk.firmware import manifest as board_manifest
from baulk.firmware.names import LANGS as HANDSET_LANGS
from baulk.host.club import printing
from baulk.host.club import tariffs as tariffs_mod
from baulk.host.settings_schema import (
    Section,
    default_of,
    key,
    keys_of,
    one_of,
    rule_of,
    sentence,
)

TOKEN_ENV = "BAULK_TOKEN"
# The rates a serial port can be set to (termios's and the USB CDC ACM
# driver's); anything else fails only when the port is opened.
BAUD_RATES = (
    1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000,
    576000, 921600, 1000000, 1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000,
)  # fmt: skip
TABLE_ID = r"^[A-Za-z0-9_-]{1,32}$"
_TABLE_ID = re.compile(TABLE_ID)
_USB_ID = r"^[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}$"
BACKUP_METHODS = ("litestream", "snapshots")


class ConfigError(ValueError):
    """The configuration cannot be used; the message says what to fix."""


# ---------------------------------------------------------------------- the declarations
class Server(Section):
    """The boards, the API and the sign-ins."""

    TITLE = "[server]"
    bind: str = key(
        "127.0.0.1",
        "the address the boards and the API are served on: localhost unless you mean "
        "otherwise (`0.0.0.0`: every network of the PC)",
        min_length=1,
    )
    port: int = key(8047, "the web port", ge=0, le=65535)
    operator_token: str | None = key(
        None,
        f"the bootstrap owner's token (the environment variable {TOKEN_ENV} wins); "
        "unset: nobody can act until `baulk users add` made an owner",
        rule=f"a string of at least 8 characters (in quotes; {TOKEN_ENV} too)",
        secret=True,
        min_length=8,
    )
    tls_cert: str | None = key(
        None,
        "serve HTTPS with this certificate chain (PEM; with tls_key: both or neither)",
        min_length=1,
    )
    tls_key: str | None = key(None, "the certificate's private key (PEM)", min_length=1)
    session_hours: int = key(
        12, "how long a staff sign-in stays signed in, in hours", ge=1, le=24 * 30
    )


class StoreSection(Section):
    """The SQLite store: every event, session and staff row."""

    TITLE = "[store]"
    path: str = key(
        "var/baulk.sqlite",
        "the store's file (relative: from the config file's folder)",
        min_length=1,
    )


class Autodetect(Section):
    """Tables not listed under [[table]], found by their USB ids."""

    TITLE = "[autodetect]"
    enabled: bool = key(True, "find table controllers by their USB VID:PID")
    usb: list[Annotated[str, Field(pattern=_USB_ID)]] = key(
        ["2e8a:0005"],
        "the VID:PID pairs (hex) of table controllers; the default is the Raspberry Pi "
        "Pico running MicroPython (USB CDC), the reference board",
        rule="a list of 'VID:PID' strings such as '2e8a:0005'",
    )


class Table(Section):
    """One table: its id, its name and where its controller is plugged in."""

    TITLE = "[[table]]"
    id: str = key(
        ...,
        "the key in the store, the API and the board URLs",
        rule="1-32 letters, digits, '-' or '_'",
        pattern=TABLE_ID,
    )
    name: str | None = key(None, "what the boards show (unset: the id)", min_length=1)
    port: str | None = key(
        None, "the serial port's path (`/dev/ttyACM0`): give port or serial_number"
    )
    serial_number: str | None = key(
        None, "the controller's USB serial number: found on whichever port it is plugged into"
    )
    baud: Annotated[int, one_of(BAUD_RATES)] = key(
        115200,
        "the serial port's rate",
        rule=f"a serial port's rate such as 115200 (one of {', '.join(map(str, BAUD_RATES))})",
    )
    board: Annotated[str, one_of(tuple(board_manifest.BOARDS))] = key(
        "pico",
        "the table controller's board kind: the release an update sends it is built for it",
        rule=f"one of {', '.join(board_manifest.BOARDS)}",
    )
    handset_lang: Annotated[str | None, one_of(HANDSET_LANGS)] = key(
        None,
        "the referee's handset in this language, sent at each connection; unset: the "
        "language the device keeps on its flash",
        rule=f"one of {', '.join(HANDSET_LANGS)}",
    )

    @model_validator(mode="after")
    def _one_place(self) -> Table:
        if (self.port is None) == (self.serial_number is None):
            raise ValueError(f"({self.id}): give exactly one of port or serial_number")
        return self


class Firmware(Section):
    """Releases the owner sends to the tables over their links (docs/UPDATES.md)."""

    TITLE = "[firmware]"
    releases: str | None = key(
        None,
        "the folder of release bundles (`baulk firmware bundle` writes build/releases/): "
        "an update sends each table the newest for its board",
        min_length=1,
    )


class Verify(Section):
    """The owner's check of a day's takings against the tables' signatures (docs/LEDGER.md)."""

    TITLE = "[verify]"
    keys: str | None = key(
        None, "a folder of TABLE.key device keys (readable by the daemon only)", min_length=1
    )
    sim_key: bool = key(False, "the simulated tables' known key (the demo's)")


class Backup(Section):
    """`baulk backup`: the store replicated (docs/VENUE.md, "Backups")."""

    TITLE = "[backup]"
    replica: str = key(
        ...,
        "a folder on a second disk, a NAS share or another PC's share",
        missing="must name the folder the store is copied to",
        min_length=1,
    )
    method: Annotated[str, one_of(BACKUP_METHODS)] = key(
        "litestream",
        "`litestream`: every commit within sync_ms; `snapshots`: SQLite's online backup API, "
        "on a schedule",
        rule=f"one of {', '.join(BACKUP_METHODS)}",
    )
    sync_ms: int = key(
        1000, "litestream: how often changes go to the replica, in ms", ge=100, le=60_000
    )
    every_min: int = key(
        10, "snapshots: how often one is taken, in minutes (and one at the end)", ge=1, le=24 * 60
    )
    keep: int = key(48, "snapshots: how many are kept", ge=1, le=10_000)
    litestream: str | None = key(
        None, "the Litestream tool, if not the one installed with baulk", min_length=1
    )


class Mqtt(Section):
    """The MQTT bridge (docs/MQTT.md), off without a url here or `--mqtt`; what
    the broker's URL gives (`mqtts://user:password@host?ca=FILE`, its options)
    wins over these, and the command line over both
    (host/mqtt/connection.py ``settings_from_config``)."""

    TITLE = "[mqtt]"
    url: str | None = key(
        None, "the broker: `mqtt[s]://[user[:password]@]host[:port][?option=value&...]`"
    )
    venue: str = key("venue", "the venue's id, one for every host and board (`--venue` wins)")
    host_id: str | None = key(
        None,
        "this host's id (unset: the broker user name, else the machine's name; "
        "`--host-id` wins); with the venue's ACL it must be the user name",
    )
    username: str | None = key(None, "the broker user")
    password: str | None = key(
        None,
        "its password (BAULK_MQTT_PASSWORD in the environment wins)",
        rule="a string (in quotes)",
        secret=True,
    )
    ca_file: str | None = key(None, "the CA certificate (PEM) the broker's must chain to (mqtts)")
    cert_file: str | None = key(None, "a client certificate (PEM; mqtts), with key_file")
    key_file: str | None = key(None, "the client certificate's key (PEM)")
    tls_insecure: bool = key(False, "do not check the broker's host name (test brokers only)")
    client_id: str | None = key(
        None,
        "the MQTT client id (unset: `baulk-host-<venue>-<host>`, "
        "`baulk-board-<venue>-<machine>-<port>`)",
    )
    keepalive: int = key(
        15, "seconds between pings: a dead broker shows in about 1.5 times this", ge=5, le=3600
    )


class ConfigFile(tariffs_mod.ClubFile):
    """The whole file: its sections, each once (the club's [billing],
    [[tariff]] and [[item]] with their rules, host/club/tariffs.py
    ``ClubFile``, first)."""

    server: Server = Server()
    store: StoreSection = StoreSection()
    autodetect: Autodetect = Autodetect()
    table: list[Table] = Field(default_factory=list)
    verify: Verify = Verify()
    firmware: Firmware = Firmware()
    backup: Backup | None = None
    mqtt: Mqtt = Mqtt()
    printer: printing.PrinterSection | None = None

    @model_validator(mode="after")
    def _each_once(self) -> ConfigFile:
        ids = [t.id for t in self.table]
        for tid in ids:
            if ids.count(tid) > 1:
                raise ValueError(f"table id {tid!r} is used twice")
        serials = [t.serial_number for t in self.table if t.serial_number]
        for s in serials:
            if serials.count(s) > 1:
                raise ValueError(f"serial number {s!r} is given to two tables")
        if (self.server.tls_cert is None) != (self.server.tls_key is None):
            raise ValueError("server.tls_cert and server.tls_key go together: give both")
        why = self.unknown_table(set(ids))
        if why is not None:
            raise ValueError(why)
        return self


SECTIONS: tuple[type[Section], ...] = (
    Server,
    StoreSection,
    Autodetect,
    Table,
    Verify,
    Firmware,
    Backup,
    Mqtt,
    *tariffs_mod.SECTIONS,
    printing.PrinterSection,
)


def _usb_pair(text: str) -> tuple[int, int]:
    vid, pid = text.split(":")
    return int(vid, 16), int(pid, 16)


DEFAULT_BIND: str = default_of(Server, "bind")
DEFAULT_PORT: int = default_of(Server, "port")
DEFAULT_SESSION_HOURS: int = default_of(Server, "session_hours")
DEFAULT_STORE: str = default_of(StoreSection, "path")
DEFAULT_BAUD: int = default_of(Table, "baud")
DEFAULT_USB_IDS = tuple(_usb_pair(u) for u in default_of(Autodetect, "usb"))


# ---------------------------------------------------------------------- what the code reads
@dataclass(frozen=True)
class BackupConfig:
    """``[backup]``: where ``baulk backup`` keeps a copy of the store, and how."""

    replica: Path
    method: str = default_of(Backup, "method")
    sync_ms: int = default_of(Backup, "sync_ms")
    every_min: int = default_of(Backup, "every_min")
    keep: int = default_of(Backup, "keep")
    litestream: Path | None = None


@dataclass(frozen=True)
class TableConfig:
    id: str
    name: str
    port: str | None = None
    serial_number: str | None = None
    baud: int = DEFAULT_BAUD
    handset_lang: str | None = None  # sent to the device at each connection
    board: str = "pico"  # the release an update sends is this board kind's


@dataclass(frozen=True)
class Config:
    tables: tuple[TableConfig, ...] = ()
    bind: str = DEFAULT_BIND
    port: int = DEFAULT_PORT
    operator_token: str | None = None
    store_path: Path = Path(DEFAULT_STORE)
    autodetect: bool = default_of(Autodetect, "enabled")
    usb_ids: tuple[tuple[int, int], ...] = DEFAULT_USB_IDS
    mqtt: dict[str, Any] = field(default_factory=dict)  # [mqtt] as written (host/mqtt/)
    tls_cert: Path | None = None
    tls_key: Path | None = None
    session_hours: int = DEFAULT_SESSION_HOURS
    verify_keys: Path | None = None  # [verify] keys: a folder of TABLE.key files
    verify_sim_key: bool = default_of(Verify, "sim_key")  # the simulated tables' key (the demo)
    firmware_releases: Path | None = None  # [firmware] releases: the bundles an update sends

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None

    billing: tariffs_mod.Billing = field(default_factory=tariffs_mod.Billing)
    backup: BackupConfig | None = None

    def table(self, table_id: str) -> TableConfig | None:
        for t in self.tables:
            if t.id == table_id:
                return t
        return None


def valid_table_id(text: object) -> bool:
    return isinstance(text, str) and bool(_TABLE_ID.match(text))


# ---------------------------------------------------------------------- reading
def _path(text: str | None, base: Path | None) -> Path | None:
    """A path as written, from the config file's folder when relative."""
    if text is None:
        return None
    path = Path(text)
    return base / path if base is not None and not path.is_absolute() else path


def parse(
    data: dict[str, Any], base: Path | None = None, env: dict[str, str] | None = None
) -> Config:
    """Build a Config from parsed TOML; raise ConfigError on any mistake."""
    env = dict(os.environ) if env is None else env
    raw = dict(data)
    token = env.get(TOKEN_ENV)
    if token and isinstance(raw.get("server", {}), dict):
        raw["server"] = {**raw.get("server", {}), "operator_token": token}
    try:
        found = ConfigFile.model_validate(raw)
    except ValidationError as e:
        raise ConfigError(sentence(e, ConfigFile)) from None
    server = found.server
    store_path = _path(found.store.path, base) or Path(DEFAULT_STORE)
    tables = tuple(
        TableConfig(t.id, t.name or t.id, t.port, t.serial_number, t.baud, t.handset_lang, t.board)
        for t in found.table
    )
    printer = printing.printer_of(found.printer) if found.printer is not None else None
    billing = tariffs_mod.billing_of(found, printer)
    return Config(
        tables=tables,
        bind=server.bind,
        port=server.port,
        operator_token=server.operator_token,
        store_path=store_path,
        autodetect=found.autodetect.enabled,
        usb_ids=tuple(_usb_pair(u) for u in found.autodetect.usb),
        mqtt=found.mqtt.model_dump(exclude_unset=True),  # the bridge takes what was written
        tls_cert=_tls_file(server.tls_cert, "tls_cert", base),
        tls_key=_tls_file(server.tls_key, "tls_key", base),
        session_hours=server.session_hours,
        billing=billing,
        verify_keys=_path(found.verify.keys, base),
        verify_sim_key=found.verify.sim_key,
        firmware_releases=_path(found.firmware.releases, base),
        backup=_backup(found.backup, store_path, base),
    )


def _backup(section: Backup | None, store_path: Path, base: Path | None) -> BackupConfig | None:
    """``[backup]``.  Only what can be checked without touching the disk:
    the replica may be a share that is mounted later."""
    if section is None:
        return None
    replica = _path(section.replica, base) or Path(section.replica)
    if replica in (store_path, store_path.parent):
        raise ConfigError(
            f"backup.replica {replica} is the store's own place: name a folder on another disk"
        )
    return BackupConfig(
        replica=replica,
        method=section.method,
        sync_ms=section.sync_ms,
        every_min=section.every_min,
        keep=section.keep,
        litestream=_path(section.litestream, base),
    )


def _tls_file(text: str | None, key: str, base: Path | None) -> Path | None:
    """A certificate chain or key file for HTTPS, which must be there
    (relative paths from the config file's folder)."""
    path = _path(text, base)
    if path is None:
        return None
    try:
        found = path.is_file()
    except (OSError, ValueError):  # a name the file system cannot hold
        found = False
    if not found:
        raise ConfigError(f"server.{key}: there is no file {str(path)[:200]!r}")
    return path


def tls_context(config: Config) -> ssl.SSLContext | None:
    """The server's TLS context (TLS 1.2 or newer), or None without HTTPS.
    Raises ConfigError when the files cannot be used (the key is not the
    certificate's, a file is not PEM, ...)."""
    if config.tls_cert is None or config.tls_key is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(config.tls_cert, config.tls_key)
    except (ssl.SSLError, OSError) as e:
        # The message names the files, never what is in them.
        raise ConfigError(
            f"server.tls_cert / server.tls_key ({config.tls_cert}, {config.tls_key}) "
            f"cannot be used: {getattr(e, 'reason', None) or e.strerror or e}"
        ) from None
    return context


def _exact(text: str) -> Decimal:
    """A TOML number with a fraction, exactly as written (prices, host/club/money.py);
    one longer than any amount is refused before it is read."""
    if len(text) > 40:
        raise ValueError(text[:20])
    return Decimal(text)


def load(path: str | Path, env: dict[str, str] | None = None) -> Config:
    """Read and check a TOML config file (relative store paths are taken from
    the file's folder)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read config {p}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"config {p} is not UTF-8 text") from None
    try:
        data = tomllib.loads(text, parse_float=_exact)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config {p} is not valid TOML: {e}") from None
    except ValueError:  # int() of a number of over 4300 digits, or a fraction of over 40
        raise ConfigError(f"config {p} is not valid TOML: a number is far too long") from None
    except RecursionError:  # tomllib reads nested arrays and tables by recursion
        raise ConfigError(f"config {p} is not valid TOML: it is nested too deeply") from None
    config = parse(data, base=p.resolve().parent, env=env)
    tls_context(config)  # a certificate that cannot be used stops here, with its reason
    return config


# ---------------------------------------------------------------------- the reference
def _toml(value: Any) -> str:
    if value is None:
        return "unset"
    if value is ...:
        return "required"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str | list):
        return "`" + json.dumps(value) + "`"
    return f"`{value}`"


def reference() -> str:
    """docs/CONFIG.md: every key of every section, from its declaration."""
    out = [
        "# `baulk.toml`: every key",
        "",
        "Generated from the declarations in `host/config.py` (the club's sections:",
        "`host/club/tariffs.py`, `host/club/printing.py`); do not edit by hand:",
        "`.venv/bin/python -m baulk.host.config > docs/CONFIG.md` writes it again",
        "(`tests/host/test_config_reference.py` fails when it is not current).",
        "A relative path is taken from the config file's folder. Every mistake stops",
        "`baulk run` with one sentence naming the key, before anything starts.",
    ]
    for section in SECTIONS:
        out += ["", f"## `{section.TITLE}`", "", inspect.cleandoc(section.__doc__ or ""), ""]
        out += ["| key | must be | default | what |", "| --- | --- | --- | --- |"]
        for name, info in keys_of(section).items():
            default = ... if info.is_required() else info.get_default(call_default_factory=True)
            out.append(f"| `{name}` | {rule_of(info)} | {_toml(default)} | {info.description} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(reference())
