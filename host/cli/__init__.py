"""The ``baulk`` command line: one module a command, and what the
long-running ones share.

Owns: the parser and the dispatch (``main``), ``baulk run`` and ``rebuild``
(``run``), ``demo``, ``board``, ``firmware``, ``verify`` (and ``--day``), ``replay``,
``users`` (the staff accounts), ``backup`` and ``restore``, and the logging,
the stop signal (and the bound on stopping), the event loop's watch and the
daemon start the long-running commands share (``service``).

May import: everything.  Nothing imports it, and nothing but ``main`` imports
a command.
"""
