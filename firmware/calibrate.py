# Colour-sensor calibration (hardware/calibration.md).  On the board:
#   mpremote exec "from baulk.firmware.calibrate import main; main()"
# The handset asks for each ball in turn: hold it in the throat of the pocket
# being calibrated (in front of the sensor, beam broken) and press OK; BACK
# takes the reading again.  The averaged readings become the classifier's
# centroids, the cue ball's brightness its white reference, and everything is
# written to /calibration.json, which the firmware loads at boot.

import json

from . import names
from .hw import colour

SAMPLES = 16


def sample(read, n=SAMPLES, wait=None):
    """Average of n readings (clear, red, green, blue) of one sensor, or None;
    read(out) fills out with one reading, False when the sensor is gone."""
    buf = [0, 0, 0, 0]
    total = [0, 0, 0, 0]
    for _ in range(n):
        if not read(buf):
            return None
        for i in range(4):
            total[i] += buf[i]
        if wait is not None:
            wait(5)  # a fresh integration (4.8 ms)
    return [t // n for t in total]


def centroids_from(readings):
    """(centroids, white) from one averaged raw reading per ball (names.BALLS order)."""
    white = readings[7][0]  # the cue ball: the brightest, the reference
    cl = colour.Classifier(colour.DEFAULT_CENTROIDS, white)
    cents = []
    for r in readings:
        cents.append(list(cl.features(r[0], r[1], r[2], r[3])))
    return cents, white


def save(path, cents, white, threshold=colour.THRESHOLD):
    with open(path, "w") as f:
        json.dump({"centroids": cents, "white": white, "threshold": threshold}, f)


def _show(display, lines):
    fb = display.fb
    fb.fill(0)
    for i in range(len(lines)):
        fb.text(lines[i][:16], 0, 8 * i, 1)
    for p in range(8):
        display.show_page(p)


def main(pocket=0, path="/calibration.json"):
    from time import sleep_ms  # type: ignore[attr-defined]

    from .main import board_module

    hw = board_module().hardware()
    kp = hw.keypad
    readings = []
    ball = 0
    while ball < 8:
        hw.wdt.feed()
        where = "CALIBRATE " + names.POCKETS[pocket]
        _show(hw.display, [where, "hold the", names.BALLS[ball], "in the throat", "", "OK: read"])
        k = kp.get()
        if hw.scan_in_loop:
            kp.scan()
        if k == 16:  # OK
            r = sample(lambda out: hw.pockets.read(pocket, out), SAMPLES, sleep_ms)
            if r is None:
                _show(hw.display, ["sensor not", "answering:", "check wiring"])
                sleep_ms(2000)
                continue
            readings.append(r)
            ball += 1
        sleep_ms(5)
    cents, white = centroids_from(readings)
    save(path, cents, white)
    _show(hw.display, ["CALIBRATED", "saved to", path, "reset the board"])
