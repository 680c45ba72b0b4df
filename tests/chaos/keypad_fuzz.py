"""Random keypad presses into the whole firmware (tests/chaos/test_fuzz.py
runs a short form, bench/chaos_keypad.py a million): the real firmware on the
simulated board in virtual time, a host acking on the serial line, keys
chosen at random from the whole keypad (with a stray sensor event now and
then).  Never a crash; after every press the engine's state holds every
invariant of tests/test_engine_properties.py and is plain JSON."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from baulk.firmware import keypad_flow as kf
from baulk.firmware import names
from baulk.firmware.sim.board import SimBoard
from baulk.protocol import messages
from baulk.protocol.host_catalogue import event_result
from tests.chaos.power_loss import Host
from tests.test_engine_properties import check_invariants


def run(
    seed: int, presses: int, check_every: int = 1, through_matrix_every: int = 50
) -> dict[str, Any]:
    import tempfile

    rng = random.Random(seed)
    flash = tempfile.mkdtemp(prefix="baulk-keys-")
    board = SimBoard(flash=flash, tick_ms=5)
    board.boot()
    host = Host(board)
    board.on_tick = host.pump
    board.settle(1500)
    key_names = kf.KEY_NAMES.split()
    keys = len(key_names)
    counts: Counter[str] = Counter()
    checked = 0
    for i in range(presses):
        app = board.app
        k = rng.randrange(keys)
        if i % through_matrix_every == 0:  # the whole path: matrix scan, debounce
            board.press(key_names[k], hold=30, bounce=rng.choice((0, 3)))
            board.advance(45)
        else:
            app.flow.key(k)
            board.advance(board.tick_ms)
        r = rng.random()
        if r < 0.01:
            board.pot(rng.randrange(6), rng.randrange(len(names.BALLS)))
            board.advance(40)
        elif r < 0.015:
            board.strike()
            board.advance(10)
        elif r < 0.02:
            board.moving(rng.randint(5, 50))
            board.advance(board.hw.rest.quiet_ms + 60)
        if i % check_every == 0:
            e = app.engine
            if e.active:
                state = e.state()
                check_invariants(e, state)
                json.dumps(state)
                checked += 1
    app = board.app
    j = app.journal
    board.settle(3000)
    for _seq, body in host.delivered:
        counts[messages.wire_to_event(body).get("ev", "?")] += 1
    return {
        "presses": presses,
        "states_checked": checked,
        "events_journaled": j.next - 1,
        "events_refused": sum(1 for _s, b in host.delivered if event_result(b)[1]),
        "matches_started": sum(1 for _s, b in host.delivered if _is_match(b)),
        "host_got": len(host.delivered),
        "journal_lost": j.lost,
        "frame": app.engine.frame,
        "by_event": dict(counts.most_common()),
    }


def _is_match(body: dict[Any, Any]) -> bool:
    return messages.wire_to_event(body).get("ev") == "match" and not event_result(body)[1]
