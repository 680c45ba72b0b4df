# Heap use of the rules engine under MicroPython, run with --stepped so that
# garbage is collected between steps (see host/sim/micropython.mjs).
#   mp_engine_heap.py SCENARIO FRAMES     (FRAMES 0: the whole file)
# Prints: import_heap, heap_after (import + match), peak_heap, all in bytes
# above the interpreter's own baseline.
import gc
import json
import sys

PATH = sys.argv[1]
FRAMES = int(sys.argv[2])
figures = {"peak": 0}
run = {"phase": 0, "engine": None, "file": None, "events": 0}


def step():
    used = gc.mem_alloc()  # the runner collected garbage just before this call
    phase = run["phase"]
    if phase == 0:
        figures["base"] = used
        from baulk.firmware.engine import Engine

        run["engine"] = Engine()
    elif phase == 1:
        figures["import"] = used
        run["file"] = open(PATH)
    elif phase == 2:
        if used > figures["peak"]:
            figures["peak"] = used
        line = run["file"].readline()
        engine = run["engine"]
        if line and not (FRAMES and engine.frame > FRAMES):
            try:
                engine.apply(json.loads(line))
            except Exception:
                pass
            run["events"] += 1
            return True
        run["file"].close()
        run["file"] = None
    elif phase == 3:
        # A replay ends by printing the state: streamed, so it holds little.
        run["engine"].write_json(lambda piece: None)
    elif phase == 4:
        if used > figures["peak"]:
            figures["peak"] = used
        base = figures["base"]
        print(
            "events=%d frames=%d import_heap=%d heap_after=%d peak_heap=%d"
            % (
                run["events"],
                run["engine"].frame,
                figures["import"] - base,
                used - base,
                figures["peak"] - base,
            )
        )
        return False
    run["phase"] = phase + 1
    return True
