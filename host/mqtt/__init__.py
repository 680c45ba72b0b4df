"""The MQTT side of a venue with many hosts (docs/MQTT.md).

Owns:

* :mod:`.wire` — topics and payloads, the same on both sides of the broker;
* :mod:`.connection` — one paho session to the broker (URL, TLS, credentials);
* :mod:`.bridge` — ``baulk run --mqtt``: a host's stored events to the broker;
* :mod:`.mirror` — ``baulk board``: boards served from the broker alone.

A daemon without ``--mqtt`` never imports this package, and paho with it.

May import: everything before the web side (``config``, ``store``, ``venue``
and the rest); never ``web`` or ``cli``.
"""
