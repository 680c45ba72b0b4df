"""The simulator and the MicroPython runner: everything that stands in for a
real table, and the door to the real MicroPython interpreter.

Owns: the simulated table (``table``: the whole firmware over the simulated
board of ``baulk.firmware.sim``, joined through a pseudo-terminal), realistic
matches as engine inputs (``matches``), and the runner of the npm WebAssembly
MicroPython (``micropython``, ``micropython.mjs``, ``mp_replay``) that the
tests, the benchmarks and ``baulk replay --engine micropython`` share.

May import: ``baulk.firmware`` and ``baulk.protocol`` only; nothing else of
the host.  Tests, benchmarks and the commands import it.
"""
