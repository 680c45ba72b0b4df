# ESP32 (ESP32-WROOM-32 DevKitC): the second target.  Every pin is here and
# nowhere else; hardware/pinmap.md draws the same table.  The ESP32 has fewer
# free pins than the Pico, so the handset display sits on channel 7 of the
# sensors' multiplexer instead of a bus of its own.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


NAME = "esp32"
ARCH = "xtensawin"  # mpy-cross -march

# Host link: "usb" (UART0 through the board's USB bridge) or "uart" (UART2
# through a full-duplex RS-485 transceiver, hardware/cabling.md).
LINK = "usb"
_UART_ID = const(2)
_UART_TX = const(5)
_UART_RX = const(15)  # strapping pin, fine as RX: the transceiver idles high
BAUD = const(115200)

I2C_SENSORS = (0, 21, 22, 100000)  # bus id, SDA, SCL, clock (long pocket cables)
I2C_DISPLAY = None
DISPLAY_CHANNEL = 7
MUX_ADDR = const(0x70)
DISPLAY_ADDR = const(0x3C)
COLOUR_CHANNELS = (0, 1, 2, 3, 4, 5)

BEAMS = (34, 35, 36, 39, 32, 33)  # tl tr ml mr bl br; 34-39 are input-only:
# The speed beams, wired together (hardware/pinmap.md): GPIO 5, free while
# the link is USB; on RS-485 no pin is left, and the colour sensors'
# brightness alone tells two touching balls apart (the referee is asked more often).
SPEED_BEAMS = 5 if LINK == "usb" else None
BEAM_BROKEN = const(1)  # the beam boards carry their own pull-ups
RAIL = 25
RAIL_CLOSED = const(0)
STRIKE = 26
STRIKE_ACTIVE = const(1)
REST = 27
REST_MOVING = const(1)

KEY_ROWS = (4, 12, 13, 14)  # 12 is a strapping pin: only ever an output here
KEY_COLS = (16, 17, 18, 19, 23)
# The same legends as the Pico (hardware/keypad.md).
KEYMAP = bytes((
    0, 1, 2, 3, 4,
    5, 6, 7, 18, 19,
    8, 9, 10, 11, 12,
    13, 14, 15, 17, 16,
))  # fmt: skip

LED = 2
# The table light: the input of a relay module or SSR (hardware/light.md),
# active low.  GPIO0 is the only pin left; it is a strapping pin that must
# read high at reset, which an active-low input (pulled up through its opto) does.
LIGHT = 0


def table_id(machine):
    """The name in /table_id (hardware/README.md), else one from the chip's id."""
    try:
        with open("/table_id") as f:
            return f.read().strip()[:32]
    except OSError:
        return "esp32-" + "".join("%02x" % b for b in machine.unique_id()[-3:])


def hardware():
    from time import ticks_ms  # type: ignore[attr-defined]

    import machine  # type: ignore[import-not-found]
    from machine import I2C, UART, WDT, Pin, Timer

    from ..hw import kit
    from . import esp32

    def pin_in(n):
        if n >= 34:  # input-only pins have no internal pull resistors
            return Pin(n, Pin.IN)
        return Pin(n, Pin.IN, Pin.PULL_UP)

    def pin_out(n):
        return Pin(n, Pin.OUT, value=1)

    def i2c(spec):
        return I2C(spec[0], sda=Pin(spec[1]), scl=Pin(spec[2]), freq=spec[3])

    def open_link():
        # machine.UART and UsbSerial share any() / readinto() / write().
        if LINK == "uart":
            return UART(_UART_ID, BAUD, tx=_UART_TX, rx=_UART_RX, rxbuf=1024)
        from ..hw.usb_serial import UsbSerial

        return UsbSerial()

    timer = Timer(0)

    def start_timer(period, callback):
        timer.init(period=period, mode=Timer.PERIODIC, callback=callback)

    def make_wdt(ms):
        return WDT(timeout=ms)

    return kit.assemble(
        esp32,
        pin_in,
        pin_out,
        i2c,
        open_link(),
        make_wdt,
        ticks_ms,
        table_id(machine),
        "",
        start_timer,
    )
