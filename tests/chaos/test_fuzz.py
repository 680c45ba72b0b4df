"""Fuzzing, short forms: the web API (hypothesis against the running aiohttp
app on 127.0.0.1), config files (hypothesis-generated TOML) and random keypad
presses into the firmware (bench/chaos_keypad.py presses a million).  The
protocol decoder's fuzzing lives in tests/protocol/test_wire_host_decoder.py
(hypothesis) and tests/protocol/fuzz_host_decoder.py (atheris)."""

from __future__ import annotations

import json
import math
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baulk.host import config as config_mod
from tests.chaos.keypad_fuzz import run as press_keys
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for

pytestmark = pytest.mark.slow

OK_STATUSES = {200, 202, 400, 401, 403, 404, 405, 409, 413, 429, 503}


# ---------------------------------------------------------------------- keypad
def test_random_key_presses_never_crash_and_keep_the_engine_valid() -> None:
    f = press_keys(seed=3, presses=20_000)
    assert f["states_checked"] > 1000  # matches really were started and played
    assert f["matches_started"] >= 1
    assert f["journal_lost"] == 0
    assert f["host_got"] == f["events_journaled"]


# ---------------------------------------------------------------------- web API
@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DaemonThread, DevicePeer]]:
    tmp = tmp_path_factory.mktemp("api")
    peer = DevicePeer("t1", link_path=tmp / "ttyT1").start()
    d = DaemonThread(make_config(tmp, {"t1": tmp / "ttyT1"})).start()
    wait_for(lambda: d.board("t1")["status"]["link"] == "online", what="online")
    yield d, peer
    d.stop()
    peer.stop()


json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False),
    st.text(max_size=60),
)  # fmt: skip
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)
EVENT_NAMES = ["strike", "pot", "rest", "foul", "miss", "undo", "concede", "nominate", "match", "x"]
bodies = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {
            "players": st.lists(
                st.one_of(st.text(max_size=60), st.lists(st.text(max_size=20), max_size=3)),
                max_size=3,
            )
        },
        optional={
            "best_of": json_leaf,
            "reds": json_leaf,
            "breaker": json_leaf,
            "who": json_leaf,
            "zz": json_leaf,
        },
    ),
    st.fixed_dictionaries(
        {"ev": st.sampled_from(EVENT_NAMES)},
        optional={
            "ball": st.sampled_from(["red", "black", "pink", "x", ""]),
            "points": json_leaf,
            "side": json_leaf,
            "who": json_leaf,
        },
    ),
)
raw_bodies = st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode))
segment = st.text(min_size=1, max_size=40).map(lambda s: urllib.parse.quote(s, safe=""))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    kind=st.sampled_from(["match", "command"]), body=bodies, raw=st.one_of(st.none(), raw_bodies)
)
def test_actions_with_any_body_answer_a_clear_error_or_succeed(
    api: tuple[DaemonThread, DevicePeer], kind: str, body: Any, raw: bytes | None
) -> None:
    daemon, _peer = api
    status, reply = http(daemon.url + f"/api/tables/t1/{kind}", body, token=TOKEN, raw=raw)
    assert status in OK_STATUSES, (status, reply)
    if status >= 400:
        assert isinstance(reply, dict) and isinstance(reply.get("error"), str) and reply["error"]


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    path=st.sampled_from(
        [
            "/api/tables/{}",
            "/api/matches/{}",
            "/api/matches/{}/report.csv",
            "/table/{}",
            "/overlay/{}",
            "/report/{}",
            "/api/tables/{}/match",
        ]
    ),
    seg=segment,
    query=st.dictionaries(
        st.sampled_from(["table", "limit", "lang", "tables", "x"]), st.text(max_size=30), max_size=3
    ),
)
def test_reads_with_any_path_or_query_never_fail_inside(
    api: tuple[DaemonThread, DevicePeer], path: str, seg: str, query: dict[str, str]
) -> None:
    daemon, _peer = api
    url = daemon.url + path.format(seg)
    if query:
        url += "?" + urllib.parse.urlencode(query)
    if "/api/matches" in path and query:
        url = daemon.url + "/api/matches?" + urllib.parse.urlencode(query)
    status, _reply = http(url)
    assert status in OK_STATUSES, (url, status)


