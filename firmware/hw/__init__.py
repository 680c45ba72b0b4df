# The board's devices.  kit.py puts them together at boot and leaves the heap
# afterwards; the Kit it makes stays, so its class lives here, and so does
# the status LED's (a module of its own costs the heap more than its code).

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


# The status LED: steady when the host link is up, a slow blink while it is
# down, a fast blink when something needs the referee (a prompt or an error).
STEADY = const(0)
SLOW = const(1)  # 1 Hz
FAST = const(2)  # 4 Hz


class Kit:
    """Everything the application talks to (rail, strike, rest: None when not fitted)."""

    def __init__(self, table, ticks, ring, pockets, classifier, rail, strike,
                 rest, keypad, scan_in_loop, display, led, wdt, serial, flash, key,
                 texts=None):  # fmt: skip
        self.table = table
        self.ticks = ticks
        self.ring = ring
        self.pockets = pockets  # the six beams and colour sensors (pockets.py)
        self.classifier = classifier
        self.rail = rail
        self.strike = strike
        self.rest = rest
        self.keypad = keypad
        self.scan_in_loop = scan_in_loop  # True when no timer scans the keypad
        self.display = display
        self.led = led
        self.wdt = wdt  # machine.WDT: the main loop feeds it once per pass
        self.serial = serial
        self.flash = flash
        self.key = key  # the device key: it signs the journal's checkpoints
        self.texts = texts  # the handset's Persian texts (None: fa.bin beside the firmware)


# The controller's other lamp rides on the LED's object: `light`, the pin into
# the table light's relay module or SSR (hardware/light.md), or None where no
# relay is fitted.  It is active low, so the pin's idle high at power-up and
# reset keeps the light off; the app switches it as the host commands
# (protocol/SPEC.md 7.6).
class StatusLed:
    def __init__(self, pin, light=None):
        self.pin = pin
        self.mode = SLOW
        self.lit = -1
        self.light = light

    def update(self, now):
        if self.mode == STEADY:
            on = 1
        elif self.mode == SLOW:
            on = (now // 500) & 1
        else:
            on = (now // 125) & 1
        if on != self.lit:
            self.pin.value(on)
            self.lit = on
