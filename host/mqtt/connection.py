"""One connection to an MQTT broker, as both sides of the bridge use it.

* :func:`parse_url` and :func:`settings_from_config` read where the broker is
  and how to log in: ``mqtt://user:password@host:port`` (plain TCP, port 1883
  by default) or ``mqtts://...`` (TLS, port 8883 by default), the ``[mqtt]``
  section of the daemon's config, and the environment variable
  ``BAULK_MQTT_PASSWORD`` (which keeps the password out of shell histories and
  process lists).
* :class:`BrokerSession` wraps a paho-mqtt client: it connects, reconnects
  with backoff on its own thread, and turns a refused first connection (wrong
  password, TLS certificate not trusted) into :class:`BrokerRefused` with a
  sentence the operator can act on.  A broker that is simply not there yet is
  not an error: the session keeps trying, and the daemon keeps scoring.
"""

from __future__ import annotations

import logging
import os
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import parse_qs, unquote, urlsplit

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode, MQTTProtocolVersion
from paho.mqtt.reasoncodes import ReasonCode

from baulk.host.config import ConfigError, Mqtt
from baulk.host.mqtt.wire import check_id, valid_id

log = logging.getLogger("baulk.mqtt")

PASSWORD_ENV: Final = "BAULK_MQTT_PASSWORD"
DEFAULT_VENUE: Final[str] = Mqtt.model_fields["venue"].default  # as host/config.py declares it
PLAIN_PORT: Final = 1883
TLS_PORT: Final = 8883
# s; paho pings at this interval, so a dead broker shows in ~1.5x (host/config.py)
DEFAULT_KEEPALIVE: Final[int] = Mqtt.model_fields["keepalive"].default
FIRST_CONNECT_TIMEOUT: Final = 5.0
MQTT_SECTION_KEYS: Final = tuple(Mqtt.model_fields)  # the [mqtt] keys host/config.py declares
_URL_QUERY_KEYS: Final = ("ca", "cert", "key", "insecure", "client_id", "keepalive")

# CONNACK reason codes (MQTT 5 numbering; paho maps 3.1.1 return codes onto
# them) that no retry can fix: the operator has to change something.
_FATAL_REASONS: Final = {
    132: "the broker does not speak MQTT 3.1.1",
    133: "the broker refused the client id",
    134: "the broker refused the user name or password",
    # Mosquitto answers a wrong password with 135 under MQTT 3.1.1.
    135: "the broker refused the user name or password (not authorised)",
    138: "the broker has banned this client",
    140: "the broker refused the authentication method",
}


class BrokerRefused(Exception):
    """The broker will not take this client as configured (the text says why)."""


@dataclass(frozen=True)
class BrokerOptions:
    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    tls_insecure: bool = False  # skip the host name check (self-signed test brokers)
    client_id: str | None = None
    keepalive: int = DEFAULT_KEEPALIVE

    def describe(self) -> str:
        """The URL without the password, for logs and errors."""
        who = f"{self.username}@" if self.username else ""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'mqtts' if self.tls else 'mqtt'}://{who}{host}:{self.port}"


