"""The club's staff: who may do what, and the record of what each did.

Owns: the roles and the one table of which role may use which route
(``roles``), passwords and PINs hashed with argon2 (``passwords``), the rules
for names, passwords and PINs (``accounts``), the accounts, API tokens,
sign-ins and trusted devices the daemon holds in memory and writes through
the store's writer (``registry``), the activity log's rows and its CSV
(``activity``), and the check of a day's bills against the tables' signed
record (``takings``, ``baulk verify --day``).

May import: ``club``, ``referee``, ``store`` and the shared modules: never
``config``, ``venue``, ``web`` or ``cli`` (the web side and the commands use
this package, not the other way round).
"""
