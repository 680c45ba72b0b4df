"""Every code on the wire, pinned.

A name's code is its index in its table (balls, pockets, events, foul kinds) or
a constant (sources, message types, error codes, log levels).  Codes travel in
frames, sit in device journals and in the host's store: adding a name must never
renumber another.  These lists are written out by hand on purpose; a table that
changes order fails here.

The device keeps a few of those codes as module-private constants for heap's
sake (MicroPython folds them into the bytecode); each such copy is checked
against its table below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from baulk.firmware import names
from baulk.host.referee import sensors
from baulk.protocol import frame
from baulk.protocol import host_catalogue as C
from baulk.protocol import host_codec as H
from baulk.protocol import messages as M

ROOT = Path(__file__).resolve().parents[1]

BALLS = ["red", "yellow", "green", "brown", "blue", "pink", "black", "white"]
POCKETS = ["tl", "tr", "ml", "mr", "bl", "br"]
EVENTS = [
    "match",
    "strike",
    "pot",
    "off",
    "rest",
    "foul",
    "miss",
    "free_ball",
    "nominate",
    "play_again",
    "replace",
    "concede",
    "award",
    "rerack",
    "toss",
    "undo",
    "spots",
    "claim",
    "edge_replace",
    "order",
]
FOUL_KINDS = [
    ("double_hit", names.PENALTY_BALL_ON),
    ("feet_off_floor", names.PENALTY_BALL_ON),
    ("out_of_turn", names.PENALTY_BALL_ON),
    ("outside_d", names.PENALTY_BALL_ON),
    ("no_contact", names.PENALTY_BALL_ON),
    ("in_off", names.PENALTY_BALL_ON),
    ("free_ball_snooker", names.PENALTY_BALL_ON),
    ("jump", names.PENALTY_BALL_ON),
    ("cue", names.PENALTY_BALL_ON),
    ("conferring", names.PENALTY_BALL_ON),
    ("before_rest", names.PENALTY_HIGHER),
    ("before_spot", names.PENALTY_HIGHER),
    ("pot_not_on", names.PENALTY_HIGHER),
    ("wrong_ball_first", names.PENALTY_HIGHER),
    ("push", names.PENALTY_HIGHER),
    ("touch", names.PENALTY_HIGHER),
    ("off_table", names.PENALTY_HIGHER),
    ("two_balls", names.PENALTY_HIGHER),
    ("ball_off_table_used", names.PENALTY_SEVEN),
    ("measuring", names.PENALTY_SEVEN),
    ("red_after_red", names.PENALTY_SEVEN),
    ("non_cue_ball", names.PENALTY_SEVEN),
    ("no_declaration", names.PENALTY_SEVEN),
    ("foul_before_nomination", names.PENALTY_SEVEN),
]
MESSAGE_TYPES = {
    "hello": 1,
    "welcome": 2,
    "event": 3,
    "state": 4,
    "ack": 5,
    "heartbeat": 6,
    "setup_match": 7,
    "command": 8,
    "time": 9,
    "snapshot_request": 10,
    "log": 11,
    "error": 12,
    "light": 13,
    "settings": 14,
    "name_bitmap": 15,
    "health": 16,
    "pocket_check": 17,
    "check_request": 18,
    "checkpoint": 19,
    "capture_request": 20,
    "trace": 21,
    "anchor": 22,
    "update_request": 23,
    "update_status": 24,
    "update_data": 25,
}
# The firmware update's (SPEC.md 7.9): update_request's ops, update_status's states.
UPDATE_OPS = ["stage", "confirm"]
UPDATE_STATES = ["ready", "receiving", "checking", "committed", "refused", "confirmed"]
CHECK_VERDICTS = ["ok", "weak", "faulty"]
CHECK_REASONS = [
    "none",
    "no_break",
    "beam_stuck",
    "short_break",
    "no_sensor",
    "dark",
    "wrong_ball",
    "unclear",
    "low_confidence",
    "drift",
]
LANGS = ["en", "fa"]
SOURCES = {"SRC_SENSOR": 0, "SRC_KEYPAD": 1, "SRC_HOST": 2}
ERRORS = {
    "ERR_VERSION": 1,
    "ERR_BODY": 2,
    "ERR_UNSUPPORTED": 3,
    "ERR_JOURNAL_FULL": 4,
    "ERR_REFUSED": 5,
    "ERR_NOT_READY": 6,
}


def test_name_tables_keep_their_codes() -> None:
    assert list(names.BALLS) == BALLS
    assert list(names.POCKETS) == POCKETS
    assert list(names.EVENTS) == EVENTS
    assert list(names.COLOURS) == BALLS[1:7]
    assert list(names.BALL_VALUES) == [1, 2, 3, 4, 5, 6, 7, 0]  # R1.5
    assert list(names.LANGS) == LANGS
    assert list(C.CHECK_VERDICTS) == CHECK_VERDICTS
    assert list(C.CHECK_REASONS) == CHECK_REASONS
    assert C.NO_BALL == 255


def test_foul_kinds_keep_their_codes_and_penalty_classes() -> None:
    assert list(names.FOUL_KINDS) == [kind for kind, _ in FOUL_KINDS]
    assert list(names.FOUL_PENALTY) == [penalty for _, penalty in FOUL_KINDS]
    assert (names.PENALTY_BALL_ON, names.PENALTY_HIGHER, names.PENALTY_SEVEN) == (0, 1, 2)


def test_message_types_sources_errors_and_log_levels_keep_their_codes() -> None:
    assert {name: mtype for mtype, (name, _, _) in C.TYPES.items()} == MESSAGE_TYPES
    for name, mtype in MESSAGE_TYPES.items():
        # the pocket check's, the capture's, the anchor's and the update's
        # types are private on the device, named by the host
        private = ("health", "pocket_check", "check_request", "capture_request", "trace", "anchor")
        private += ("update_request", "update_status", "update_data")
        where = H if name in private else M
        assert getattr(where, name.upper()) == mtype
    for const, code in {**SOURCES, **ERRORS}.items():
        assert getattr(M, const) == code
    assert (M._LOG_DEBUG, M._LOG_INFO, M.LOG_WARN, M._LOG_ERROR) == (0, 1, 2, 3)
    assert frame.VERSION_MAJOR == 1
    assert [getattr(H, f"OP_{op.upper()}") for op in UPDATE_OPS] == [0, 1]
    assert [getattr(H, f"UPDATE_{s.upper()}") for s in UPDATE_STATES] == list(range(6))


# ---------------------------------------------------------------------- device copies
def _consts(path: Path) -> dict[str, int]:
    """NAME = const(N) assignments at the top level of a device module."""
    found: dict[str, int] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Name)
            and node.value.func.id == "const"
        ):
            try:
                value = ast.literal_eval(node.value.args[0])
            except ValueError:  # an expression such as 1 << 7: no copy of a code
                continue
            if isinstance(value, int):
                found[node.targets[0].id] = value
    return found


DEVICE_FILES = sorted(
    p.relative_to(ROOT).as_posix()
    for folder in ("firmware", "protocol")
    for p in (ROOT / folder).rglob("*.py")
    if "/sim/" not in p.as_posix()
)
BALL_CONSTS = {f"_{b.upper()}": i for i, b in enumerate(BALLS)}
# Message type names by id (index 0: none).
TYPE_NAMES = ["", *sorted(MESSAGE_TYPES, key=MESSAGE_TYPES.__getitem__)]
# Log levels by code (messages.LOG_WARN and its private siblings).
LOG_LEVELS = ["debug", "info", "warn", "error"]
# Module-private families, by module: a constant named like one of these is a
# copy of that table's code.
FAMILIES = {
    "firmware/engine.py": {"_EV_": EVENTS, "_K_": [k for k, _ in FOUL_KINDS]},
    # the pocket check's message types, private in messages.py, and the kinds
    # of disagreement between a sensor and the referee
    "firmware/app.py": {"_T_": TYPE_NAMES, "_D_": list(sensors.KINDS), "_LOG_": LOG_LEVELS},
    "firmware/pocket_check.py": {"_V_": CHECK_VERDICTS, "_R_": CHECK_REASONS, "_T_": TYPE_NAMES},
    "protocol/messages.py": {"_T_": TYPE_NAMES},
    "firmware/capture.py": {"_T_": TYPE_NAMES},
    "protocol/frame.py": {"_T_": TYPE_NAMES},
    # the update mode's copies of the types and of update_request's ops
    "firmware/update/mode.py": {"_T_": TYPE_NAMES, "_OP_": UPDATE_OPS},
}


def copies(rel: str) -> list[tuple[str, int, int]]:
    """(constant, its value, the code it copies) for each copy in a module."""
    out = []
    for name, value in _consts(ROOT / rel).items():
        bare = name.lstrip("_")
        if name in BALL_CONSTS:
            out.append((name, value, BALL_CONSTS[name]))
        elif bare in SOURCES:
            out.append((name, value, SOURCES[bare]))
        for prefix, table in FAMILIES.get(rel, {}).items():
            if name.startswith(prefix):
                wanted = name[len(prefix) :].lower()
                assert wanted in table, f"{rel}: {name} copies no {prefix}* name"
                out.append((name, value, table.index(wanted)))
    return out


@pytest.mark.parametrize("rel", DEVICE_FILES)
def test_every_device_copy_of_a_code_agrees_with_its_table(rel: str) -> None:
    for name, value, code in copies(rel):
        assert value == code, f"{rel}: {name} = {value}, but its code is {code}"


def test_the_copies_are_really_found() -> None:
    # The check above must see the engine's and the app's copies, or it proves nothing.
    engine = {name for name, _, _ in copies("firmware/engine.py")}
    assert {"_RED", "_BLACK", "_WHITE", "_EV_MATCH", "_EV_UNDO", "_K_IN_OFF"} <= engine
    assert {"_SRC_SENSOR", "_SRC_HOST"} <= {n for n, _, _ in copies("firmware/app.py")}
    assert {"_SRC_KEYPAD"} <= {n for n, _, _ in copies("firmware/keypad_flow.py")}
    assert {"_YELLOW", "_PINK", "_BLACK"} <= {n for n, _, _ in copies("firmware/respot.py")}
    types = {"_T_HEALTH", "_T_POCKET_CHECK", "_T_CHECK_REQUEST"}
    assert types <= {n for n, _, _ in copies("protocol/messages.py")}
    assert {"_T_HEALTH", "_T_CHECK_REQUEST"} <= {n for n, _, _ in copies("firmware/app.py")}
    assert "_LOG_ERROR" in {n for n, _, _ in copies("firmware/app.py")}
    assert (H.HEALTH, H.POCKET_CHECK, H.CHECK_REQUEST) == (16, 17, 18)
    assert {"_T_CAPTURE_REQUEST", "_T_TRACE"} <= {n for n, _, _ in copies("protocol/messages.py")}
    assert {"_T_CAPTURE_REQUEST"} <= {n for n, _, _ in copies("firmware/app.py")}
    assert {"_T_TRACE"} <= {n for n, _, _ in copies("firmware/capture.py")}
    assert (H.CAPTURE_REQUEST, H.TRACE) == (20, 21)
    assert {"_T_ANCHOR"} <= {n for n, _, _ in copies("protocol/messages.py")}
    assert {"_T_ANCHOR"} <= {n for n, _, _ in copies("firmware/app.py")}
    assert H.ANCHOR == 22
    update = {"_T_UPDATE_REQUEST", "_T_UPDATE_STATUS", "_T_UPDATE_DATA"}
    assert update <= {n for n, _, _ in copies("protocol/messages.py")}
    assert {"_T_UPDATE_DATA"} <= {n for n, _, _ in copies("protocol/frame.py")}
    assert (H.UPDATE_REQUEST, H.UPDATE_STATUS, H.UPDATE_DATA) == (23, 24, 25)
    kinds = {n for n, _, _ in copies("firmware/app.py")}
    assert {"_D_CHANGED", "_D_TAKEN_BACK", "_D_KEYED"} <= kinds
    check = {n for n, _, _ in copies("firmware/pocket_check.py")}
    assert {"_V_OK", "_V_WEAK", "_V_FAULTY", "_R_NO_BREAK", "_R_LOW_CONFIDENCE"} <= check


def test_limits_the_engine_and_the_wire_share_agree() -> None:
    engine = _consts(ROOT / "firmware" / "engine.py")
    assert engine["_MAX_NAME_BYTES"] == M.NAME_BYTES


def test_the_hosts_bound_on_checkpoint_marks_is_the_journals() -> None:
    """The host refuses a checkpoint with more marks than a device lists, or
    with bytes that are not whole 4-byte marks (SPEC.md 7.8)."""
    from baulk.firmware import journal

    name, kind, most, _, _ = C.SCHEMA[M.CHECKPOINT][3]
    assert (name, kind, most) == ("marks", C.MARKS, journal.MARKS)
    device_kinds = (M.UINT, M.INT, M.TEXT, M.BOOL, M.NAME, M.NAMES, M.UINTS, M.PLAYERS)
    device_kinds += (M.FOUL, M.BALL_ON, M.COLOURS, M.WARNING, M.BYTES)
    assert C.MARKS not in device_kinds  # a kind of the host's own, numbered apart
    body = {0: 1, 1: 7, 2: bytes(32), 4: bytes(32)}
    assert C.check(M.CHECKPOINT, {**body, 3: bytes(4 * journal.MARKS)}) is None
    for marks in (bytes(4 * journal.MARKS + 4), bytes(6), b"\x00"):
        assert C.check(M.CHECKPOINT, {**body, 3: marks}) is not None


def test_every_copy_of_update_datas_bounds_agrees() -> None:
    # Private on the device (frame.py, mode.py) so that a match spends no
    # names on them; the host's are public (host_codec), and the MicroPython
    # test scripts spell them out.
    fr = _consts(ROOT / "protocol" / "frame.py")
    assert fr["_MAX_UPDATE_BODY"] == H.MAX_UPDATE_BODY == 1040
    assert fr["_MAX_UPDATE_FRAME"] == H.MAX_UPDATE_FRAME == frame.HEADER_LEN + 1040 + frame.CRC_LEN
    assert fr["_MAX_UPDATE_WIRE"] == H.MAX_UPDATE_WIRE
    assert _consts(ROOT / "firmware" / "update" / "mode.py")["_WIRE"] == H.MAX_UPDATE_WIRE
    for script in ("tests/protocol/mp_vectors.py", "tests/firmware/mp_update.py"):
        text = (ROOT / script).read_text(encoding="utf-8")
        assert "1049" in text, script
    assert "UPDATE_WIRE = 1055" in (ROOT / "tests/protocol/mp_vectors.py").read_text()
    assert not {n for n in vars(frame) if n.startswith("MAX_UPDATE")}  # no name on the board
