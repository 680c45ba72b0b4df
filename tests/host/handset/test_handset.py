"""The handset from the host's side: the config's handset_lang, the names
drawn for the handset, the daemon sending both to a device peer on a real pty,
and the API that changes the language."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from baulk.host import config as config_mod
from baulk.host.handset import render as text_render
from baulk.host.handset import sync as handset
from baulk.protocol import host_codec, messages
from tests.host.device_peer import DevicePeer
from tests.host.harness import TOKEN, DaemonThread, http, make_config, wait_for


# ---------------------------------------------------------------------- config
def table(**extra: Any) -> dict[str, Any]:
    return {"table": [{"id": "t1", "port": "/dev/null", **extra}]}


def test_handset_lang_per_table_from_the_config() -> None:
    assert config_mod.parse(table(handset_lang="fa")).tables[0].handset_lang == "fa"
    assert config_mod.parse(table(handset_lang="en")).tables[0].handset_lang == "en"
    assert config_mod.parse(table()).tables[0].handset_lang is None


@pytest.mark.parametrize("bad", ["de", "FA", 1, True, ["fa"]])
def test_a_bad_handset_lang_names_the_key(bad: Any) -> None:
    with pytest.raises(config_mod.ConfigError) as e:
        config_mod.parse(table(handset_lang=bad))
    assert "table[0].handset_lang must be one of en, fa" in str(e.value)


# ---------------------------------------------------------------------- names
def test_a_name_is_drawn_one_row_high_and_fits_the_wire() -> None:
    for name in ("Ali", "علی رضایی", "Reza Mohammadi"):
        bitmap = handset.name_bitmap(name, 1, 0)
        assert messages.check(messages.NAME_BITMAP, host_codec.body_of(bitmap)) is None
        w, h = bitmap.width, bitmap.height
        assert (h, len(bitmap.bits)) == (text_render.HEIGHT, (w + 7) // 8 * h)
        assert 0 < w <= handset.NAME_WIDTH
        assert any(bitmap.bits)  # ink


def test_a_long_name_is_cut_with_an_ellipsis_to_its_room() -> None:
    long = "Mohammad-Hossein Abdolrahimzadeh"
    full = text_render.draw(long, None)
    assert full.width > handset.NAME_WIDTH
    width = handset.name_bitmap(long, 0, 0).width
    assert width <= handset.NAME_WIDTH
    # only as much is dropped as has to be: one character more would not fit
    assert width > handset.NAME_WIDTH - text_render.draw("M", None).width


def test_a_persian_name_runs_right_to_left() -> None:
    # علی: ع on the right, ی (its tail reaching below the baseline) on the left.
    line = text_render.draw("علی", None)
    cols = line.columns()
    w = line.width
    below = [x for x in range(w) if cols[w + x] >> (text_render.BASELINE + 1 - 8)]
    assert below and max(below) < w // 2


def test_doubles_partners_share_the_row() -> None:
    bitmaps = handset.name_bitmaps([["علی", "Sara"], ["رضا", "Mina"]])
    assert [(b.side, b.member) for b in bitmaps] == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert all(b.width <= handset.PARTNER_WIDTH for b in bitmaps)
    assert handset.name_bitmaps(None) == [] and handset.name_bitmaps(["only one"]) == []


# ---------------------------------------------------------------------- the daemon
@pytest.fixture
def peer(tmp_path: Path) -> Iterator[DevicePeer]:
    p = DevicePeer("t1", link_path=tmp_path / "ttyTABLE1").start()
    yield p
    p.stop()


def start(tmp_path: Path, lang: str | None) -> DaemonThread:
    cfg = make_config(tmp_path, {"t1": tmp_path / "ttyTABLE1"})
    t = dataclasses.replace(cfg.tables[0], handset_lang=lang)
    return DaemonThread(dataclasses.replace(cfg, tables=(t,))).start()


def received(peer: DevicePeer, mtype: int) -> list[dict[Any, Any]]:
    return [body for t, _, body in list(peer.commands) if t == mtype]


@pytest.mark.slow
def test_the_configured_language_and_the_names_reach_the_device(
    tmp_path: Path, peer: DevicePeer
) -> None:
    daemon = start(tmp_path, "fa")
    try:
        wait_for(lambda: received(peer, messages.SETTINGS), what="settings at hello")
        assert received(peer, messages.SETTINGS) == [{0: 1}]
        status, reply = http(
            daemon.url + "/api/tables/t1/match",
            {"players": ["علی", "Reza"], "best_of": 3},
            token=TOKEN,
        )
        assert status == 200, reply
        names = wait_for(lambda: len(received(peer, messages.NAME_BITMAP)) >= 2 and received(
            peer, messages.NAME_BITMAP), what="the names")  # fmt: skip
        assert names == [
            host_codec.body_of(handset.name_bitmap("علی", 0, 0)),
            host_codec.body_of(handset.name_bitmap("Reza", 1, 0)),
        ]
        # after the match: the device applied it first (the stream is in order)
        order = [t for t, _, _ in peer.commands]
        assert order.index(messages.SETUP_MATCH) < order.index(messages.NAME_BITMAP)
    finally:
        daemon.stop()
    # A daemon started again sends the language and the match's names at hello.
    peer.commands.clear()
    daemon = start(tmp_path, "fa")
    try:
        wait_for(lambda: len(received(peer, messages.NAME_BITMAP)) >= 2, what="names at hello")
        assert received(peer, messages.SETTINGS) == [{0: 1}]
    finally:
        daemon.stop()


def test_without_a_configured_language_the_device_keeps_its_own(
    tmp_path: Path, peer: DevicePeer
) -> None:
    daemon = start(tmp_path, None)
    try:
        wait_for(lambda: daemon.board("t1")["status"]["link"] == "online", what="online")
        status, body = http(daemon.url + "/api/tables/t1/handset")
        assert status == 200 and body == {"table": "t1", "lang": None, "langs": ["en", "fa"]}
        assert received(peer, messages.SETTINGS) == []
    finally:
        daemon.stop()


def test_the_api_sets_the_language_with_the_token_only(tmp_path: Path, peer: DevicePeer) -> None:
    daemon = start(tmp_path, "en")
    try:
        # a hello again (the link made anew on a busy machine) sends them again
        wait_for(lambda: received(peer, messages.SETTINGS), what="en at hello")
        assert all(s == {0: 0} for s in received(peer, messages.SETTINGS))
        url = daemon.url + "/api/tables/t1/handset"
        status, body = http(url, {"lang": "fa"})
        assert status == 401 and "sign in first" in body["error"]
        for bad, words in (
            ({"lang": "de"}, "lang must be 'en' or 'fa'"),
            ({"lang": 1}, "lang must be 'en' or 'fa'"),
            ({"lang": "fa", "font": "x"}, "unknown key 'font'"),
            ([], "must be a JSON object"),
        ):
            status, body = http(url, bad, token=TOKEN)
            assert status == 400 and words in body["error"], (bad, body)
        assert all(s == {0: 0} for s in received(peer, messages.SETTINGS))  # none for those
        status, body = http(url, {"lang": "fa"}, token=TOKEN)
        assert status == 200 and body["status"] == "done" and body["lang"] == "fa", body
        wait_for(lambda: received(peer, messages.SETTINGS)[-1:] == [{0: 1}], what="fa sent")
        assert http(url)[1]["lang"] == "fa"
        status, body = http(daemon.url + "/api/tables/t9/handset", {"lang": "fa"}, token=TOKEN)
        assert status == 404
    finally:
        daemon.stop()
