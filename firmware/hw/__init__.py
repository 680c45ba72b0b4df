# The board's devices.  kit.py puts them together at boot and leaves the heap
# afterwards; the Kit it makes stays, so its class lives here.


class Kit:
    """Everything the application talks to (rail, strike, rest: None when not fitted)."""

    def __init__(self, table, ticks, ring, pockets, classifier, colour_delay_ms, rail, strike,
                 rest, keypad, scan_in_loop, display, led, wdt, serial, flash, key,
                 texts=None):  # fmt: skip
        self.table = table
        self.ticks = ticks
        self.ring = ring
        self.pockets = pockets  # the six beams and colour sensors (pockets.py)
        self.classifier = classifier
        self.colour_delay_ms = colour_delay_ms
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
