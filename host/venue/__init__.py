"""The venue at run time: every table's link, shadow referee, board, desk
and handset, joined to the store.

Owns: the daemon (``daemon``), what the devices say (``devices``), what the
daemon holds per table (``tables``), the operator's actions sent exactly once
(``actions``), and the live boards and their feed (``live``).

May import: every layer before it (``sim`` excepted): ``link``, ``store``,
``referee``, ``club``, ``config``, ``handset`` and the shared modules.  The
web side, MQTT and the commands import it, never the other way round.
"""
