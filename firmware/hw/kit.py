# Puts the devices together from a board's pin map (boards/pico.py,
# boards/esp32.py).  The board passes the factories for its real pins, buses
# and port; the simulator (sim/board.py) passes virtual ones and so runs this
# very same wiring.

from binascii import unhexlify

from . import colour
from .beam import PocketBeam
from .keypad import Keypad
from .led import StatusLed
from .rail import RailSwitches
from .ring import EdgeRing
from .ssd1306 import Ssd1306
from .table import RestSensor, StrikeSensor
from .tca9548a import Tca9548a
from .tcs34725 import Tcs34725
from .watchdog import Watchdog


class Kit:
    """Everything the application talks to (rail, strike, rest: None when not fitted)."""

    def __init__(self, table, ticks, ring, beams, colours, classifier, colour_delay_ms, rail,
                 strike, rest, keypad, scan_in_loop, display, led, wdt, serial, flash,
                 key, texts=None):  # fmt: skip
        self.table = table
        self.ticks = ticks
        self.ring = ring
        self.beams = beams
        self.colours = colours
        self.classifier = classifier
        self.colour_delay_ms = colour_delay_ms
        self.rail = rail
        self.strike = strike
        self.rest = rest
        self.keypad = keypad
        self.scan_in_loop = scan_in_loop  # True when no timer scans the keypad
        self.display = display
        self.led = led
        self.wdt = wdt
        self.serial = serial
        self.flash = flash
        self.key = key  # the device key: it signs the journal's checkpoints
        self.texts = texts  # the handset's Persian texts (None: fa.bin beside the firmware)


def assemble(cfg, pin_in, pin_out, i2c, serial, make_wdt, ticks, table, flash, start_timer=None,
             texts=None):  # fmt: skip
    """cfg: the board module; pin_in(n) / pin_out(n): configured pins;
    i2c((id, sda, scl)): a bus; serial: the host port; make_wdt(ms): the
    watchdog; ticks: time.ticks_ms; flash: directory for the journal;
    start_timer(period_ms, callback): a periodic timer, or None; texts: the
    handset's Persian text file (None: the one built beside the firmware)."""
    ring = EdgeRing()
    beams = [
        PocketBeam(pin_in(n), i, ring, ticks, cfg.BEAM_BROKEN) for i, n in enumerate(cfg.BEAMS)
    ]
    bus = i2c(cfg.I2C_SENSORS)
    mux = Tca9548a(bus, cfg.MUX_ADDR)
    colours = [Tcs34725(bus, mux, ch) for ch in cfg.COLOUR_CHANNELS]
    rail = None
    if cfg.RAIL is not None:
        rail = RailSwitches(pin_in(cfg.RAIL), ring, ticks, cfg.RAIL_CLOSED)
    strike = None
    if cfg.STRIKE is not None:
        strike = StrikeSensor(pin_in(cfg.STRIKE), ring, ticks, cfg.STRIKE_ACTIVE)
    rest = None if cfg.REST is None else RestSensor(pin_in(cfg.REST), cfg.REST_MOVING)
    rows = [pin_out(n) for n in cfg.KEY_ROWS]
    keypad = Keypad(rows, [pin_in(n) for n in cfg.KEY_COLS], cfg.KEYMAP)
    if start_timer is not None:
        start_timer(keypad.scan_ms, keypad.scan)
    if cfg.DISPLAY_CHANNEL is None:
        display = Ssd1306(i2c(cfg.I2C_DISPLAY), cfg.DISPLAY_ADDR)
    else:  # on a channel of the sensors' multiplexer (saves two pins)
        display = Ssd1306(bus, cfg.DISPLAY_ADDR, mux, cfg.DISPLAY_CHANNEL)
    return Kit(
        table, ticks, ring, beams, colours, colour.load(flash + "/calibration.json"),
        cfg.COLOUR_DELAY_MS, rail, strike, rest, keypad, start_timer is None, display,
        StatusLed(pin_out(cfg.LED), None if cfg.LIGHT is None else pin_out(cfg.LIGHT)),
        Watchdog(make_wdt), serial, flash + "/journal", load_key(flash + "/device_key"), texts,
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
