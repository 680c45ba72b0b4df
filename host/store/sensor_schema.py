"""The pockets' sensors in the store (protocol/SPEC.md ``health`` and
``pocket_check``; firmware/app.py's Health and firmware/pocket_check.py):

* ``sensor_health``: the newest counts each table's device sent, one row a
  table (each ``health`` replaces the last: the device keeps the running
  sums on its flash), with the pockets its last check found faulty or weak.
* ``pocket_checks``: every pocket check's result, per pocket, as the device
  sent it in its reliable stream; its event row (``events``, ``name`` NULL)
  keeps the stream's place, this row the result.
* ``sensor_disagreements``: every disagreement between a pocket's sensors
  and the referee, found by host/referee/sensors.py as the shadow referee replays
  the events: a projection like ``breaks``, made again by ``baulk rebuild``.

Stores made before these tables get them when they are opened (CREATE ...
IF NOT EXISTS), with nothing else changed: schema version 2.
"""

SENSOR_SCHEMA = """
CREATE TABLE IF NOT EXISTS sensor_health (
    table_id TEXT PRIMARY KEY,
    rx_ms INTEGER NOT NULL,
    balls TEXT NOT NULL,
    glitches TEXT NOT NULL,
    unclear TEXT NOT NULL,
    corrections TEXT NOT NULL,
    unplaced INTEGER NOT NULL DEFAULT 0,
    faulty INTEGER NOT NULL DEFAULT 0,
    weak INTEGER NOT NULL DEFAULT 0,
    checking INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS pocket_checks (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    rx_ms INTEGER NOT NULL,
    cmd INTEGER,
    t INTEGER,
    verdicts TEXT NOT NULL,
    reasons TEXT NOT NULL,
    break_ms TEXT NOT NULL,
    confidence TEXT NOT NULL,
    read TEXT NOT NULL,
    UNIQUE (table_id, boot_id, seq)
);
CREATE TABLE IF NOT EXISTS sensor_disagreements (
    id INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    match_id TEXT,
    frame INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    pocket TEXT,
    sensor_ball TEXT,
    keyed_ball TEXT
);
CREATE INDEX IF NOT EXISTS sensor_disagreements_table ON sensor_disagreements (table_id, id);
"""
