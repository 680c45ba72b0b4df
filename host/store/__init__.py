"""The venue store: one SQLite file in WAL mode.

Owns:

* ``raw_frames`` keeps the device's frames as they arrived (append-only: a
  trigger refuses UPDATE and DELETE).
* ``events`` keeps every device event once, by ``(table_id, boot_id, seq)``
  (a UNIQUE key; a repeat is ignored, never stored twice).
* ``matches``, ``frames`` and ``breaks`` are projections of the events, written
  in the same transaction as the events that made them; ``baulk rebuild``
  (host/referee/rebuild.py) makes them again from the events alone.
* ``links`` remembers, per table, the device stream's committed sequence
  number, so a restarted daemon resumes the stream where the store ends.
* ``commands`` keeps every operator action before it is sent, with its id;
  the event that answers it carries the id (``events.action``), so the
  actions without an answer are known after a crash and sent again.
* ``staff_*`` keeps the staff's accounts, API tokens, sign-ins and the
  append-only activity log (:mod:`.staff_schema`, :mod:`.staff_queries`).
* ``checkpoints`` keeps the device's signed chain heads; with the event
  bodies (``events.body``) they let ``baulk verify`` check the record
  (docs/LEDGER.md).

The score path comes first: no row of another kind, whatever its value or
the bug that made it, can stop the devices' events from being stored and
acknowledged.  Every row is held to what the store can keep as it is
submitted (:mod:`.edges`); a batch that still fails is narrowed to the row
that fails, which is refused to its caller alone (an event row is never
refused, a projection that fails is dropped with an alert and left for
``baulk rebuild``); while the store cannot write at all, the events wait
(unacknowledged, so the devices keep them) and every other row is refused
at once with :class:`StoreFailing`.

Four modules, one job each: :mod:`.schema` (the tables and how a connection
is opened), :mod:`.edges` (what a row must hold, and the refusals),
:mod:`.writer` (one writer thread, group commit, the projections) and
:mod:`.queries` (every read: the daemon's restore, the web side, the MQTT
bridge); the club's table sessions and bills have theirs beside them
(:mod:`.club_schema`, :mod:`.club_writer`, :mod:`.club_queries`), and so do
the staff's (:mod:`.staff_schema`, :mod:`.staff_queries`).  :mod:`.records`
holds the rows they pass around; another part of the host adds a row kind of
its own as a :class:`~.records.RowWrite` (the staff's :class:`StaffWrite`).
The store knows nothing of the rules engine: what an event made comes to it
as a
:class:`~.records.Projection`.

May import: ``baulk.protocol``, ``baulk.firmware``'s names, and the shared
modules; nothing else of the host.
"""

from .edges import StoreFailing, StoreRefused
from .queries import StoreReader
from .records import (
    Batch,
    BreakResult,
    CheckpointRow,
    CommandRow,
    Disagreement,
    EventRow,
    FrameResult,
    HealthRow,
    LinkRow,
    NameFixRow,
    PocketCheckRow,
    Projection,
    RawRow,
    RowWrite,
    SessionWrite,
    StoredEvent,
)
from .schema import StoreError, connect
from .staff_schema import StaffWrite
from .writer import Changes, GroupCommitter, Store, Written

__all__ = [
    "Batch",
    "BreakResult",
    "Changes",
    "CheckpointRow",
    "CommandRow",
    "Disagreement",
    "EventRow",
    "FrameResult",
    "GroupCommitter",
    "HealthRow",
    "LinkRow",
    "NameFixRow",
    "PocketCheckRow",
    "Projection",
    "RawRow",
    "RowWrite",
    "SessionWrite",
    "StaffWrite",
    "Store",
    "StoreError",
    "StoreFailing",
    "StoreReader",
    "StoreRefused",
    "StoredEvent",
    "Written",
    "connect",
]
