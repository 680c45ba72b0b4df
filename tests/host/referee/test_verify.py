"""``baulk verify``: a match played by the real firmware (which chains its
journal and signs checkpoints), stored by a real daemon, then tampered with
in every way a venue could: each change, deletion and insertion is found and
located (which event, which checkpoint), in the store and in an exported
report; an untouched record verifies."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cbor2
import pytest

from baulk.firmware.sim.board import SIM_KEY
from baulk.host.cli import main as cli
from baulk.host.referee import reports
from baulk.host.referee.name_fixes import annotated_report
from baulk.host.referee.rebuild import rebuild
from baulk.host.referee.verify import (
    TAMPERED,
    UNCOVERED,
    VERIFIED,
    Verdict,
    verify_report,
    verify_store,
)
from baulk.host.store import StoreReader
from baulk.protocol import messages
from tests.host.ledger_fixture import ACTION, device_stream, store_stream, stored_match

KEY = bytes.fromhex(SIM_KEY)

# Each test needs a match played by the firmware and stored: make test runs them.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ledger") / "store.sqlite"
    store_stream(path, device_stream(seed=3, best_of=1))
    return path


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "store.sqlite"
    shutil.copy(pristine, path)
    yield path


def match_id(store: Path) -> str:
    return str(stored_match(store)["match_id"])


def verify(store: Path) -> Verdict:
    reader = StoreReader(store)
    try:
        return verify_store(reader, match_id(store), KEY)
    finally:
        reader.close()


def export(store: Path) -> dict[str, Any]:
    reader = StoreReader(store)
    try:
        report = reports.build(reader, match_id(store), ledger=True)
    finally:
        reader.close()
    assert report is not None
    loaded: dict[str, Any] = json.loads(json.dumps(report))  # as the API serves it
    return loaded


def db(store: Path) -> sqlite3.Connection:
    return sqlite3.connect(store, isolation_level=None)


def pots(store: Path) -> list[tuple[int, bytes]]:
    """(seq, body) of the stored pot events, oldest first."""
    with db(store) as c:
        rows = c.execute(
            "SELECT seq, body FROM events WHERE name = 'pot' AND rejected IS NULL ORDER BY seq"
        ).fetchall()
    return [(int(s), bytes(b)) for s, b in rows]


def covering(store: Path, seq: int) -> int:
    """The seq of the checkpoint that covers event ``seq``."""
    with db(store) as c:
        row = c.execute(
            "SELECT seq FROM checkpoints WHERE at_seq >= ? ORDER BY at_seq LIMIT 1", (seq,)
        ).fetchone()
    return int(row[0])


def kinds(v: Verdict) -> set[str]:
    return {f.kind for f in v.findings}


def found(v: Verdict, kind: str) -> list[tuple[int | None, int | None]]:
    return [(f.seq, f.checkpoint) for f in v.findings if f.kind == kind]


def test_an_untouched_match_verifies_in_the_store_and_in_its_report(store: Path) -> None:
    v = verify(store)
    assert v.status == VERIFIED, v.as_dict()
    assert v.events > 100 and v.checkpoints >= 3  # a frame's end and full marks
    with db(store) as c:
        assert c.execute("SELECT count(*) FROM events WHERE body IS NULL").fetchone()[0] == 0
        # the set-up's answer carries the action's id back (event key -6)
        assert c.execute("SELECT seq FROM events WHERE action = ?", (ACTION,)).fetchone()
    r = verify_report(export(store), KEY)
    assert r.status == VERIFIED, r.as_dict()
    assert r.events == v.events


def test_a_wrong_key_fails_every_checkpoint(store: Path) -> None:
    v = verify_store(StoreReader(store), match_id(store), bytes(32))
    # Every checkpoint fails, so the frame that ended is signed by none.
    assert v.status == TAMPERED and kinds(v) == {"forged", "unsigned"}
    assert len(found(v, "forged")) >= 3


def test_an_edited_column_is_found_at_its_event(store: Path) -> None:
    seq, _ = pots(store)[5]
    with db(store) as c:
        c.execute("UPDATE events SET scores = '[99, 0]' WHERE seq = ?", (seq,))
    v = verify(store)
    assert v.status == TAMPERED
    assert found(v, "edited") == [(seq, None)]
    assert "scores [99, 0] stored" in next(f.text for f in v.findings if f.kind == "edited")


def _red_to_black(body: bytes) -> tuple[bytes, dict[str, Any]]:
    b = cbor2.loads(body)
    b[1] = 6  # the ball: black instead of red
    return cbor2.dumps(b, canonical=True), messages.wire_to_event(b)


def test_a_changed_event_is_found_at_its_event_and_checkpoint(store: Path) -> None:
    seq, body = pots(store)[3]
    forged, ev = _red_to_black(body)
    with db(store) as c:  # body and columns changed alike: only the chain can tell
        c.execute("UPDATE events SET body = ?, ev = ? WHERE seq = ?", (forged, json.dumps(ev), seq))
    v = verify(store)
    assert v.status == TAMPERED
    assert found(v, "changed") == [(seq, covering(store, seq))]
    assert "edited" not in kinds(v)


def test_a_deleted_event_is_found_where_it_was(store: Path) -> None:
    seq, _ = pots(store)[8]
    with db(store) as c:
        prev = c.execute("SELECT max(seq) FROM events WHERE seq < ?", (seq,)).fetchone()[0]
        c.execute("DELETE FROM events WHERE seq = ?", (seq,))
    v = verify(store)
    assert v.status == TAMPERED
    assert found(v, "deleted") == [(prev, covering(store, seq))]
    assert "changed" not in kinds(v) and "inserted" not in kinds(v)


def test_an_inserted_event_is_found_at_its_seq(store: Path) -> None:
    seq, body = pots(store)[10]
    forged, ev = _red_to_black(body)
    with db(store) as c:  # a second row under the same seq, from a boot of its own
        c.execute(
            "INSERT INTO events (table_id, boot_id, seq, rx_ms, name, ev, scores, body) "
            "SELECT table_id, boot_id + 100, seq, rx_ms, name, ?, scores, ? FROM events "
            "WHERE seq = ?",
            (json.dumps(ev), forged, seq),
        )
    v = verify(store)
    assert v.status == TAMPERED
    assert found(v, "inserted") == [(seq, covering(store, seq))]
    assert "deleted" not in kinds(v) and "changed" not in kinds(v)


def test_a_forged_checkpoint_is_found(store: Path) -> None:
    with db(store) as c:
        (cp,) = c.execute("SELECT seq FROM checkpoints ORDER BY seq LIMIT 1").fetchone()
        c.execute("UPDATE checkpoints SET head = ? WHERE seq = ?", (bytes(32 - 1) + b"\x01", cp))
    v = verify(store)
    assert v.status == TAMPERED
    assert found(v, "forged") == [(None, cp)]


def test_an_edited_frame_in_the_store_is_found_in_its_report(store: Path) -> None:
    with db(store) as c:
        c.execute("UPDATE frames SET scores = '[1, 0]' WHERE frame = 1")
    v = verify(store)
    assert v.status == TAMPERED and kinds(v) == {"report"}
    assert any("frames[1].scores" in f.text for f in v.findings)


# ---------------------------------------------------------------------- exported reports
def test_a_report_with_another_score_is_found(store: Path) -> None:
    report = export(store)
    report["frames"][0]["scores"] = [0, 147]
    v = verify_report(report, KEY)
    assert v.status == TAMPERED and kinds(v) == {"report"}


def test_a_report_with_another_winner_is_found(store: Path) -> None:
    report = export(store)
    report["match"]["winner"] = 1 - report["match"]["winner"]
    v = verify_report(report, KEY)
    assert v.status == TAMPERED and any("winner" in f.text for f in v.findings)


def test_a_report_with_a_changed_event_is_found(store: Path) -> None:
    seq, body = pots(store)[2]
    report = export(store)
    e = next(e for e in report["ledger"]["events"] if e["seq"] == seq)
    e["body"] = _red_to_black(body)[0].hex()
    v = verify_report(report, KEY)
    assert found(v, "changed") == [(seq, covering(store, seq))]


def test_a_report_with_a_deleted_event_is_found(store: Path) -> None:
    seq, _ = pots(store)[4]
    report = export(store)
    events = report["ledger"]["events"]
    i = next(i for i, e in enumerate(events) if e["seq"] == seq)
    prev = events[i - 1]["seq"]
    del events[i]
    v = verify_report(report, KEY)
    assert found(v, "deleted") == [(prev, covering(store, seq))]


def test_a_report_with_an_inserted_event_is_found(store: Path) -> None:
    seq, body = pots(store)[6]
    report = export(store)
    events = report["ledger"]["events"]
    i = next(i for i, e in enumerate(events) if e["seq"] == seq)
    events.insert(i + 1, {"seq": seq, "boot": 1, "body": _red_to_black(body)[0].hex()})
    v = verify_report(report, KEY)
    assert found(v, "inserted") == [(seq, covering(store, seq))]


# ---------------------------------------------------------------------- the command
def test_baulk_verify_says_verified_tampered_or_not_yet(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["verify", "--sim-key", "--store", str(store)]) == VERIFIED
    assert "verified" in capsys.readouterr().out
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"schema": 1, "report": export(store)}))
    assert cli.main(["verify", "--sim-key", "--report", str(path)]) == VERIFIED
    capsys.readouterr()

    seq, _ = pots(store)[1]
    with db(store) as c:
        c.execute("DELETE FROM events WHERE seq = ?", (seq,))
    assert cli.main(["verify", "--sim-key", "--store", str(store), "--json"]) == TAMPERED
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is False and out["findings"][0]["kind"] == "deleted"
    assert cli.main(["verify", "--sim-key", "--store", str(store)]) == TAMPERED
    text = capsys.readouterr().out
    assert "TAMPERED" in text and f"checkpoint {covering(store, seq)}" in text


def frame_end(store: Path) -> int:
    """The seq of the event that ended the (last) frame."""
    with db(store) as c:
        cp = c.execute("SELECT max(at_seq) FROM checkpoints").fetchone()[0]
    return int(cp)


def test_a_match_in_play_is_not_covered_yet(store: Path) -> None:
    # As the store holds a match mid-frame: the frame's end (and the
    # checkpoint the device signs at it) not received yet.
    end = frame_end(store)
    with db(store) as c:
        c.execute("DELETE FROM checkpoints WHERE at_seq >= ?", (end,))
        c.execute("DELETE FROM events WHERE seq >= ?", (end,))
    rebuild(store)  # the projections as that store would hold them
    v = verify(store)
    assert v.status == UNCOVERED and kinds(v) == {"uncovered"}


def test_a_finished_frame_without_its_checkpoint_is_tampered(store: Path) -> None:
    # The frame ended: the device signed it.  A missing checkpoint is a
    # deleted one, never "not covered yet".
    end = frame_end(store)
    with db(store) as c:
        c.execute("DELETE FROM checkpoints WHERE at_seq >= ?", (end,))
    v = verify(store)
    assert v.status == TAMPERED
    assert found(v, "unsigned") == [(end, None)]


def test_deleting_the_checkpoints_and_rebuilding_does_not_soften_the_verdict(
    store: Path,
) -> None:
    # A changed pot, then its checkpoints deleted and the projections made
    # again from the changed events: still TAMPERED, never "not covered yet".
    seq, body = pots(store)[3]
    forged, ev = _red_to_black(body)
    with db(store) as c:
        c.execute("UPDATE events SET body = ?, ev = ? WHERE seq = ?", (forged, json.dumps(ev), seq))
        c.execute("DELETE FROM checkpoints")
    rebuild(store)
    v = verify(store)
    assert v.status == TAMPERED
    assert "unsigned" in kinds(v)


def test_bad_input_gets_a_sentence_and_status_2(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = tmp_path / "key"
    key.write_text("not hex")
    assert cli.main(["verify", "--key", str(key), "--store", str(store)]) == 2
    assert "device key" in capsys.readouterr().err
    key.write_text(SIM_KEY)
    assert cli.main(["verify", "--key", str(key), "--store", str(tmp_path / "none")]) == 2
    junk = tmp_path / "junk.json"
    junk.write_text('{"match": 1}')
    assert cli.main(["verify", "--key", str(key), "--report", str(junk)]) == 2
    err = capsys.readouterr().err
    assert "no store" in err and "not a match report" in err
    assert "Traceback" not in err
    assert cli.main(["verify", "--key", str(key), "--store", str(store), "--match", "x"]) == 2


# ---------------------------------------------------------------------- every field of a report
def _bump(part: dict[str, Any], key: str, by: int = 1) -> None:
    part[key] = part[key] + by


EDITS: dict[str, Any] = {
    "match.names": lambda r: r["match"].update(names=["Ali", "Someone Else"]),
    "statistics[1].breaks.highest": lambda r: r["statistics"][0]["breaks"].update(highest=147),
    "statistics[1].points": lambda r: _bump(r["statistics"][0], "points", 40),
    # a foul erased: one fewer, and its points gone
    "statistics[2].fouls.count": lambda r: r["statistics"][1]["fouls"].update(count=-1),
    "frames[1].accounting.balanced": lambda r: r["frames"][0]["accounting"].update(
        balanced=not r["frames"][0]["accounting"]["balanced"]
    ),
    "frames[1].accounting.recorded.keyed": lambda r: _bump(
        r["frames"][0]["accounting"]["recorded"], "keyed"
    ),
    "match.status": lambda r: r["match"].update(status="abandoned"),
    "match.frames_won": lambda r: r["match"].update(frames_won=[9, 9]),
}


@pytest.mark.parametrize(("what", "edit"), sorted(EDITS.items()), ids=sorted(EDITS))
def test_a_report_edited_in_any_field_the_table_signs_is_found(
    store: Path, what: str, edit: Any
) -> None:
    report = export(store)
    assert verify_report(report, KEY).status == VERIFIED
    edit(report)
    v = verify_report(report, KEY)
    assert v.status == TAMPERED and kinds(v) == {"report"}
    assert any(f"report's {what}" in f.text for f in v.findings), [f.text for f in v.findings]


def correct_names(store: Path, players: list[str], who: str | None = "desk clerk") -> None:
    """What the console's name correction stores (host/venue/actions.py)."""
    with db(store) as c:
        c.execute(
            "INSERT OR REPLACE INTO name_fixes (match_id, players, who, at_ms) VALUES (?,?,?,?)",
            (match_id(store), json.dumps(players), who, 1_764_000_000_000),
        )