def _flag(text: str, what: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off", ""):
        return False
    raise ConfigError(f"{what} must be true or false, not {text!r}")


def _keepalive(value: object, what: str) -> int:
    try:
        n = int(str(value))
    except ValueError:
        raise ConfigError(f"{what} must be a number of seconds, not {value!r}") from None
    if not 5 <= n <= 3600:
        raise ConfigError(f"{what} must be 5..3600 seconds, not {n}")
    return n


def parse_url(url: str, env: Mapping[str, str] | None = None) -> BrokerOptions:
    """``mqtt[s]://[user[:password]@]host[:port][?ca=&cert=&key=&insecure=&client_id=&keepalive=]``.

    User name and password are percent-decoded; ``BAULK_MQTT_PASSWORD``, when
    set, gives the password (and wins over the URL's)."""
    env = os.environ if env is None else env
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise ConfigError(f"MQTT URL {url!r}: {e}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("mqtt", "mqtts"):
        raise ConfigError(
            f"MQTT URL {url!r} must start with mqtt:// (plain) or mqtts:// (TLS), "
            "e.g. mqtt://user:password@broker.local:1883"
        )
    if not parts.hostname:
        raise ConfigError(f"MQTT URL {url!r} names no broker host")
    if parts.path not in ("", "/"):
        raise ConfigError(f"MQTT URL {url!r}: a path is not used; give only host and port")
    tls = scheme == "mqtts"
    query = parse_qs(parts.query, keep_blank_values=True)
    for key in query:
        if key not in _URL_QUERY_KEYS:
            raise ConfigError(
                f"MQTT URL {url!r}: unknown option {key!r} (known: {', '.join(_URL_QUERY_KEYS)})"
            )

    def q(key: str) -> str | None:
        values = query.get(key)
        return values[-1] if values else None

    insecure = q("insecure")
    keepalive = q("keepalive")
    password = env.get(PASSWORD_ENV) or (unquote(parts.password) if parts.password else None)
    return BrokerOptions(
        host=parts.hostname,
        port=port if port is not None else (TLS_PORT if tls else PLAIN_PORT),
        tls=tls,
        username=unquote(parts.username) if parts.username else None,
        password=password,
        ca_file=q("ca"),
        cert_file=q("cert"),
        key_file=q("key"),
        tls_insecure=_flag(insecure, "MQTT URL option insecure") if insecure is not None else False,
        client_id=q("client_id"),
        keepalive=_keepalive(keepalive, "MQTT URL option keepalive")
        if keepalive is not None
        else DEFAULT_KEEPALIVE,
    )


@dataclass(frozen=True)
class BridgeSettings:
    """Everything ``baulk run`` needs to publish: the broker, and who we are."""

    options: BrokerOptions
    venue: str
    host_id: str


def default_host_id() -> str:
    """This machine's name, shaped into a topic-safe id."""
    raw = socket.gethostname() or "host"
    shaped = "".join(c if (c.isascii() and (c.isalnum() or c in "-_")) else "-" for c in raw)
    shaped = shaped.strip("-")[:32] or "host"
    return shaped if valid_id(shaped) else "host"


def settings_from_config(
    section: Mapping[str, Any],
    url: str | None = None,
    venue: str | None = None,
    host_id: str | None = None,
    env: Mapping[str, str] | None = None,
) -> BridgeSettings | None:
    """Combine the config's ``[mqtt]`` section with the command line.

    Returns None when no broker URL is given anywhere (the bridge is opt-in).
    Command-line values win over the config; ``BAULK_MQTT_PASSWORD`` wins
    over both.  Raises ConfigError naming the key on any mistake."""
    env = os.environ if env is None else env
    extra = sorted(set(section) - set(MQTT_SECTION_KEYS))
    if extra:
        raise ConfigError(
            f"mqtt: unknown key {extra[0]!r} (allowed: {', '.join(MQTT_SECTION_KEYS)})"
        )

    def text(key: str) -> str | None:
        v = section.get(key)
        if v is not None and not isinstance(v, str):
            raise ConfigError(f"mqtt.{key} must be a string, not {v!r}")
        return v

    url = url or text("url")
    if not url:
        return None
    opts = parse_url(url, env)
    username = opts.username or text("username")
    password = env.get(PASSWORD_ENV) or opts.password or text("password")
    insecure = section.get("tls_insecure", False)
    if not isinstance(insecure, bool):
        raise ConfigError("mqtt.tls_insecure must be true or false")
    keepalive = section.get("keepalive")
    opts = BrokerOptions(
        host=opts.host,
        port=opts.port,
        tls=opts.tls,
        username=username,
        password=password,
        ca_file=opts.ca_file or text("ca_file"),
        cert_file=opts.cert_file or text("cert_file"),
        key_file=opts.key_file or text("key_file"),
        tls_insecure=opts.tls_insecure or insecure,
        client_id=opts.client_id or text("client_id"),
        keepalive=_keepalive(keepalive, "mqtt.keepalive")
        if keepalive is not None and opts.keepalive == DEFAULT_KEEPALIVE
        else opts.keepalive,
    )
    if password and not username:
        raise ConfigError("an MQTT password is given but no user name (mqtt://user:password@...)")
    if (opts.ca_file or opts.cert_file or opts.tls_insecure) and not opts.tls:
        raise ConfigError("TLS options are given for a plain mqtt:// URL; use mqtts://")
    if bool(opts.cert_file) != bool(opts.key_file):
        raise ConfigError("a client certificate needs both cert and key")
    for what, path in (("CA", opts.ca_file), ("cert", opts.cert_file), ("key", opts.key_file)):
        if path and not os.path.isfile(path):
            raise ConfigError(f"MQTT TLS {what} file {path} does not exist")
    try:
        v = check_id("venue", venue or text("venue") or DEFAULT_VENUE)
        # The venue's ACL gives each broker user the topics of the host of
        # its name (docs/MQTT.md): the user name is the natural host id.
        user_id = username if valid_id(username) else None
        h = check_id("host", host_id or text("host_id") or user_id or default_host_id())
    except ValueError as e:
        raise ConfigError(f"mqtt: {e}") from None
    return BridgeSettings(opts, v, h)


# --------------------------------------------------------------------------- session


def refusal_sentence(options: BrokerOptions, reason: ReasonCode) -> str:
    what = _FATAL_REASONS.get(reason.value, f"the broker refused the connection ({reason})")
    return f"{options.describe()}: {what}"


class BrokerSession:
    """A paho client on its own network thread, with reconnect and backoff.

    Callbacks run on paho's thread: ``on_up(first)`` after every successful
    CONNACK (subscriptions go there: they are made again on every connect),
    ``on_down()`` when the connection is lost, ``on_message(msg)`` and
    ``on_acked(mid)`` as paho reports them.
    """

    def __init__(
        self,
        options: BrokerOptions,
        client_id: str,
        *,
        clean_session: bool,
        name: str,
        will: tuple[str, bytes] | None = None,
        subscriptions: tuple[str, ...] = (),
        on_up: Callable[[bool], None] | None = None,
        on_down: Callable[[], None] | None = None,
        on_message: Callable[[paho.MQTTMessage], None] | None = None,
        on_acked: Callable[[int], None] | None = None,
    ) -> None:
        self.options = options
        self.name = name
        self.client_id = options.client_id or client_id
        self.subscriptions = subscriptions
        self._subscribed = threading.Event()
        self._sub_mid: int | None = None
        self._on_up = on_up
        self._on_down = on_down
        self._on_message = on_message
        self._on_acked = on_acked
        self._lock = threading.Lock()
        self._first_reply = threading.Event()
        self._first_reason: ReasonCode | None = None
        self._connected = False
        self._ever_connected = False
        self._stopping = False
        self._started = False
        self._last_refusal_log = 0.0
        self.connects = 0
        self.losses = 0
        c = paho.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            clean_session=clean_session,
            protocol=MQTTProtocolVersion.MQTTv311,
        )
        if log.isEnabledFor(logging.DEBUG):
            # paho's own lines are for debugging only: it logs an error on
            # every clean stop, for instance.
            c.enable_logger(logging.getLogger(f"baulk.mqtt.paho.{name}"))
        c.reconnect_delay_set(min_delay=1, max_delay=15)
        c.max_inflight_messages_set(100)
        if options.username:
            c.username_pw_set(options.username, options.password)
        if options.tls:
            c.tls_set(
                ca_certs=options.ca_file,
                certfile=options.cert_file,
                keyfile=options.key_file,
                cert_reqs=ssl.CERT_REQUIRED,
            )
            if options.tls_insecure:
                c.tls_insecure_set(True)
        if will is not None:
            c.will_set(will[0], will[1], qos=1, retain=True)
        c.on_connect = self._connect_cb
        c.on_disconnect = self._disconnect_cb
        c.on_connect_fail = self._connect_fail_cb
        c.on_message = self._message_cb
        c.on_publish = self._publish_cb
        c.on_subscribe = self._subscribe_cb
        self.client = c

    # ------------------------------------------------------------------ state
    @property
    def connected(self) -> bool:
        return self._connected

    def start(self, timeout: float = FIRST_CONNECT_TIMEOUT) -> bool:
        """Connect and start the network thread.

        Raises BrokerRefused when the broker answers but refuses us (or TLS
        fails to verify it): retrying cannot help.  Returns True when
        connected, False when the broker could not be reached in ``timeout``
        (the session keeps trying in the background)."""
        o = self.options
        try:
            self.client.connect(o.host, o.port, keepalive=o.keepalive)
        except ssl.SSLCertVerificationError as e:
            raise BrokerRefused(
                f"{o.describe()}: the broker's TLS certificate is not trusted "
                f"({e.verify_message}); give its CA with ?ca=FILE or mqtt.ca_file"
            ) from None
        except ssl.SSLError as e:
            raise BrokerRefused(f"{o.describe()}: TLS failed ({e.reason or e})") from None
        except OSError as e:
            log.warning(
                "%s: cannot reach the MQTT broker at %s (%s); retrying in the background",
                self.name,
                o.describe(),
                e.strerror or e,
            )
            self.client.connect_async(o.host, o.port, keepalive=o.keepalive)
            self.client.loop_start()
            self._started = True
            return False
        self.client.loop_start()
        self._started = True
        if not self._first_reply.wait(timeout):
            log.warning("%s: no answer from %s yet; still trying", self.name, o.describe())
            return False
        reason = self._first_reason
        if reason is not None and reason.is_failure:
            self.stop(publish_offline=None)
            raise BrokerRefused(refusal_sentence(o, reason))
        # Nothing published from here on may miss us: wait for the SUBACK.
        if self.subscriptions and not self._subscribed.wait(timeout):
            log.warning("%s: the broker has not confirmed the subscription yet", self.name)
        return self._connected

    def stop(self, publish_offline: tuple[str, bytes] | None = None, timeout: float = 2.0) -> None:
        """Disconnect cleanly (no last will), after publishing ``publish_offline``
        (retained, QoS 1) when connected, and stop the network thread."""
        self._stopping = True
        c = self.client
        if not self._started:
            return
        if publish_offline is not None and self._connected:
            info = c.publish(publish_offline[0], publish_offline[1], qos=1, retain=True)
            deadline = time.monotonic() + timeout
            while not info.is_published() and self._connected and time.monotonic() < deadline:
                time.sleep(0.01)
        c.disconnect()
        c.loop_stop()

    # ------------------------------------------------------------------ paho callbacks
    def _connect_cb(
        self,
        client: paho.Client,
        userdata: Any,
        flags: paho.ConnectFlags,
        reason: ReasonCode,
        properties: Any,
    ) -> None:
        if not self._first_reply.is_set():
            self._first_reason = reason
            self._first_reply.set()
            if reason.is_failure:
                return  # start() raises it
        if reason.is_failure:
            now = time.monotonic()
            if now - self._last_refusal_log > 30:
                self._last_refusal_log = now
                log.error("%s: %s; retrying", self.name, refusal_sentence(self.options, reason))
            return
        first = not self._ever_connected
        self._ever_connected = True
        self._connected = True
        self.connects += 1
        log.info("%s: connected to %s", self.name, self.options.describe())
        if self.subscriptions:
            # Made again on every connect: a broker without persistence forgot them.
            _, self._sub_mid = client.subscribe([(t, 1) for t in self.subscriptions])
        if self._on_up is not None:
            try:
                self._on_up(first)
            except Exception:
                log.exception("%s: on connect", self.name)

    def _disconnect_cb(
        self,
        client: paho.Client,
        userdata: Any,
        flags: paho.DisconnectFlags,
        reason: ReasonCode,
        properties: Any,
    ) -> None:
        was = self._connected
        self._connected = False
        if not was:
            return
        self.losses += 1
        if not self._stopping:
            log.warning(
                "%s: lost the broker at %s (%s); reconnecting",
                self.name,
                self.options.describe(),
                reason,
            )
        if self._on_down is not None:
            try:
                self._on_down()
            except Exception:
                log.exception("%s: on disconnect", self.name)

    def _connect_fail_cb(self, client: paho.Client, userdata: Any) -> None:
        now = time.monotonic()
        if now - self._last_refusal_log > 30:
            self._last_refusal_log = now
            log.warning("%s: cannot reach %s; retrying", self.name, self.options.describe())

    def _message_cb(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        if self._on_message is None:
            return
        try:
            self._on_message(msg)
        except Exception:
            # A bug in a handler must not stop the network thread.
            log.exception("%s: handling a message on %s", self.name, msg.topic)

    def _subscribe_cb(
        self, client: paho.Client, userdata: Any, mid: int, reasons: list[ReasonCode], props: Any
    ) -> None:
        if mid == self._sub_mid:
            if any(r.is_failure for r in reasons):
                log.error(
                    "%s: the broker refused the subscription to %s (check its ACL)",
                    self.name,
                    ", ".join(self.subscriptions),
                )
            self._subscribed.set()

    def _publish_cb(
        self, client: paho.Client, userdata: Any, mid: int, reason: ReasonCode, properties: Any
    ) -> None:
        if self._on_acked is not None:
            self._on_acked(mid)

    # ------------------------------------------------------------------ sending
    def publish(self, topic: str, payload: bytes, *, retain: bool = False) -> int | None:
        """Publish at QoS 1; the message id, or None when not connected."""
        if not self._connected:
            return None
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.rc != MQTTErrorCode.MQTT_ERR_SUCCESS:
            return None
        return info.mid

    def subscribe(self, topics: list[str]) -> None:
        if topics:
            self.client.subscribe([(t, 1) for t in topics])

    def unsubscribe(self, topics: list[str]) -> None:
        if topics:
            self.client.unsubscribe(topics)
