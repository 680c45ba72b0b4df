# The hardware watchdog: the main loop feeds it once per pass, so a hung loop
# (a stuck I2C bus, an endless loop) resets the board; the journal then resumes
# the frame.  Long jobs (replaying the journal at boot) call feed() as they go.


class Watchdog:
    timeout_ms = 5000  # RP2040 allows up to 8388 ms, the ESP32 more

    def __init__(self, make_wdt):
        """make_wdt(timeout_ms): machine.WDT(timeout=...) or the simulator's."""
        self.wdt = make_wdt(self.timeout_ms)

    def feed(self):
        self.wdt.feed()
