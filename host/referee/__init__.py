"""The rules on the host: the shadow referee and everything worked out from
the device's events by the very same rules engine.

Owns: the shadow referee (``shadow``) and the play it keeps
(``match_play``), what a finished frame leaves behind (``frame_figures``),
the pockets' disagreement log (``sensors``), ``baulk rebuild``'s work
(``rebuild``), match reports and their statistics' HTML (``reports``,
``stats_html``), and the check of a record against the table's signed
checkpoints (``verify``, docs/LEDGER.md).

May import: ``baulk.firmware``, ``baulk.protocol``, ``baulk.host.errors``,
``baulk.host.sides`` and ``baulk.host.store``.
"""