def exported_as_the_api_does(store: Path) -> dict[str, Any]:
    reader = StoreReader(store)
    try:
        report = reports.build(reader, match_id(store), ledger=True)
        assert report is not None
        fixed = annotated_report(report, reader.name_fix_record(match_id(store)))
    finally:
        reader.close()
    loaded: dict[str, Any] = json.loads(json.dumps(fixed))
    return loaded


def test_names_corrected_at_the_venue_are_its_annotation_and_still_verify(store: Path) -> None:
    correct_names(store, ["Ali Ahmadi-Zand", "Reza"])
    report = exported_as_the_api_does(store)
    assert report["match"]["names"] == ["Ali Ahmadi-Zand", "Reza"]
    assert report["annotations"]["names"]["signed"] == ["Ali", "Reza"]
    for v in (verify_report(report, KEY), verify(store)):
        assert v.status == VERIFIED, [f.text for f in v.findings]
        (note,) = v.annotations
        assert "Ali Ahmadi-Zand" in note.text and "desk clerk" in note.text
        assert "not signed by the table" in note.text


def test_an_annotation_that_misstates_the_tables_record_is_found(store: Path) -> None:
    correct_names(store, ["Ali Ahmadi-Zand", "Reza"])
    report = exported_as_the_api_does(store)
    report["annotations"]["names"]["signed"] = ["Ali Ahmadi-Zand", "Reza"]
    assert verify_report(report, KEY).status == TAMPERED
    report = exported_as_the_api_does(store)
    report["breaks"] = report["breaks"] + [
        {"frame": 1, "side": 0, "player": "Ali Ahmadi-Zand", "points": 147, "ended_ms": 0}
    ]
    assert verify_report(report, KEY).status == TAMPERED


def test_an_edited_players_figures_row_in_the_store_is_found(store: Path) -> None:
    with db(store) as c:
        c.execute("UPDATE player_frames SET high_break = 147, visit_points = visit_points + 100")
    v = verify(store)
    assert v.status == TAMPERED and kinds(v) == {"report"}
    assert any("breaks.highest" in f.text for f in v.findings)


def test_a_name_fix_inserted_in_the_store_is_listed_as_the_venues(
    store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    correct_names(store, ["Someone", "Reza"], who=None)
    v = verify(store)
    assert v.status == VERIFIED  # not the table's to sign: listed, never hidden
    assert "an unnamed operator" in v.annotations[0].text
    assert cli.main(["verify", "--sim-key", "--store", str(store)]) == VERIFIED
    out = capsys.readouterr().out
    assert "venue's annotation" in out and "Someone" in out
