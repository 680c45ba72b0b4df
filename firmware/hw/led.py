# The status LED: steady when the host link is up, a slow blink while it is
# down, a fast blink when something needs the referee (a prompt or an error).
#
# The controller's other lamp rides on the same object: `light`, the pin into
# the table light's relay module or SSR (hardware/light.md), or None where no
# relay is fitted.  It is active low, so the pin's idle high at power-up and
# reset keeps the light off; the app switches it as the host commands
# (protocol/SPEC.md 7.6).  It lives here rather than on the kit because an
# eighteenth attribute would grow the kit's instance dict by 48 bytes of a
# 64 KB heap.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


STEADY = const(0)
SLOW = const(1)  # 1 Hz
FAST = const(2)  # 4 Hz


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
