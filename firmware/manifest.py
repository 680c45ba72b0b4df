# What goes onto the board: every file `baulk firmware build` compiles into
# /lib/baulk/, named here and nowhere else (an allow-list, in the way of
# micropython-lib's manifest.py files).  A file not listed stays on the host:
# the simulator (sim/), the host's decoder and catalogue half
# (protocol/host_codec.py, protocol/host_catalogue.py), and replay.py, the
# engine's scenario driver, which `baulk replay --engine micropython` and the
# tests run under the real MicroPython from the source tree (a board never
# runs it, and a slot's every byte counts: the .mpy budget).
#
# The board never imports this module: `baulk firmware build` reads it on the
# host.  tests/firmware/test_fw_manifest.py checks that every module the
# firmware imports, from main.py on, is listed, and nothing the host alone needs.

# The rules engine's version: raised with every change to how a frame is
# scored.  Written into each firmware bundle's manifest (host/release/), so a
# table's boot record says which engine it runs; the board never holds it.
ENGINE = 1

# The board kinds a release is built for, each with the native arch of its
# .mpy files (mpy-cross -march): `baulk firmware build --board`, a bundle's
# manifest, and a table's `board` in baulk.toml.
BOARDS = {"pico": "armv6m", "esp32": "xtensawin"}

# (folder, files under it), the folder being the package's name below baulk
BOARD = (
    (
        "firmware",
        (
            "__init__.py",
            "main.py",
            "app.py",
            "engine.py",
            "names.py",
            "respot.py",
            "state_json.py",
            "journal.py",
            "link.py",
            "keypad_flow.py",
            "menu.py",
            "screens.py",
            "painter.py",
            "handset.py",
            "calibrate.py",
            "pocket_check.py",
            "capture.py",
            "update/__init__.py",
            "update/format.py",
            "update/record.py",
            "update/stage.py",
            "update/mode.py",
            "boards/__init__.py",
            "boards/pico.py",
            "boards/esp32.py",
            "hw/__init__.py",
            "hw/colour.py",
            "hw/inputs.py",
            "hw/kit.py",
            "hw/pockets.py",
            "hw/ssd1306.py",
            "hw/usb_serial.py",
        ),
    ),
    (
        "protocol",
        (
            "__init__.py",
            "cbor.py",
            "cobs.py",
            "crc.py",
            "frame.py",
            "messages.py",
            "reliability.py",
            "session.py",
        ),
    ),
)

# The boot selector goes onto the board as source, as /boot.py (MicroPython
# runs it at every reset, before /main.py): outside /lib/baulk and both update
# slots, so that no update ever rewrites it (firmware/boot.py says why).  Not
# compiled, not in BOARD; its only imports are sys and os.
BOOT = "firmware/boot.py"
TRIAL_BOOTS = 3  # boots a trial gets before the selector rolls it back

# The board's /main.py, word for word: deploy writes it beside the selector,
# tests/firmware/mp_update.py runs it.  A firmware that raises rolls a trial
# back at once (boot.failed()), and the board starts again.
MAIN = """try:
    from baulk.firmware.main import main

    main()
except Exception:
    import boot

    if boot.failed():
        import machine

        machine.reset()
    raise
"""
