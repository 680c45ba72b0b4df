"""The pockets against a modelled table: how often the firmware records a pot
as the right ball by itself, asks, or gets it silently wrong.

    .venv/bin/python bench/pockets.py                      # 10,000 pots per table
    .venv/bin/python bench/pockets.py --pots 1200 --seed 3 --baseline /tmp/baulk-main
    .venv/bin/python bench/pockets.py --pots 300 --micropython 30 --json

The whole firmware runs on the simulated board (bench/mp_pockets.py, one
process per table) with a test host that sets up a match; balls go through the
pockets as firmware/sim/pocket_model.py has them (the TCS34725, the beams, the
room), after the firmware's own calibration (firmware/calibrate.py: every ball
dropped through every pocket DROPS times, quiet room, reference set).  Each
trial opens a stroke (strike sensor), sends its balls, lets the referee
answer what the handset asks (the true ball, or BACK when no ball went in),
lets the balls rest and takes the stroke back (UNDO), so the engine stays in
play at the frame's start.  Scoring: bench/pockets_score.py.

Cases (each at random speeds 0.5-2.5 m/s, random places in the collar's slot:
offsets from beam A's line within +-1.75 mm and 10.25-13.75 mm from the
colour sensor, hardware/wiring.md; random spin and orientation):

  clean    the reference set, quiet room
  other    another ball set (BallSet(seed)), chalk on 30 % of the balls, wear
  room     LED 10 % dimmer, 150 lx of ambient leak at 30 % 100 Hz flicker,
           highlights x1.5
  two      two balls into one pocket: touching, 20-60 ms apart (leading edge
           to leading edge, and never closer than 0.5-10 mm behind the
           first: a ball cannot be inside another), or an in-off (the white
           with a colour)
  chatter  beam glitches from vibration (10/s a beam), a ball back up from the
           net through beam B only (30 %), the table bumped (20 %; 10 % of the
           trials are a bump alone, no ball); for the old throat beam also
           rattles in the jaws (20 %: 1-3 breaks of 5-8 ms before the drop)
           and bounce-outs (5 %: the throat beam broken, no ball drops)
  hard     only red, brown, pink, black, white, yellow, in the room case's room

--baseline TREE runs the same plans against another checkout's firmware (the
throat beam and the held-still calibration of before; made with `git worktree
add /tmp/baulk-main 07cba73`), with this tree's model chip in its board.
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pockets_score import GOAL_ASKED, GOAL_COUNTED, GOAL_SILENT, Tally

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PLAYER = HERE / "mp_pockets.py"
CASES = ("clean", "other", "room", "two", "chatter", "hard")
BALLS = ("red", "yellow", "green", "brown", "blue", "pink", "black", "white")
HARD = (0, 3, 5, 6, 7, 1)
ROOM = {"led": 0.9, "ambient": 150.0, "flicker_depth": 0.3, "flicker_hz": 100.0, "highlight": 1.5}
CHATTER = {"vibration": 10.0}
# The collar's bore (hardware/wiring.md): a 56 x 62 mm slot, so beam A cuts a
# ball within 1.75 mm of its centre, and the ball's surface is 10.25-13.75 mm
# from the colour sensor's window (12 mm centred).
PLAY = 1.75  # the offset from beam A's line either side, mm
GAPS = (10.25, 13.75)  # the sensor window to the ball's surface, mm


def _ball(r: random.Random, ball: int, **extra: Any) -> dict[str, Any]:
    out = {
        "ball": ball,
        "v": round(r.uniform(0.5, 2.5), 4),
        "offset": round(r.uniform(-PLAY, PLAY), 3),
        "gap": round(r.uniform(*GAPS), 3),
        "phase": round(r.uniform(0.0, 2 * math.pi), 4),
        "spin": round(r.uniform(0.0, 0.1), 4),
    }
    out.update(extra)
    return out


def plan(case: str, i: int, seed: int) -> dict[str, Any]:
    """Trial i of a case: what goes into which pocket, and what else happens
    (times relative to the first ball's leading edge reaching beam A)."""
    r = random.Random(f"{seed}:{case}:{i}")
    p: dict[str, Any] = {"i": i, "case": case, "pocket": r.randrange(6), "room": None}
    p["seed"] = r.randrange(1 << 30)
    if case == "clean":
        p["balls"] = [_ball(r, r.randrange(8))]
    elif case == "other":
        b = r.randrange(8)
        chalk = round(r.uniform(0.02, 0.2), 3) if r.random() < 0.3 else 0.0
        p["balls"] = [_ball(r, b, set=1000 + seed, chalk=chalk, wear=round(r.uniform(0, 0.5), 3))]
    elif case == "room":
        p["room"] = ROOM
        p["balls"] = [_ball(r, r.randrange(8))]
    elif case == "hard":
        p["room"] = ROOM
        p["balls"] = [_ball(r, r.choice(HARD))]
    elif case == "two":
        kind = r.random()
        if kind < 2 / 3:
            a, b = r.randrange(8), r.randrange(8)
            while b == a and a:  # two reds, but one of each other ball on a table
                b = r.randrange(8)
        else:  # an in-off: the white with a colour
            a, b = 7, r.randrange(7)
            if r.random() < 0.5:
                a, b = b, a
        first = _ball(r, a)
        touching = kind < 1 / 3 or (kind >= 2 / 3 and r.random() < 0.5)
        if touching:
            second = _ball(r, b, touching=True)
        else:
            second = _ball(r, b, dt=round(r.uniform(20, 60), 2))
            second["v"] = round(first["v"] * r.uniform(0.85, 1.15), 4)
            # Balls do not pass through each other: 20 ms between leading
            # edges is less than one ball's passage below 2.6 m/s, so a
            # second ball planned that soon comes right behind the first,
            # this far from it (mm): the near-touching pairs.
            second["space"] = round(r.uniform(0.5, 10.0), 2)
        p["balls"] = [first, second]
        p["kind"] = "touching" if touching else "apart"
        p["in_off"] = kind >= 2 / 3
    elif case == "chatter":
        p["room"] = CHATTER
        x = r.random()
        if x < 0.10:
            p["balls"] = []
            p["bump"] = [round(r.uniform(0, 200), 1), 40, 300.0]
        elif x < 0.15:
            p["balls"] = []
            p["bounce_out"] = [0.0, round(r.uniform(10, 25), 1)]  # the throat only
        else:
            p["balls"] = [_ball(r, r.randrange(8))]
            if r.random() < 0.3:
                p["bounce_b"] = [round(r.uniform(150, 400), 1), round(r.uniform(30, 65), 1)]
            if r.random() < 0.2:
                p["bump"] = [round(r.uniform(-100, 300), 1), 40, 300.0]
            if r.random() < 0.2:  # rattles in the jaws: the old throat beam only
                k = r.randint(1, 3)
                p["rattles"] = sorted(
                    [round(r.uniform(-160, -25), 1), round(r.uniform(5, 8), 1)] for _ in range(k)
                )
    else:
        raise ValueError(case)
    return p


def plans(cases: list[str], pots: int, seed: int) -> list[dict[str, Any]]:
    per = -(-pots // len(cases))
    return [plan(c, i, seed) for c in cases for i in range(per)]


def player_env(tree: Path | None) -> dict[str, str]:
    """The environment in which `baulk` is the firmware of `tree` (None: this checkout)."""
    env = dict(os.environ)
    if tree is None:
        return env
    pkg = Path(tempfile.mkdtemp(prefix="baulk-old-pkg-")) / "baulk"
    pkg.mkdir()
    for part in ("firmware", "protocol"):
        (pkg / part).symlink_to(tree / part)
    env["PYTHONPATH"] = str(pkg.parent)
    return env


def snapshot(tree: Path) -> tuple[Path, str]:
    """A copy of the tree's firmware and protocol (with the model in
    firmware/sim), so that every player of one run plays the same firmware
    while others edit the checkout; and a hash of its sources."""
    dest = Path(tempfile.mkdtemp(prefix="baulk-pockets-fw-"))
    atexit.register(shutil.rmtree, dest, True)
    h = hashlib.sha1()
    for part in ("firmware", "protocol"):
        shutil.copytree(
            tree / part, dest / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
        for f in sorted((dest / part).rglob("*.py")):
            h.update(str(f.relative_to(dest)).encode() + b"\0" + f.read_bytes())
    return dest, h.hexdigest()[:12]


def run_player(
    spec: dict[str, Any], tree: Path | None, label: str, progress: bool
) -> dict[str, Any]:
    """Run bench/mp_pockets.py under CPython; its trials, calibration and end."""
    with tempfile.TemporaryDirectory(prefix="baulk-pockets-") as tmp:
        spec = dict(spec)
        spec["flash"] = str(Path(tmp) / "flash")
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, str(PLAYER), str(spec_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=player_env(tree),
            cwd=str(HERE),
        )
        return collect(proc, label, progress, started, len(spec["plans"]))


def collect(
    proc: subprocess.Popen[str], label: str, progress: bool, started: float, n: int
) -> dict[str, Any]:
    out: dict[str, Any] = {"trials": [], "cal": None, "end": None}
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("#cal "):
            out["cal"] = json.loads(line[5:])
            out["calibrated_s"] = round(time.monotonic() - started, 1)
        elif line.startswith("#end "):
            out["end"] = json.loads(line[5:])
        elif line.startswith("#"):
            out.setdefault("notes", []).append(line[1:].strip())
        elif line.strip():
            out["trials"].append(json.loads(line))
            k = len(out["trials"])
            if progress and k % 500 == 0:
                el = time.monotonic() - started
                print(f"  [{label}] {k}/{n} trials, {el:.0f} s", file=sys.stderr, flush=True)
    err = proc.stderr.read() if proc.stderr else ""
    if proc.wait() != 0:
        raise RuntimeError(f"{label}: the player failed:\n{err[-4000:]}")
    out["seconds"] = round(time.monotonic() - started, 1)
    return out


def run_micropython(spec: dict[str, Any], cal: dict[str, Any], tree: Path) -> dict[str, Any]:
    from baulk.host.sim import micropython

    with tempfile.TemporaryDirectory(prefix="baulk-pockets-mp-") as tmp:
        lib = Path(tmp) / "lib"
        (lib / "baulk").mkdir(parents=True)
        (lib / "baulk" / "__init__.py").write_text("")
        for part in ("firmware", "protocol"):
            (lib / "baulk" / part).symlink_to(tree / part)
        spec = dict(spec)
        spec["flash"] = str(Path(tmp) / "flash")
        cal_path = Path(tmp) / "calibration.json"
        cal_path.write_text(json.dumps(cal))
        spec["calibration"] = str(cal_path)
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        started = time.monotonic()
        done = micropython.run(
            PLAYER,
            [str(spec_path)],
            files=[spec_path, cal_path, Path(spec["tests"]) / "mp_firmware.py"],
            heap=256 << 20,
            timeout=7200,
            lib=lib,
        )
        if done.returncode != 0:
            raise RuntimeError("MicroPython run failed:\n" + done.stderr.decode()[-4000:])
        trials = [
            json.loads(x)
            for x in done.stdout.decode().split("\n")
            if x.strip() and not x.startswith("#")
        ]
        return {"trials": trials, "seconds": round(time.monotonic() - started, 1)}


def tallies(trials: list[dict[str, Any]], cases: list[str]) -> dict[str, Tally]:
    out = {c: Tally() for c in cases}
    total = Tally()
    for t in trials:
        out[t["case"]].add(t)
    for c in cases:
        total.merge(out[c])
    out["overall"] = total
    return out


HEAD = ("pots", "counted", "identity", "asked", "silent wrong", "missed", "extra")


def row(name: str, t: Tally) -> str:
    return (
        f"| {name} | {t.pots} | {t.counted} ({t.pct(t.counted):.2f} %) | "
        f"{t.identity} ({t.pct(t.identity):.2f} %) | {t.asked} ({t.pct(t.asked):.2f} %) | "
        f"{t.silent} ({t.pct(t.silent):.2f} %) | {t.missed} | {t.extra} |"
    )


def confusion_text(c: Counter[tuple[str, str]]) -> str:
    if not c:
        return "none"
    return ", ".join(f"{t}→{r} {n}" for (t, r), n in c.most_common())


def distances(cal: dict[str, Any] | None, pocket: int, f: list[int]) -> dict[str, int] | None:
    """The classifier's distance of features f to each ball, from a
    calibration (version 2): a copy of firmware/hw/colour.py's classify()
    arithmetic, for the report only (None when the calibration is another kind)."""
    if not cal or cal.get("version") != 2:
        return None
    from baulk.firmware.hw import colour

    cl = colour.Classifier(cal["centroids"], cal["spread"])  # as the board keeps them: bytes
    m = cl.means
    s = cl.spread
    out = {}
    for ball in range(8):
        i = pocket * 32 + ball * 4
        d = 0
        for k in range(3):
            sd = s[ball * 4 + k] << 1
            q = (f[k] - (m[i + k] << 2)) * 8 // (sd if sd > 10 else 10)
            d += q * q
        lum = (m[i + 3] << 3) + 4
        x = f[3] + 4
        r16 = x * 16 // lum if x > lum else lum * 16 // x
        tol = (s[ball * 4 + 3] << 3) * 16 // lum
        q = (r16 - 16) * 8 // (tol if tol > 6 else 6)
        out[BALLS[ball]] = d + q * q
    return out


def examples(trials: list[dict[str, Any]], plans_by: dict[tuple[str, int], dict[str, Any]],
             most: int = 12, cal: dict[str, Any] | None = None) -> list[str]:  # fmt: skip
    """The silent wrongs, with what the detector saw."""
    from pockets_score import judge

    lines = []
    for t in trials:
        v = judge(t)
        if not v.silent:
            continue
        p = plans_by[(t["case"], t["i"])]
        balls = ", ".join(
            f"{BALLS[b['ball']]} {b['v']:.2f} m/s off {b['offset']:+.1f} mm"
            + (f" chalk {b['chalk']}" if b.get("chalk") else "")
            + (f" wear {b['wear']}" if b.get("wear") else "")
            + (" touching" if b.get("touching") else "")
            + (f" +{b['dt']} ms" if b.get("dt") else "")
            for b in p["balls"]
        )
        extra = [k for k in ("bump", "bounce_b", "rattles", "bounce_out") if p.get(k)]
        lines.append(
            f"{t['case']} #{t['i']} pocket {t['pocket']}: {balls or 'no ball'}"
            f"{' + ' + '/'.join(extra) if extra else ''}; wrong {v.silent}; recorded "
            f"{t['recorded']}; seen {json.dumps(t['seen'])}"
        )
        for seen in t["seen"]:
            for h, hump in enumerate(seen.get("humps", [])):
                d = distances(cal, seen["pocket"], hump[0])
                if d is not None:
                    near = sorted(d.items(), key=lambda x: x[1])[:3]
                    lines[-1] += f"; hump {h} distances {near}"
        if len(lines) >= most:
            break
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pots", type=int, default=10000, help="pots per table, over the cases")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument(
        "--tables",
        choices=("both", "speed", "plain"),
        default="both",
        help="speed: the Pico's map, with the speed beams; plain: SPEED_BEAMS=None",
    )
    ap.add_argument("--baseline", type=Path, default=None, help="another checkout's firmware")
    ap.add_argument("--micropython", type=int, default=0, metavar="N",
                    help="the first N pots of --mp-case under MicroPython too")  # fmt: skip
    ap.add_argument("--mp-case", default="two")
    ap.add_argument(
        "--traces",
        type=Path,
        default=None,
        help="replay recorded traces (baulk sensors export) instead of the model",
    )
    ap.add_argument(
        "--calibration",
        type=Path,
        default=None,
        help="with --traces: the table's calibration.json (default: the firmware's)",
    )
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--save", type=Path, default=None, help="write the JSON figures here too")
    ap.add_argument("--examples", type=int, default=12)
    ap.add_argument("--jobs", type=int, default=1, help="players side by side (one per core)")
    args = ap.parse_args()
    if args.traces is not None:
        # Recorded traces (`baulk sensors export`) through the firmware's own
        # detector, scored by the same measures (bench/trace_replay.py).
        from trace_replay import replay_dir

        try:
            res = replay_dir(args.traces, args.calibration)
        except (OSError, ValueError) as e:
            sys.exit(f"--traces: {e}")
        if args.json:
            print(json.dumps(res))
            return
        o = res["overall"]
        print(f"# Pockets against recorded traces: {args.traces} ({len(res['files'])} captures)\n")
        print("| case | " + " | ".join(HEAD) + " |")
        print("| --- " * (len(HEAD) + 1) + "|")
        for name, f in res["files"].items():
            x = f["figures"]
            print(f"| {name} | {x['pots']} | {x['counted']} | {x['identity']} | {x['asked']} | "
                  f"{x['silent_wrong']} | {x['missed']} | {x['extra']} |")  # fmt: skip
        print(f"\noverall: counted {o['counted_pct']} %, silent wrong {o['silent_wrong_pct']} %, "
              f"asked {o['asked_pct']} %; decided as the live run did: {res['as_live']} of "
              f"{res['compared']}")  # fmt: skip
        return
    cases = [c for c in args.cases.split(",") if c]
    for c in cases:
        if c not in CASES:
            sys.exit(f"unknown case {c}; the cases: {', '.join(CASES)}")
    command = "bench/pockets.py " + " ".join(sys.argv[1:])
    all_plans = plans(cases, args.pots, args.seed)
    plans_by = {(p["case"], p["i"]): p for p in all_plans}
    progress = not args.json
    tests = str(ROOT / "tests" / "firmware")
    tables = ["speed", "plain"] if args.tables == "both" else [args.tables]
    here, fw_hash = snapshot(ROOT)
    jobs: list[tuple[str, str, dict[str, Any], Path | None]] = []
    for table in tables:
        for c in cases:
            spec = {"speed_beams": table == "speed", "tests": tests, "calibrate_seed": args.seed,
                    "plans": [p for p in all_plans if p["case"] == c]}  # fmt: skip
            jobs.append((table, c, spec, here))
    base_hash = None
    if args.baseline is not None:
        tree, base_hash = snapshot(args.baseline.resolve())
        for c in cases:
            spec = {"speed_beams": False, "old": True, "model": str(here / "firmware" / "sim"),
                    "tests": str(args.baseline.resolve() / "tests" / "firmware"),
                    "calibrate_seed": args.seed,
                    "plans": [p for p in all_plans if p["case"] == c]}  # fmt: skip
            jobs.append(("baseline", c, spec, tree))
    started = time.monotonic()
    # Each case on its own board, calibrated the same way (the same seed): a
    # case that jams the firmware does not spill into the next one.
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        done = list(pool.map(lambda j: run_player(j[2], j[3], f"{j[0]}/{j[1]}", progress), jobs))
    runs: dict[str, dict[str, Any]] = {}
    for (name, c, _, _), run in zip(jobs, done, strict=True):
        r = runs.setdefault(name, {"trials": [], "seconds": 0.0, "cases": {}, "notes": set()})
        r["trials"].extend(run["trials"])
        r["seconds"] = round(r["seconds"] + run["seconds"], 1)
        r["cases"][c] = {"seconds": run["seconds"], "calibrated_s": run.get("calibrated_s"),
                         "end": run["end"]}  # fmt: skip
        r["notes"].update(run.get("notes", []))
        r["cal"] = run["cal"]
    mp_check = None
    if args.micropython:
        first = [p for p in all_plans if p["case"] == args.mp_case][: args.micropython]
        table = tables[0]
        spec = {"speed_beams": table == "speed", "plans": first, "tests": tests}
        cal = runs[table]["cal"]
        with tempfile.TemporaryDirectory() as tmp:
            cp = Path(tmp) / "cal.json"
            cp.write_text(json.dumps(cal))
            cpy = run_player(dict(spec, calibration=str(cp)), here, "cpython-check", False)
        mp = run_micropython(spec, cal, here)
        same = [a == b for a, b in zip(cpy["trials"], mp["trials"], strict=False)]
        mp_check = {
            "case": args.mp_case,
            "table": table,
            "pots": len(first),
            "compared": len(same),
            "matched": sum(same),
            "all_match": len(same) == len(first) and all(same),
            "first_difference": next(
                ([cpy["trials"][i], mp["trials"][i]] for i, s in enumerate(same) if not s), None
            ),
            "micropython_s": mp["seconds"],
        }
    took = round(time.monotonic() - started, 1)
    jobs_note = f"{args.jobs} player(s) side by side"
    result: dict[str, Any] = {"command": command, "seed": args.seed, "seconds": took, "runs": {},
                              "firmware": fw_hash, "baseline_firmware": base_hash}  # fmt: skip
    for name, run in runs.items():
        t = tallies(run["trials"], cases)
        result["runs"][name] = {
            "seconds": run["seconds"],
            "per_case": run["cases"],
            "notes": sorted(run["notes"]),
            "cases": {c: t[c].figures() for c in [*cases, "overall"]},
        }
    if mp_check is not None:
        result["micropython"] = mp_check
    if args.save is not None:
        result["trials"] = {name: run["trials"] for name, run in runs.items()}
        args.save.write_text(json.dumps(result))
        del result["trials"]
    if args.json:
        print(json.dumps(result))
        return
    print(f"# Pockets against the model: `{command}` (seed {args.seed}), {took} s, {jobs_note}\n")
    print(f"firmware and model sources {fw_hash} (a copy taken at the start)", end="")
    print(f", baseline's {base_hash}\n" if base_hash else "\n")
    print(f"Goal, overall: counted ≥ {GOAL_COUNTED} %, silent wrong ≤ {GOAL_SILENT} %, "
          f"asked ≤ {GOAL_ASKED} %.\n")  # fmt: skip
    titles = {
        "speed": "this tree, with the speed beams (the Pico's map)",
        "plain": "this tree, without speed beams (SPEED_BEAMS=None)",
        "baseline": f"baseline: {args.baseline} (throat beam, held-still calibration)",
    }
    for name, run in runs.items():
        t = tallies(run["trials"], cases)
        cal_s = [v["calibrated_s"] for v in run["cases"].values()]
        print(f"## {titles[name]}: {run['seconds']} s of players (calibration {cal_s[0]} s each)\n")
        for note in sorted(run["notes"]):
            print(f"note: {note}")
        stuck = sum(1 for x in run["trials"] if x.get("stuck"))
        undo = sum(v["end"]["undo_failed"] for v in run["cases"].values() if v["end"])
        print(f"trials left with a pot unjudged after 1 s: {stuck}; ", end="")
        print(f"strokes UNDO did not take back: {undo}\n")
        print("| case | " + " | ".join(HEAD) + " |")
        print("| --- " * (len(HEAD) + 1) + "|")
        for c in [*cases, "overall"]:
            print(row(c, t[c]))
        print(f"\ngoal {'met' if t['overall'].goal_met() else 'NOT met'}; silent wrongs, "
              "true → recorded:")  # fmt: skip
        for c in cases:
            print(f"  {c}: {confusion_text(t[c].confusion)}")
        ex = examples(run["trials"], plans_by, args.examples, run.get("cal"))
        if ex:
            print(f"\nfirst {len(ex)} silent wrongs (what the detector saw):")
            for line in ex:
                print("  " + line)
        print()
    if mp_check is not None:
        print(f"MicroPython spot check: the first {mp_check['pots']} pots of '{mp_check['case']}' "
              f"({mp_check['table']}): {mp_check['matched']} of {mp_check['compared']} decisions "
              f"equal to CPython's ({'all match' if mp_check['all_match'] else 'DIFFER'}), "
              f"{mp_check['micropython_s']} s")  # fmt: skip


if __name__ == "__main__":
    main()
