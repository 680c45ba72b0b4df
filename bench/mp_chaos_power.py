# The tearing flash and the journal under MicroPython: a journal on a
# TearingFlash is cut at every byte of its first append in turn, and must boot
# every time with the event either wholly there or wholly absent.
# Prints key=value figures (run by tests/chaos/test_power_loss.py).
import os

from baulk.firmware import journal
from baulk.firmware.sim.flash import PowerCut, TearingFlash


def wipe(root):
    try:
        for n in os.listdir(root):
            os.remove(root + "/" + n)
    except OSError:
        pass


flash = TearingFlash()
flash.install(journal)
root = "/jr"
cuts = 0
kept = 0
undone = 0
budget = 1
while True:
    wipe(root)
    j = journal.Journal(root)
    j.open()
    j.append({0: 1, 1: "pot", 2: [3, 4]}, 10)
    flash.arm(budget)
    try:
        j.append({0: 2, 1: "red", 2: [5, 6]}, 20)
        flash.disarm()
        break
    except PowerCut:
        cuts += 1
    flash.disarm()
    k = journal.Journal(root)
    k.open()
    seqs = [r[0] for r in k.records(1, 100)]
    if seqs == [1, 2]:
        kept += 1
    elif seqs == [1]:
        undone += 1
    else:
        print("broken=%s" % seqs)
    budget += 1
flash.uninstall(journal)
print("cuts=%d" % cuts)
print("kept=%d" % kept)
print("undone=%d" % undone)
