"""The engine's state is declared once, in ``_STATE`` (name, value before any
match, when it is reset): the match reset, the frame reset and the stroke reset
all come from it.  These tests hold the type checkers' copy of the names to the
table, and check that each reset does what the table says."""

from __future__ import annotations

from baulk.firmware import engine as E
from baulk.firmware.engine import Engine

from .engine_driver import match, stroke


def test_the_annotations_name_exactly_the_state_fields_in_order() -> None:
    assert tuple(Engine.__annotations__) == E._FIELDS
    for name, default in zip(E._FIELDS, E._DEFAULTS, strict=True):
        kind = Engine.__annotations__[name]
        assert kind is (bool if isinstance(default, bool) else int), name


def test_a_new_engine_holds_every_default() -> None:
    assert Engine().snapshot() == E._DEFAULTS


def _dirty(e: Engine) -> None:
    """Set every field to a value no reset gives it."""
    for name in E._FIELDS:
        setattr(e, name, 99)


def test_a_new_match_resets_every_field() -> None:
    e = Engine()
    _dirty(e)
    e.apply(match())
    fresh = Engine()
    fresh.apply(match())
    assert e.snapshot() == fresh.snapshot()


def test_a_rack_resets_the_frame_fields_and_keeps_the_others() -> None:
    e = Engine()
    e.apply(match())
    _dirty(e)
    e.reds_per_frame = 15
    e._rack(1)
    frame = {E._FIELDS[i] for i in E._FRAME_RESET}
    set_by_rack = {"breaker": 1, "reds": 15, "colours": 0x7E, "on": 0, "in_hand": True}
    for name, default in zip(E._FIELDS, E._DEFAULTS, strict=True):
        value = getattr(e, name)
        if name in set_by_rack:
            assert value == set_by_rack[name], name
        elif name in frame:
            assert value == default, name
        elif name != "reds_per_frame":
            assert value == 99, f"{name} is not a frame field, yet the rack changed it"
    assert {"s0", "s1", "pos", "respot", "stroke_open"} <= frame
    assert not {"f0", "h0", "frame", "foul_kind", "st_red_pots"} & frame


def test_a_strike_resets_the_stroke_fields_and_keeps_the_others() -> None:
    e = Engine()
    e.apply(match())
    for ev in stroke("red"):  # strike, pot red, rest: a stroke with something in it
        e.apply(ev)
    before = dict(zip(E._FIELDS, e.snapshot(), strict=True))
    e.apply({"ev": "strike"})
    after = dict(zip(E._FIELDS, e.snapshot(), strict=True))
    strike = {E._FIELDS[i] for i in E._STROKE_RESET}
    copied = {"st_on", "st_nom", "st_free", "st_in_hand", "st_reds", "st_colours", "st_brk"}
    for name, default in zip(E._FIELDS, E._DEFAULTS, strict=True):
        if name in strike:
            assert after[name] == default, name
    assert after["stroke_open"] is True and after["frame_strokes"] == before["frame_strokes"] + 1
    assert {name: after[name] for name in copied} == {
        "st_on": e.on,
        "st_nom": e.nominated,
        "st_free": e.free_ball,
        "st_in_hand": e.in_hand,
        "st_reds": e.reds,
        "st_colours": e.colours,
        "st_brk": e.brk,
    }
    assert {"st_red_pots", "st_fkind", "respot", "foul_open"} <= strike
    assert not {"s0", "brk", "reds", "st_on"} & strike
    assert before["st_red_pots"] == 1 and after["st_red_pots"] == 0
