"""Backups of the store (docs/VENUE.md, "Backups"): the store replicated to
a second disk, a NAS share or another PC as it is written, and put back after
a disk dies.

A backup never slows the score: it runs in its own process (``baulk
backup``), reads the store file through connections of its own (SQLite's WAL
lets readers run beside the one writer), and never writes to it.  What the
store lost after the replica's last copy, the tables send again from their
journals (protocol/SPEC.md, "Handshake").

Owns: the replication that runs beside the daemon (``replicate``: Litestream
as a supervised child process, or SQLite's online-backup snapshots on a
schedule and at the end), the Litestream tool and its replica
(``litestream``), SQLite's online backup API (``snapshots``), and putting a
replica back in the store's place, checked (``restore``).

May import: ``store``, ``config`` and the shared modules; never the daemon,
the web side or a command.
"""
