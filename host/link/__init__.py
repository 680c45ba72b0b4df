"""The link layer: one serial link per table, and the pool that finds the
tables' ports (docs/DESIGN.md, "The journey of one pot", steps 7 and 8).

Owns: the port (``port``: pyserial, non-blocking, the pool that finds ports by
USB serial number or VID/PID) and the channel (``channel``: the protocol
session run over the port, reconnection with backoff, acks only once the
store says so).

May import: ``baulk.protocol``, and the shared modules (the log's escaping);
nothing else of the host.  The daemon is reached through the
:class:`~baulk.host.link.channel.ChannelHandler` protocol it implements.
"""
