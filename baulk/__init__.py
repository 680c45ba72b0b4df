"""baulk: snooker table controller and venue scoring.

The repository keeps the design's folders (firmware/, protocol/, host/) at the
top level; this package maps them under one import namespace so that nothing
generic such as ``host`` lands in site-packages.  On the board, the same tree is
deployed as ``/lib/baulk/{firmware,protocol}``, so relative imports work in both.
"""

__version__ = "0.1.0"
