"""The statistics' tables: projections of the events like ``frames`` and
``breaks``, written in the transaction of the event that made them
(:mod:`.stats_writer`) and made again by ``baulk rebuild``.

* ``players``: the registry, one row per player key (host/store/player_names.py):
  the newest spelling of the name, its words for a search, first and last seen.
* ``match_players``: who played which match, on which side (``member``: the
  partner's index in doubles), and whether he won it once it is over.
* ``player_frames``: one row per player and finished frame: the figures of
  host/referee/frame_figures.py.  ``shots`` holds the frame's shot times in ms as
  unsigned 32-bit little-endian integers (``array('I')``): the player page
  reads a thousand matches' worth of them at once.
* ``player_fouls``: a player's fouls in a frame, one row per kind.
* ``frame_accounts``: the ball accounting of each row of ``frames``.

The per-player tables are keyed by the player first (``WITHOUT ROWID``):
one player's rows lie together on disk, so his page reads a few pages, not
one page per frame, from a cold store.
"""

STATS_SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    words TEXT NOT NULL,
    first_ms INTEGER NOT NULL,
    last_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS match_players (
    player_key TEXT NOT NULL,
    match_id TEXT NOT NULL,
    side INTEGER NOT NULL,
    member INTEGER NOT NULL,
    name TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    won INTEGER,
    PRIMARY KEY (player_key, match_id, side, member)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS match_players_match ON match_players (match_id);
CREATE TABLE IF NOT EXISTS player_frames (
    player_key TEXT NOT NULL,
    match_id TEXT NOT NULL,
    frame INTEGER NOT NULL,
    side INTEGER NOT NULL,
    member INTEGER NOT NULL,
    name TEXT NOT NULL,
    won INTEGER NOT NULL,
    frame_ms INTEGER,
    strokes INTEGER NOT NULL,
    shots BLOB NOT NULL,
    visits INTEGER NOT NULL,
    visit_points INTEGER NOT NULL,
    breaks_10 INTEGER NOT NULL,
    breaks_20 INTEGER NOT NULL,
    breaks_50 INTEGER NOT NULL,
    breaks_100 INTEGER NOT NULL,
    high_break INTEGER NOT NULL,
    fouls INTEGER NOT NULL,
    foul_points INTEGER NOT NULL,
    PRIMARY KEY (player_key, match_id, frame, side, member)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS player_frames_match ON player_frames (match_id, frame);
CREATE TABLE IF NOT EXISTS player_fouls (
    player_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    match_id TEXT NOT NULL,
    frame INTEGER NOT NULL,
    side INTEGER NOT NULL,
    member INTEGER NOT NULL,
    count INTEGER NOT NULL,
    points INTEGER NOT NULL,
    PRIMARY KEY (player_key, kind, match_id, frame, side, member)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS player_fouls_match ON player_fouls (match_id, frame);
CREATE TABLE IF NOT EXISTS frame_accounts (
    match_id TEXT NOT NULL,
    frame INTEGER NOT NULL,
    reds INTEGER NOT NULL,
    reds_down INTEGER NOT NULL,
    colours_down INTEGER NOT NULL,
    respots INTEGER NOT NULL,
    returned INTEGER NOT NULL,
    sensor INTEGER NOT NULL,
    keyed INTEGER NOT NULL,
    pockets TEXT NOT NULL,
    keyed_pots TEXT NOT NULL,
    PRIMARY KEY (match_id, frame)
);
"""

# Every table above, emptied by ``baulk rebuild`` before it projects again.
STATS_TABLES = ("players", "match_players", "player_frames", "player_fouls", "frame_accounts")
