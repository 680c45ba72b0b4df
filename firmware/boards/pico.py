# Raspberry Pi Pico (RP2040): the reference board.  Every pin is here and
# nowhere else; hardware/pinmap.md draws the same table.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


NAME = "pico"
ARCH = "armv6m"  # mpy-cross -march

# Host link: "usb" (USB CDC, the default) or "uart" (UART0 through a
# full-duplex RS-485 transceiver for runs over 5 m, hardware/cabling.md).
LINK = "usb"
_UART_ID = const(0)
_UART_TX = const(0)
_UART_RX = const(1)
BAUD = const(115200)

# bus id, SDA, SCL, clock.  The mux gives every pocket cable a bus segment of
# its own (up to ~2.5 m at 100 kHz); the handset cable stays under 2 m at 400 kHz.
I2C_SENSORS = (0, 4, 5, 100000)  # TCA9548A and the six TCS34725
I2C_DISPLAY = (1, 6, 7, 400000)  # the handset's SSD1306, over the handset cable
DISPLAY_CHANNEL = None  # the display has its own bus (no mux channel)
MUX_ADDR = const(0x70)
DISPLAY_ADDR = const(0x3C)
COLOUR_CHANNELS = (0, 1, 2, 3, 4, 5)  # mux channel of each pocket, tl tr ml mr bl br

# The pockets' collars (hardware/wiring.md): a drop beam each, and the six
# speed beams 40 mm below them wired together into GP3, the one pin left
# (None: a table without them, whose referee is asked more often).
BEAMS = (8, 9, 10, 11, 12, 13)  # tl tr ml mr bl br (names.POCKETS order)
SPEED_BEAMS = 3
BEAM_BROKEN = const(1)  # receiver output is high while the beam is blocked
RAIL = 14  # every cushion-rail switch in parallel, to ground
RAIL_CLOSED = const(0)
STRIKE = 15  # piezo comparator output, high pulse on a strike
STRIKE_ACTIVE = const(1)
REST = 16  # motion sensor output, high while balls move
REST_MOVING = const(1)

KEY_ROWS = (17, 18, 19, 20)  # driven low one at a time
KEY_COLS = (21, 22, 26, 27, 28)  # inputs with pull-ups
# Key code at each (row, col), row-major; codes in keypad_flow.py, legends in
# hardware/keypad.md.
KEYMAP = bytes((
    0, 1, 2, 3, 4,  # RED YELLOW GREEN BROWN BLUE
    5, 6, 7, 18, 19,  # PINK BLACK WHITE NOM OFF
    8, 9, 10, 11, 12,  # FOUL MISS FREE AGAIN REPLACE
    13, 14, 15, 17, 16,  # UNDO CONCEDE MENU BACK OK
))  # fmt: skip

LED = "LED"  # the Pico's own LED (GP25; "LED" also works on the Pico W)
# The table light: the input of a relay module or SSR (hardware/light.md),
# active low, so the pin's idle high at power-up and reset keeps it off.
LIGHT = 2


def table_id(machine):
    """The name in /table_id (hardware/README.md), else one from the chip's id."""
    try:
        with open("/table_id") as f:
            return f.read().strip()[:32]
    except OSError:
        return "pico-" + "".join("%02x" % b for b in machine.unique_id()[-3:])


def hardware():
    from time import ticks_ms  # type: ignore[attr-defined]

    import machine  # type: ignore[import-not-found]
    from machine import I2C, UART, WDT, Pin, Timer

    from ..hw import kit

    def pin_in(n):
        return Pin(n, Pin.IN, Pin.PULL_UP)

    def pin_out(n):
        return Pin(n, Pin.OUT, value=1)

    def i2c(spec):
        return I2C(spec[0], sda=Pin(spec[1]), scl=Pin(spec[2]), freq=spec[3])

    def open_link():
        # machine.UART and UsbSerial share any() / readinto() / write().
        if LINK == "uart":
            return UART(_UART_ID, BAUD, tx=Pin(_UART_TX), rx=Pin(_UART_RX), rxbuf=1024)
        from ..hw.usb_serial import UsbSerial

        return UsbSerial()

    timer = Timer(-1)  # a virtual timer: the rp2 port has no hardware timer ids

    def start_timer(period, callback):
        timer.init(period=period, mode=Timer.PERIODIC, callback=callback)

    def make_wdt(ms):
        return WDT(timeout=ms)

    from . import pico

    return kit.assemble(
        pico,
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
