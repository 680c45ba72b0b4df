# The board's entry point.  /main.py on the board (written by `baulk firmware
# build`) is just:  from baulk.firmware.main import main; main()
#
# Picks the board module by platform, builds the hardware, resumes from the
# journal and runs the main loop under asyncio.  A ThreadSafeFlag set by the
# pocket-beam interrupts wakes the loop at once, so a pot does not wait for
# the next tick.  When the host asks for an update between matches, the loop
# ends and the update mode runs in its place (firmware/update/mode.py).


def board_module():
    import sys

    if sys.platform == "esp32":
        from .boards import esp32

        return esp32
    from .boards import pico

    return pico


async def _run(app):
    import asyncio  # MicroPython's: ThreadSafeFlag is not in CPython's

    flag = asyncio.ThreadSafeFlag()  # type: ignore[attr-defined]
    app.hw.ring.wake = flag.set  # ISR-safe: sets a flag, allocates nothing

    async def waker():
        while True:
            await flag.wait()
            try:
                app.tick()
            except Exception as e:  # as in App.run: told to the host, and on
                app.exception(e)

    wake = asyncio.create_task(waker())
    try:
        await app.run()
    finally:
        wake.cancel()


def main():
    import asyncio

    from . import unload
    from .app import App

    hw = board_module().hardware()
    unload("hw.kit", "boards.pico", "boards.esp32", "boards")  # the wiring ran: out of the heap
    app = App(hw)
    asyncio.run(_run(app))  # returns only for an update_request
    op = app.update
    del app, App
    # The match out of the heap before the update mode comes in: it never
    # shares the heap with the stager (firmware/update/mode.py).
    unload(
        "app", "engine", "journal", "link", "keypad_flow", "menu", "screens", "painter",
        "handset", "names", "respot", "state_json", "pocket_check", "capture",
    )  # fmt: skip
    from .update import mode

    mode.run(hw, op)  # and the board restarts
