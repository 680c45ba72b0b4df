"""``baulk rebuild``'s work: every table's matches, frames, breaks, ball
accounting and players' figures made again from the stored events alone, by
the same shadow referee that projects them live, so a rebuilt store equals
the live one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from baulk.host.referee.shadow import ShadowReferee
from baulk.host.store import Projection, Store, StoredEvent, StoreReader


def rebuild(path: Path) -> dict[str, dict[str, Any]]:
    """Rebuild the store at ``path``; returns every table's state after its
    last event (with the shadow's count of mismatches).  The daemon must not
    be running."""
    store = Store(path)
    reader = StoreReader(path)
    states: dict[str, dict[str, Any]] = {}

    def replayed(table_id: str) -> Iterator[tuple[StoredEvent, Projection]]:
        shadow = ShadowReferee(table_id)
        for e in list(reader.events(table_id)):
            if e.ev is not None:
                key = (e.boot_id, e.seq)
                yield e, shadow.apply(e.ev, key, e.scores, e.rejected, e.rx_ms, e.src)
        state = dict(shadow.state())
        state["mismatches"] = shadow.mismatches
        states[table_id] = state

    try:
        store.rebuild_projections((t, replayed(t)) for t in reader.table_ids())
    finally:
        reader.close()
        store.close()
    return states