def test_the_daemon_is_still_healthy_after_the_fuzzing(
    api: tuple[DaemonThread, DevicePeer],
) -> None:
    daemon, _peer = api
    assert daemon.board("t1")["status"]["link"] == "online"
    assert http(daemon.url + "/api")[0] == 200


# ---------------------------------------------------------------------- config files
def _toml_key(k: str) -> str:
    return json.dumps(k)


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return (
            repr(v)
            if math.isfinite(v)
            else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))
        )
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


toml_leaf = st.one_of(
    st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(), st.text(max_size=40),
    st.sampled_from(["127.0.0.1", "0.0.0.0", "::1", "t1", "/dev/ttyACM0", "2e8a:0005", "mqtt://u:p@h:1"]),
)  # fmt: skip
toml_value = st.recursive(
    toml_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
KEYS = {
    "server": ["bind", "port", "operator_token", "x"],
    "store": ["path", "x"],
    "autodetect": ["enabled", "usb", "x"],
    "mqtt": ["url", "password", "venue", "x"],
}
sections = st.fixed_dictionaries(
    {},
    optional={
        name: st.dictionaries(st.sampled_from(keys), toml_value, max_size=4) | toml_leaf
        for name, keys in KEYS.items()
    },
)
tables = st.lists(
    st.dictionaries(
        st.sampled_from(["id", "name", "port", "serial_number", "baud", "x"]),
        toml_value,
        max_size=5,
    ),
    max_size=4,
)


def _document(doc: dict[str, Any], table_list: list[dict[str, Any]]) -> str:
    lines = []
    for name, body in doc.items():
        if isinstance(body, dict):
            lines.append(f"[{name}]")
            lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in body.items()]
        else:
            lines.insert(0, f"{name} = {_toml_value(body)}")
    for t in table_list:
        lines.append("[[table]]")
        lines += [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in t.items()]
    return "\n".join(lines) + "\n"


def _load(tmp: Path, text: str | bytes) -> config_mod.Config | None:
    path = tmp / "fuzz.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    try:
        cfg = config_mod.load(path, env={})
    except config_mod.ConfigError as why:
        assert str(why)  # a sentence, and nothing else may escape
        return None
    assert cfg.bind and isinstance(cfg.bind, str)
    assert 0 <= cfg.port <= 65535
    assert cfg.operator_token is None or len(cfg.operator_token) >= 8
    ids = [t.id for t in cfg.tables]
    assert len(ids) == len(set(ids)) and all(config_mod.valid_table_id(i) for i in ids)
    assert all((t.port is None) != (t.serial_number is None) and t.baud > 0 for t in cfg.tables)
    return cfg


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(doc=sections, table_list=tables)
def test_generated_config_files_load_or_fail_with_a_sentence(
    tmp_path: Path, doc: dict[str, Any], table_list: list[dict[str, Any]]
) -> None:
    _load(tmp_path, _document(doc, table_list))


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=st.one_of(st.binary(max_size=200), st.text(max_size=200)))
def test_arbitrary_bytes_as_a_config_file_fail_with_a_sentence(
    tmp_path: Path, raw: bytes | str
) -> None:
    _load(tmp_path, raw)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    secret=st.one_of(
        st.integers(10**8, 10**12),
        st.floats(1e8, 1e12),
        st.lists(st.integers(10**8, 10**9), min_size=1, max_size=2),
    )
)
def test_a_mistyped_token_is_not_echoed_in_the_error(tmp_path: Path, secret: Any) -> None:
    text = f"[server]\noperator_token = {_toml_value(secret)}\n"
    with pytest.raises(config_mod.ConfigError) as why:
        config_mod.load(_write(tmp_path, text), env={})
    assert str(secret) not in str(why.value) and repr(secret) not in str(why.value)


def _write(tmp: Path, text: str) -> Path:
    path = tmp / "tok.toml"
    path.write_text(text)
    return path
