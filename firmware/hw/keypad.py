# The referee's keypad: a row/column matrix, scanned (not interrupt driven:
# presses are slow: polling is enough) from a hardware timer so that a press registers
# even while the main loop is busy.  Each key is debounced by an integrator: its
# state changes only after `debounce_scans` scans in a row agree, so a bouncing
# key is one press.  Presses go into a small ring the main loop drains.

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_QUEUE = const(16)


class Keypad:
    scan_ms = 5  # timer period
    debounce_scans = 4  # 20 ms of agreement

    def __init__(self, rows, cols, keymap):
        """rows: output pins (idle high); cols: inputs with pull-ups; keymap:
        key code for each (row, col), row-major."""
        self.rows = rows
        self.cols = cols
        self.keymap = keymap
        n = len(rows) * len(cols)
        self.down = bytearray(n)  # debounced state, 1 = pressed
        self.count = bytearray(n)  # scans in a row that disagree with `down`
        self.queue = bytearray(_QUEUE)
        self.head = 0
        self.tail = 0
        self.lost = 0
        for r in rows:
            r.value(1)

    def scan(self, _timer=None):
        # Timer callback: index loops and integer stores only.
        rows = self.rows
        cols = self.cols
        nc = len(cols)
        down = self.down
        count = self.count
        i = 0
        ri = 0
        while ri < len(rows):
            row = rows[ri]
            row.value(0)
            ci = 0
            while ci < nc:
                raw = 1 if cols[ci].value() == 0 else 0
                if raw == down[i]:
                    count[i] = 0
                else:
                    c = count[i] + 1
                    if c >= self.debounce_scans:
                        down[i] = raw
                        count[i] = 0
                        if raw:
                            self._push(self.keymap[i])
                    else:
                        count[i] = c
                ci += 1
                i += 1
            row.value(1)
            ri += 1

    def _push(self, key):
        h = self.head
        n = (h + 1) % _QUEUE
        if n == self.tail:
            self.lost += 1
            return
        self.queue[h] = key
        self.head = n

    def get(self):
        """Next key pressed, or -1."""
        if self.head == self.tail:
            return -1
        k = self.queue[self.tail]
        self.tail = (self.tail + 1) % _QUEUE
        return k
