# The status LED: steady when the host link is up, a slow blink while it is
# down, a fast blink when something needs the referee (a prompt or an error).

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


STEADY = const(0)
SLOW = const(1)  # 1 Hz
FAST = const(2)  # 4 Hz


class StatusLed:
    def __init__(self, pin):
        self.pin = pin
        self.mode = SLOW
        self.lit = -1

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
