# The simulated board: the devices, the table and the pocket model, for tests
# and benchmarks under CPython and MicroPython alike.
#
# CPython has no framebuf, which the display's driver (hw/ssd1306.py) imports
# as a board's MicroPython gives it: the simulator's pure-Python one stands in
# under that name, so the firmware never imports the simulator.
import sys

try:
    import framebuf  # type: ignore[import-not-found]  # noqa: F401
except ImportError:
    from . import framebuf as _framebuf

    sys.modules["framebuf"] = _framebuf
