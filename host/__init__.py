"""Host side of baulk: CLI, daemon, store, web boards, simulator.

Its one import name is ``baulk.host``.  Imported by its folder's name from the
repository root, every module would be loaded a second time, with classes that
are not the same objects.
"""

if __name__ != "baulk.host":
    raise ImportError(f"import baulk.host, not {__name__}")
