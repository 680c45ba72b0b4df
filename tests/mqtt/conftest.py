"""Fixtures of the MQTT tests: a real Mosquitto each, on a free loopback port."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.mqtt.broker import Broker, make_test_ca, mosquitto_missing


def _need_mosquitto() -> None:
    why = mosquitto_missing()
    if why is not None:
        pytest.fail(why)


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """An anonymous broker with persistence."""
    _need_mosquitto()
    folder = tmp_path / "broker"
    folder.mkdir()
    b = Broker(folder)
    b.start()
    yield b
    b.kill()


@pytest.fixture
def secured_broker(tmp_path: Path) -> Iterator[Broker]:
    """A broker that takes only the user ``scorer`` with password ``right-password``."""
    _need_mosquitto()
    folder = tmp_path / "secured"
    folder.mkdir()
    b = Broker(folder, users={"scorer": "right-password"})
    b.start()
    yield b
    b.kill()


@pytest.fixture
def make_broker(tmp_path: Path) -> Iterator[Callable[..., Broker]]:
    """Brokers with other options (no persistence, ...)."""
    _need_mosquitto()
    made: list[Broker] = []

    def make(**options: object) -> Broker:
        folder = tmp_path / f"broker{len(made)}"
        folder.mkdir()
        b = Broker(folder, **options)  # type: ignore[arg-type]
        b.start()
        made.append(b)
        return b

    yield make
    for b in made:
        b.kill()


@pytest.fixture
def tls_broker(tmp_path: Path) -> Iterator[Broker]:
    """A broker behind TLS only, with a certificate from a throw-away CA
    (``broker.tls.ca``), and the user ``scorer`` / ``right-password``."""
    _need_mosquitto()
    folder = tmp_path / "tls"
    folder.mkdir()
    b = Broker(folder, users={"scorer": "right-password"}, tls=make_test_ca(folder))
    b.start()
    yield b
    b.kill()
