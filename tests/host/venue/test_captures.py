"""The sensor capture on the host: traces the real firmware sent (the
simulated board, tests/firmware/mp_capture.py) stored by the captures' own
writer (host/store/captures.py), bounded, exported by ``baulk sensors
export``, and replayed through the firmware's detector by
bench/pockets.py --traces (bench/trace_replay.py), which must decide as the
live run did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from baulk.host.cli.main import main as baulk
from baulk.host.store import captures

ROOT = Path(__file__).resolve().parents[3]
FW = ROOT / "tests" / "firmware"
sys.path.insert(0, str(ROOT / "bench"))
import trace_replay  # noqa: E402


def device_run(tmp: Path) -> dict:
    done = subprocess.run(
        [sys.executable, str(FW / "mp_capture.py"), "passages", "-", str(tmp / "flash")],
        capture_output=True, check=False, cwd=FW,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def fields(t: dict) -> dict:
    names = {"0": "capture", "1": "frame", "2": "t", "3": "edges", "4": "windows",
             "5": "marks", "6": "lost", "7": "end"}  # fmt: skip
    out = {names[k]: (bytes.fromhex(v) if k in "345" else v) for k, v in t.items()}
    return out


def stored(tmp: Path, run: dict) -> Path:
    store = tmp / "store.db"
    cs = captures.CaptureStore(store)
    for t in run["traces"]:
        f = fields(t)
        cs.trace("t1", 1000, f)
        if f["frame"] == 0:
            for seq, ev in run["stream"]:
                cs.event("t1", seq, ev)
    cs.flush()
    cs.close()
    assert cs.failed == 0 and cs.dropped == 0
    return store


def test_record_export_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = device_run(tmp_path)
    store = stored(tmp_path, run)
    out = tmp_path / "traces"
    assert baulk(["sensors", "export", "--table", "t1", str(out), "--store", str(store)]) == 0
    files = sorted(out.glob("*.jsonl"))
    assert len(files) == 1
    head, records = trace_replay.load(files[0])
    assert head["ended"] == "passages" and head["lost_frames"] == 0
    kinds = {r["kind"] for r in records}
    assert kinds == {"edge", "window", "event"}
    assert sum(r["kind"] == "window" for r in records) == len(run["windows"])
    res = trace_replay.replay_dir(out)
    live = trace_replay.live(records)
    assert [x["ball"] for x in live] == ["red", "black", "white"]
    assert res["as_live"] == res["compared"] == 3
    assert res["overall"]["counted"] == 3 and res["overall"]["silent_wrong"] == 0


def test_the_replay_can_tell_a_different_decision(tmp_path: Path) -> None:
    # the same traces with the black's windows made the red's: the replay
    # no longer decides as the live run did, and the score says so
    run = device_run(tmp_path)
    store = stored(tmp_path, run)
    out = tmp_path / "traces"
    captures.export(store, "t1", out)
    f = next(out.glob("*.jsonl"))
    lines = [json.loads(x) for x in f.read_text().splitlines()]
    reds = [
        r for r in lines if r.get("kind") == "window" and r["pocket"] == 0 and r["gain"] == "16x"
    ]
    blacks = [
        r for r in lines if r.get("kind") == "window" and r["pocket"] == 3 and r["gain"] == "16x"
    ]
    for b, r in zip(blacks, reds, strict=False):
        b.update(c=r["c"], r=r["r"], g=r["g"], b=r["b"])
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = trace_replay.replay_dir(out)
    assert res["as_live"] < res["compared"]
    assert res["overall"]["identity"] < 3


def test_storage_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(captures, "MAX_RECORDS", 5)
    monkeypatch.setattr(captures, "MAX_CAPTURES", 2)
    cs = captures.CaptureStore(tmp_path / "s.db")
    edge = bytes((0, 1, 1, 0))
    for cap in (1, 2, 3):
        cs.trace("t1", 0, {"capture": cap, "frame": 0, "t": 0, "edges": edge * 4, "windows": b""})
        cs.trace("t1", 0, {"capture": cap, "frame": 2, "t": 9, "edges": edge * 4, "windows": b"",
                           "end": 1})  # fmt: skip
    cs.flush()
    cs.close()
    files = captures.export(tmp_path / "s.db", "t1", tmp_path / "out")
    assert [p.name.split("-")[1] for p in files] == ["2", "3"]  # the oldest dropped
    head = json.loads(files[-1].read_text().splitlines()[0])
    assert head["records"] == 5 and head["dropped"] == 3 and head["lost_frames"] == 1
    assert head["ended"] == "stopped"


def test_a_bad_trace_is_logged_not_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cs = captures.CaptureStore(tmp_path / "s.db")
    cs.trace("t1", 0, {"capture": 1})  # no frame, no records: the writer fails on it
    cs.event("t1", 1, {"ev": "pot", "t": object()})
    cs.flush()
    cs.close()
    assert cs.failed >= 1


def test_export_errors_are_sentences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert baulk(["sensors", "export", "--table", "t1", str(tmp_path), "--store",
                  str(tmp_path / "none.db")]) == 1  # fmt: skip
    assert "no store at" in capsys.readouterr().err
    cs = captures.CaptureStore(tmp_path / "s.db")
    cs.trace("t1", 0, {"capture": 1, "frame": 0, "t": 0, "edges": b"", "windows": b""})
    cs.flush()
    cs.close()
    assert baulk(["sensors", "export", "--table", "t9", str(tmp_path / "o"), "--store",
                  str(tmp_path / "s.db")]) == 1  # fmt: skip
    assert "no sensor capture of table 't9'" in capsys.readouterr().err


def test_record_without_a_token_is_refused(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.delenv("BAULK_TOKEN", raising=False)
    assert baulk(["sensors", "record", "--table", "t1"]) == 2
    assert "operator token is needed" in capsys.readouterr().err
