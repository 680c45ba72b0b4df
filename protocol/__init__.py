# Wire protocol package: the device-side parts must run under MicroPython.
