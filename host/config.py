"""The daemon's configuration: one TOML file, checked whole before anything starts.

```toml
[server]
bind = "127.0.0.1"          # the boards and the API; localhost unless you mean otherwise
port = 8047
operator_token = "..."      # or the environment variable BAULK_TOKEN (which wins)
tls_cert = "/etc/baulk/tls/cert.pem"   # optional: serve HTTPS with this certificate chain ...
tls_key = "/etc/baulk/tls/key.pem"     # ... and its private key (both or neither)
session_hours = 12          # how long the operator console stays signed in

[store]
path = "var/baulk.sqlite"

[autodetect]
enabled = true
usb = ["2e8a:0005"]         # VID:PID pairs of table controllers (hex)

[[table]]
id = "t1"                   # the key in the store, the API and the board URLs
name = "Table 1"            # what the boards show
port = "/dev/ttyACM0"       # either a port path ...
# serial_number = "E6614103E7452D2F"   # ... or the USB serial number (any port)
baud = 115200
handset_lang = "fa"         # the referee's handset in Persian ("en": English);
                            # unset: the language the device keeps on its flash

[mqtt]                      # the MQTT bridge: url, venue, host_id, username, ... (docs/MQTT.md)

[billing]                   # table sessions and tariffs (host/club/tariffs.py, docs/BILLING.md)
[[tariff]]
[[item]]                    # the desk's price list: drinks, snacks, cue hire
[printer]                   # the desk's thermal receipt printer (host/club/printing.py)

[verify]                    # the owner's check of a day's takings (docs/LEDGER.md)
keys = "/etc/baulk/keys"    # a folder of TABLE.key device keys (readable by the daemon only)

[backup]                    # baulk backup: the store replicated (docs/VENUE.md, "Backups")
replica = "/mnt/backup/baulk"   # a folder on a second disk, a NAS share, another PC's share
method = "litestream"       # or "snapshots": SQLite's online backup API, on a schedule
sync_ms = 1000              # litestream: how often changes go to the replica (100-60000)
every_min = 10              # snapshots: how often one is taken (1-1440), and at the end
keep = 48                   # snapshots: how many are kept (1-10000)
litestream = "/usr/local/bin/litestream"   # the tool, if not the one installed with baulk
```

Numbers with a fraction (``6.5``) are read as exact decimals, never as
binary floats, so a price is what was written.

Every mistake is reported as :class:`ConfigError` with a sentence that names
the key, so ``baulk run`` can print it and stop before touching a port.
"""

from __future__ import annotations

import os
import re
import ssl
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from baulk.firmware.names import LANGS as HANDSET_LANGS
from baulk.host.club import tariffs as tariffs_mod

DEFAULT_BIND = "127.0.0.1"
DEFAULT_PORT = 8047
DEFAULT_BAUD = 115200
# The rates a serial port can be set to (termios's and the USB CDC ACM
# driver's); anything else fails only when the port is opened.
BAUD_RATES = (
    1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000,
    576000, 921600, 1000000, 1152000, 1500000, 2000000, 2500000, 3000000, 3500000, 4000000,
)  # fmt: skip
DEFAULT_STORE = "var/baulk.sqlite"
DEFAULT_SESSION_HOURS = 12
MAX_SESSION_HOURS = 24 * 30
TOKEN_ENV = "BAULK_TOKEN"
# Raspberry Pi Pico running MicroPython (USB CDC), the reference board.
DEFAULT_USB_IDS = ((0x2E8A, 0x0005),)
_TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class ConfigError(ValueError):
    """The configuration cannot be used; the message says what to fix."""


BACKUP_METHODS = ("litestream", "snapshots")


@dataclass(frozen=True)
class BackupConfig:
    """``[backup]``: where ``baulk backup`` keeps a copy of the store, and how."""

    replica: Path
    method: str = "litestream"
    sync_ms: int = 1000
    every_min: int = 10
    keep: int = 48
    litestream: Path | None = None


@dataclass(frozen=True)
class TableConfig:
    id: str
    name: str
    port: str | None = None
    serial_number: str | None = None
    baud: int = DEFAULT_BAUD
    handset_lang: str | None = None  # sent to the device at each connection


@dataclass(frozen=True)
class Config:
    tables: tuple[TableConfig, ...] = ()
    bind: str = DEFAULT_BIND
    port: int = DEFAULT_PORT
    operator_token: str | None = None
    store_path: Path = Path(DEFAULT_STORE)
    autodetect: bool = True
    usb_ids: tuple[tuple[int, int], ...] = DEFAULT_USB_IDS
    mqtt: dict[str, Any] = field(default_factory=dict)
    tls_cert: Path | None = None
    tls_key: Path | None = None
    session_hours: int = DEFAULT_SESSION_HOURS
    verify_keys: Path | None = None  # [verify] keys: a folder of TABLE.key files
    verify_sim_key: bool = False  # [verify] sim_key: the simulated tables' key (the demo)

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


