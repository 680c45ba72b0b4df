# Puts the devices together from a board's pin map (boards/pico.py,
# boards/esp32.py).  The board passes the factories for its real pins, buses
# and port; the simulator (sim/board.py) passes virtual ones and so runs this
# very same wiring.  It runs once, at boot: main.py (and the simulator) then
# drop this module and the board's, so that they leave the heap.

from binascii import unhexlify

from . import Kit, StatusLed, colour
from .inputs import EDGE_RAIL, EDGE_STRIKE, EdgeRing, Keypad, PulseFilter, RestSensor
from .pockets import Pockets
from .ssd1306 import Ssd1306

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# The hardware watchdog: the main loop feeds it once per pass, so a hung loop
# (a stuck I2C bus, an endless loop) resets the board and the journal resumes
# the frame; long jobs (replaying the journal at boot) feed it as they go.
_WDT_MS = const(5000)  # RP2040 allows up to 8388 ms, the ESP32 more
_RAIL_HOLD_OFF_MS = const(300)  # one ball rattling on the rail closes the switch several times
_RAIL_WIDTH_MS = const(250)  # longer than this on the rail is a hand, not a ball (hw/inputs.py)
_STRIKE_HOLD_OFF_MS = const(400)  # the piezo rings for a while after the tip hits the ball


def assemble(cfg, pin_in, pin_out, i2c, serial, make_wdt, ticks, table, flash, start_timer=None,
             texts=None):  # fmt: skip
    """cfg: the board module; pin_in(n) / pin_out(n): configured pins;
    i2c((id, sda, scl)): a bus; serial: the host port; make_wdt(ms): the
    watchdog; ticks: time.ticks_ms; flash: directory for the journal;
    start_timer(period_ms, callback): a periodic timer, or None; texts: the
    handset's Persian text file (None: the one built beside the firmware)."""
    ring = EdgeRing(ticks)
    bus = i2c(cfg.I2C_SENSORS)
    speed = cfg.SPEED_BEAMS
    pockets = Pockets([pin_in(n) for n in cfg.BEAMS], ring, cfg.BEAM_BROKEN, bus, cfg.MUX_ADDR,
                      cfg.COLOUR_CHANNELS, None if speed is None else pin_in(speed))  # fmt: skip
    rail = None
    if cfg.RAIL is not None:
        ring.watch(pin_in(cfg.RAIL), EDGE_RAIL)
        rail = PulseFilter(cfg.RAIL_CLOSED, _RAIL_HOLD_OFF_MS, _RAIL_WIDTH_MS)
    strike = None
    if cfg.STRIKE is not None:
        ring.watch(pin_in(cfg.STRIKE), EDGE_STRIKE)
        strike = PulseFilter(cfg.STRIKE_ACTIVE, _STRIKE_HOLD_OFF_MS)
    rest = None if cfg.REST is None else RestSensor(pin_in(cfg.REST), cfg.REST_MOVING)
    rows = [pin_out(n) for n in cfg.KEY_ROWS]
    keypad = Keypad(rows, [pin_in(n) for n in cfg.KEY_COLS], cfg.KEYMAP)
    if start_timer is not None:
        start_timer(keypad.scan_ms, keypad.scan)
    if cfg.DISPLAY_CHANNEL is None:
        display = Ssd1306(i2c(cfg.I2C_DISPLAY), cfg.DISPLAY_ADDR)
    else:  # on a channel of the sensors' multiplexer (saves two pins)
        display = Ssd1306(bus, cfg.DISPLAY_ADDR, pockets, cfg.DISPLAY_CHANNEL)
    return Kit(
        table, ticks, ring, pockets, colour.load(flash + "/calibration.json"),
        rail, strike, rest, keypad, start_timer is None, display,
        StatusLed(pin_out(cfg.LED), None if cfg.LIGHT is None else pin_out(cfg.LIGHT)),
        make_wdt(_WDT_MS), serial, flash + "/journal", load_key(flash + "/device_key"), texts,
    )  # fmt: skip


def load_key(path):
    """The device key: hex in the file `baulk firmware deploy --key` writes
    (docs/LEDGER.md).  A board without one signs with the empty key, which
    no verifier accepts."""
    try:
        with open(path) as f:
            return unhexlify(f.read().strip())
    except (OSError, ValueError):
        return b""
