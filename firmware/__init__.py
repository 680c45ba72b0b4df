# Firmware package: everything here must run unchanged under MicroPython.
