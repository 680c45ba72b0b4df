# The USB CDC port as the host link (the default on the Pico): the same
# any() / readinto() / write() face as machine.UART.  The REPL's Ctrl-C is
# switched off, since 0x03 is an ordinary byte in our frames.

import select
import sys


class UsbSerial:
    def __init__(self):
        import micropython

        micropython.kbd_intr(-1)
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)

    def any(self):
        return 1 if self.poller.poll(0) else 0

    def readinto(self, buf):
        n = 0
        while n < len(buf) and self.poller.poll(0):
            b = self.inp.read(1)
            if not b:
                break
            buf[n] = b[0]
            n += 1
        return n

    def write(self, data):
        return self.out.write(data)
