"""Table time and billing (docs/BILLING.md): what the club charges for, and
the books it keeps.

Owns: money in minor units and how each currency prints (``money``), the PC's
clocks for billed time (``clock``), the config's ``[billing]``, ``[[tariff]]``
and ``[[item]]``, declared, and the tariffs read from them (``tariffs``), a
session's bill worked out from stored rows (``bills``), the table sessions at
run time and the light that follows them (``sessions``), and receipts, the
daily report and the CSV exports (``views``).

May import: ``baulk.firmware``, ``baulk.protocol``, the shared modules
(``errors``, ``sides``, ``settings_schema``), ``store`` and ``referee``.  The daemon it runs in is
reached through the :class:`~baulk.host.club.sessions.Venue` protocol, never
imported.
"""
