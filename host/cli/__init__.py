"""The ``baulk`` command line: one module a command, and what the
long-running ones share.

Owns: the parser and the dispatch (``main``), ``baulk run`` and ``rebuild``
(``run``), ``demo``, ``board``, ``firmware``, ``verify`` (and ``--day``), ``replay``,
``users`` (the staff accounts), and the
logging, stop signal and daemon start the long-running commands share
(``service``).

May import: everything.  Nothing imports it, and nothing but ``main`` imports
a command.
"""