def _shown(value: object) -> str:
    """A value as an error message shows it: short, whatever it is."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long for repr()
        return "a number of thousands of digits"
    return text if len(text) <= 40 else text[:37] + "..."


def _expect(section: dict[str, Any], key: str, kind: type, where: str) -> Any:
    value = section.get(key)
    if value is None:
        return None
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ConfigError(f"{where}.{key} must be an integer, not {_shown(value)}")
    if not isinstance(value, kind):
        raise ConfigError(f"{where}.{key} must be a {kind.__name__}, not {_shown(value)}")
    return value


def _unknown(section: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    extra = sorted(set(section) - set(allowed))
    if extra:
        raise ConfigError(f"{where}: unknown key {extra[0]!r} (allowed: {', '.join(allowed)})")


def _usb_id(text: object) -> tuple[int, int]:
    if not isinstance(text, str) or not re.fullmatch(r"[0-9A-Fa-f]{4}:[0-9A-Fa-f]{4}", text):
        raise ConfigError(f"autodetect.usb: {text!r} is not a VID:PID pair such as '2e8a:0005'")
    vid, pid = text.split(":")
    return int(vid, 16), int(pid, 16)


def _section(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{key}] must be a table")
    return value


def parse(
    data: dict[str, Any], base: Path | None = None, env: dict[str, str] | None = None
) -> Config:
    """Build a Config from parsed TOML; raise ConfigError on any mistake."""
    env = dict(os.environ) if env is None else env
    _unknown(
        data,
        (
            "server",
            "store",
            "autodetect",
            "table",
            "mqtt",
            "billing",
            "tariff",
            "item",
            "printer",
            "verify",
            "backup",
        ),
        "config",
    )
    server = _section(data, "server")
    _unknown(
        server, ("bind", "port", "operator_token", "tls_cert", "tls_key", "session_hours"), "server"
    )
    bind = _expect(server, "bind", str, "server") or DEFAULT_BIND
    port = _expect(server, "port", int, "server")
    port = DEFAULT_PORT if port is None else port
    if not 0 <= port <= 65535:
        raise ConfigError(f"server.port must be 0..65535, not {port}")
    token = env.get(TOKEN_ENV) or server.get("operator_token")
    if token is not None and not isinstance(token, str):
        # The value is a secret, even when mistyped: the message does not show it.
        raise ConfigError("server.operator_token must be a string (in quotes)")
    if token is not None and len(token) < 8:
        raise ConfigError("the operator token must have at least 8 characters")

    tls_cert, tls_key = _tls_files(server, base)
    hours = _expect(server, "session_hours", int, "server")
    hours = DEFAULT_SESSION_HOURS if hours is None else hours
    if not 1 <= hours <= MAX_SESSION_HOURS:
        raise ConfigError(f"server.session_hours must be 1..{MAX_SESSION_HOURS}, not {hours}")

    store = _section(data, "store")
    _unknown(store, ("path",), "store")
    store_path = Path(_expect(store, "path", str, "store") or DEFAULT_STORE)
    if base is not None and not store_path.is_absolute():
        store_path = base / store_path

    auto = _section(data, "autodetect")
    _unknown(auto, ("enabled", "usb"), "autodetect")
    enabled = auto.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError("autodetect.enabled must be true or false")
    usb = auto.get("usb")
    usb_ids: tuple[tuple[int, int], ...]
    if usb is None:
        usb_ids = DEFAULT_USB_IDS
    elif isinstance(usb, list):
        usb_ids = tuple(_usb_id(u) for u in usb)
    else:
        raise ConfigError("autodetect.usb must be a list of 'VID:PID' strings")

    raw_tables = data.get("table", [])
    if not isinstance(raw_tables, list):
        raise ConfigError("[[table]] entries must be an array of tables")
    tables: list[TableConfig] = []
    for i, t in enumerate(raw_tables):
        where = f"table[{i}]"
        if not isinstance(t, dict):
            raise ConfigError(f"{where} must be a table")
        _unknown(t, ("id", "name", "port", "serial_number", "baud", "handset_lang"), where)
        tid = t.get("id")
        if not valid_table_id(tid):
            raise ConfigError(f"{where}.id must be 1-32 letters, digits, '-' or '_', not {tid!r}")
        name = _expect(t, "name", str, where) or str(tid)
        dev = _expect(t, "port", str, where)
        serial = _expect(t, "serial_number", str, where)
        if (dev is None) == (serial is None):
            raise ConfigError(f"{where} ({tid}): give exactly one of port or serial_number")
        baud = _expect(t, "baud", int, where)
        if baud is None:
            baud = DEFAULT_BAUD
        elif baud not in BAUD_RATES:
            raise ConfigError(
                f"{where}.baud must be a serial port's rate such as {DEFAULT_BAUD} "
                f"(one of {', '.join(map(str, BAUD_RATES))}), not {_shown(baud)}"
            )
        lang = t.get("handset_lang")
        if lang is not None and lang not in HANDSET_LANGS:
            raise ConfigError(
                f"{where}.handset_lang must be one of {', '.join(HANDSET_LANGS)}, "
                f"not {_shown(lang)}"
            )
        tables.append(TableConfig(str(tid), name, dev, serial, baud, lang))
    ids = [t.id for t in tables]
    for tid in ids:
        if ids.count(tid) > 1:
            raise ConfigError(f"table id {tid!r} is used twice")
    serials = [t.serial_number for t in tables if t.serial_number]
    for s in serials:
        if serials.count(s) > 1:
            raise ConfigError(f"serial number {s!r} is given to two tables")
    mqtt = _section(data, "mqtt")
    verify = _section(data, "verify")
    _unknown(verify, ("keys", "sim_key"), "verify")
    keys = _expect(verify, "keys", str, "verify")
    keys_path = Path(keys) if keys is not None else None
    if keys_path is not None and base is not None and not keys_path.is_absolute():
        keys_path = base / keys_path
    sim_key = verify.get("sim_key", False)
    if not isinstance(sim_key, bool):
        raise ConfigError("verify.sim_key must be true or false")
    backup = _backup(_section(data, "backup"), store_path, base) if "backup" in data else None
    try:
        billing = tariffs_mod.parse(data, set(ids))
    except tariffs_mod.TariffError as e:
        raise ConfigError(str(e)) from None
    return Config(
        tables=tuple(tables),
        bind=bind,
        port=port,
        operator_token=token,
        store_path=store_path,
        autodetect=enabled,
        usb_ids=usb_ids,
        mqtt=dict(mqtt),
        tls_cert=tls_cert,
        tls_key=tls_key,
        session_hours=hours,
        billing=billing,
        verify_keys=keys_path,
        verify_sim_key=sim_key,
        backup=backup,
    )


def _bounded(section: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    value = _expect(section, key, int, "backup")
    if value is None:
        return default
    if not lo <= value <= hi:
        raise ConfigError(f"backup.{key} must be {lo}..{hi}, not {_shown(value)}")
    return int(value)


def _backup(section: dict[str, Any], store_path: Path, base: Path | None) -> BackupConfig | None:
    """``[backup]``.  Only what can be checked without touching the disk:
    the replica may be a share that is mounted later."""
    _unknown(section, ("replica", "method", "sync_ms", "every_min", "keep", "litestream"), "backup")
    raw = _expect(section, "replica", str, "backup")
    if not raw:
        raise ConfigError("backup.replica must name the folder the store is copied to")
    replica = Path(raw)
    if base is not None and not replica.is_absolute():
        replica = base / replica
    if replica in (store_path, store_path.parent):
        raise ConfigError(
            f"backup.replica {replica} is the store's own place: name a folder on another disk"
        )
    method = _expect(section, "method", str, "backup") or "litestream"
    if method not in BACKUP_METHODS:
        raise ConfigError(
            f"backup.method must be one of {', '.join(BACKUP_METHODS)}, not {_shown(method)}"
        )
    tool = _expect(section, "litestream", str, "backup")
    litestream = None if tool is None else Path(tool)
    if litestream is not None and base is not None and not litestream.is_absolute():
        litestream = base / litestream
    return BackupConfig(
        replica=replica,
        method=method,
        sync_ms=_bounded(section, "sync_ms", 1000, 100, 60_000),
        every_min=_bounded(section, "every_min", 10, 1, 24 * 60),
        keep=_bounded(section, "keep", 48, 1, 10_000),
        litestream=litestream,
    )


def _tls_files(server: dict[str, Any], base: Path | None) -> tuple[Path | None, Path | None]:
    """The certificate chain and key files for HTTPS: both or neither, each
    an existing file (relative paths from the config file's folder)."""
    given = {k: _expect(server, k, str, "server") for k in ("tls_cert", "tls_key")}
    if given["tls_cert"] is None and given["tls_key"] is None:
        return None, None
    if not all(given.values()):
        raise ConfigError("server.tls_cert and server.tls_key go together: give both")
    paths: list[Path] = []
    for key, value in given.items():
        path = Path(str(value))
        if base is not None and not path.is_absolute():
            path = base / path
        try:
            found = path.is_file()
        except (OSError, ValueError):  # a name the file system cannot hold
            found = False
        if not found:
            raise ConfigError(f"server.{key}: there is no file {str(path)[:200]!r}")
        paths.append(path)
    return paths[0], paths[1]


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
    config = parse(data, base=p.resolve().parent, env=env)
    tls_context(config)  # a certificate that cannot be used stops here, with its reason
    return config
