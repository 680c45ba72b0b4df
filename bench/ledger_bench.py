"""The signed journal's figures (docs/LEDGER.md), each beside a baseline from
the same run.

    .venv/bin/python bench/ledger_bench.py

* per event on the device, under MicroPython (npm WebAssembly port) and
  CPython, on the journal's own code: the hash chain (SHA-256 and a CRC-32
  mark) beside CBOR-encoding the same event, which the journal does anyway,
  and the whole append with its write to flash;
* a checkpoint: Journal.checkpoint (HMAC-SHA256, the write to flash) and the
  HMAC alone;
* what checkpoints add on the wire and in the journal, over a best-of-7
  match played by the firmware on the simulated board;
* `baulk verify` on the host: a stored match checked, events per second,
  beside reading the same rows from the store.

The heap the chain and the action ids cost is in bench/firmware_bench.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import cbor2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baulk.firmware.sim.board import SIM_KEY
from baulk.host.referee.verify import verify_store
from baulk.host.sim import micropython
from baulk.host.store import StoreReader
from baulk.protocol import host_codec, messages
from tests.host.ledger_fixture import device_stream, store_stream

HERE = Path(__file__).resolve().parent


def figures(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in (item.split("=") for item in text.split())}


def stream_records(wire: bytes) -> tuple[dict[int, bytes], dict[int, int]]:
    """(event bodies by seq, checkpoint frames' wire bytes by seq) of what the
    device sent, each once (retransmissions left out)."""
    events: dict[int, bytes] = {}
    checkpoints: dict[int, int] = {}
    for raw, f in host_codec.StreamDecoder().feed_raw(wire):
        if f.error is not None:
            continue
        body = host_codec.body_bytes(raw)
        if f.mtype == messages.EVENT and body is not None:
            events.setdefault(f.seq, body)
        elif f.mtype == messages.CHECKPOINT:
            checkpoints.setdefault(f.seq, len(raw) + 1)
    return events, checkpoints


def main() -> None:
    wire = device_stream(seed=1, best_of=7)
    events, checkpoints = stream_records(wire)
    event_wire = sum(len(b) + 11 for b in events.values())  # header, CRC, COBS, 0x00
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        jsonl = tmp / "bodies.jsonl"
        jsonl.write_text(
            "\n".join(json.dumps(list(cbor2.loads(b).items())) for b in events.values()) + "\n"
        )
        mp = micropython.run(
            HERE / "mp_ledger_time.py", [str(jsonl), "/jr", "20"], files=[jsonl], heap=16 << 20
        )
        assert mp.returncode == 0, mp.stderr.decode()
        m = figures(mp.stdout.decode())
        cp_run = subprocess.run(
            [sys.executable, str(HERE / "mp_ledger_time.py"), str(jsonl), str(tmp / "jr"), "20"],
            capture_output=True,
            text=True,
            check=True,
        )
        c = figures(cp_run.stdout)
        store = tmp / "store.sqlite"
        store_stream(store, wire)
        reader = StoreReader(store)
        match_id = reader.matches()[0]["match_id"]
        t0 = time.perf_counter()
        ledger = reader.ledger(match_id)
        read_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        verdict = verify_store(reader, match_id, bytes.fromhex(SIM_KEY))
        verify_s = time.perf_counter() - t0
        reader.close()
    assert verdict.status == 0, verdict.as_dict()
    assert ledger is not None

    def per(f: dict[str, float], total: str, count: str) -> float:
        return 1000 * f[total] / f[count]

    n_cp = len(checkpoints)
    print(f"A best-of-7 match by the firmware: {len(events)} events, {n_cp} checkpoints.\n")
    print("| figure | measured | baseline (same run) |")
    print("| --- | --- | --- |")
    for name, f in (("MicroPython (wasm)", m), ("CPython", c)):
        print(
            f"| hash chain per event, {name} | {per(f, 'chain_ms', 'events'):.1f} µs "
            f"| CBOR-encoding the same event {per(f, 'encode_ms', 'events'):.1f} µs; "
            f"the whole journal append with its flash write "
            f"{per(f, 'append_ms', 'appended'):.0f} µs |"
        )
        print(
            f"| a checkpoint (HMAC-SHA256, flash write), {name} | "
            f"{per(f, 'checkpoint_ms', 'checkpoints'):.0f} µs | the HMAC alone "
            f"{per(f, 'hmac_ms', 'hmacs'):.0f} µs |"
        )
    cp_bytes = sum(checkpoints.values())
    print(
        f"| checkpoints on the wire | {cp_bytes / len(checkpoints):.0f} B each, "
        f"{cp_bytes / len(events):.1f} B per event | the events themselves: "
        f"{event_wire / len(events):.1f} B per event |"
    )
    print(
        f"| `baulk verify` of the stored match (CPython) | {len(events) / verify_s:,.0f} events/s "
        f"({verify_s * 1000:.0f} ms, the report rebuilt and compared included) | reading the "
        f"same rows from the store: {read_s * 1000:.1f} ms |"
    )
    print()
    print(f"MicroPython: {m}")
    print(f"CPython: {c}")


if __name__ == "__main__":
    main()
