"""The referee's handset from the host's side: its Persian, and what the host
sends it.

Owns: the handset's words in Persian (``texts``), their shaping and 1-bit
drawing for the 128 x 64 display (``render``), ``fa.bin``, the Persian text
file ``baulk firmware build`` writes (``font``), and each table's handset kept
in step: its language and the players' names drawn for it (``sync``).

May import: ``baulk.firmware``, ``baulk.protocol``, the shared modules and
``baulk.host.config``.
"""
