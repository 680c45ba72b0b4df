# The handset in both languages on the simulated board, run under MicroPython
# (npm WebAssembly port) and CPython alike by tests/firmware/test_fw_handset.py:
#   mp_handset.py SCENARIO TEXTS NAMES.json [FLASH]
# TEXTS is the Persian text file (fa.bin), or "-" for the one beside the
# firmware (a ROMFS image); NAMES.json the name_bitmap bodies the host drew
# ({"singles": [...], "doubles": [...]}, bits in hex).  Prints one JSON object:
# each screen's display RAM in English and in Persian, and what else the
# scenario checks.
import json
import sys

import mp_firmware
from mp_firmware import Host, fresh_flash

from baulk.firmware import screens
from baulk.firmware.painter import name_text, text_of
from baulk.firmware.sim.board import SimBoard, between, nearest
from baulk.firmware.sim.script import Driver
from baulk.protocol import messages

TEXTS = None if sys.argv[2] == "-" else sys.argv[2]
FLASH = sys.argv[4] if len(sys.argv) > 4 else "/flash"
mp_firmware.FLASH = FLASH
EN = 0
FA = 1
GAP = 4  # between the parts of a Persian row (painter.py)


def load_names():
    with open(sys.argv[3]) as f:
        data = json.load(f)
    out = {}
    for k in data:
        bodies = []
        for b in data[k]:
            bodies.append({0: b[0], 1: b[1], 2: b[2], 3: b[3], 4: bytes.fromhex(b[4])})
        out[k] = bodies
    return out


NAMES = load_names()


def ram(b):
    return "".join("%02x" % x for x in b.display.ram)


def parts(e, row):
    """A row of parts (painter.py) as JSON: each part tagged with its kind."""
    if row is None:
        return None
    out = []
    for p in row:
        t = type(p)
        if p is None:
            out.append(None)
        elif t is str:
            out.append(["text", p])
        elif t is int:
            out.append(["number", p] if p >= 0 else ["name", name_text(e, p)])
        elif t is tuple:
            out.append(["line", p[0], p[1]])
        else:
            out.append(["latin", p.decode()])
    return out


def persian_width(app, row):
    """Pixels the row's parts take, as painter.py lays them out: the parts
    before None from the right edge, the rest from the left, a gap apart."""
    if row is None:
        return 0
    total = 0
    groups = 0
    width = 0
    count = 0
    ends = list(row)
    ends.append(None)  # the last group ends with the row
    for p in ends:
        if p is None:
            if count:
                total += width + GAP * (count - 1)
                groups += 1
            width = count = 0
            continue
        w = -app.painter._part(0, p, 0, app.engine, False)
        if w:
            width += w
            count += 1
    return total + GAP * (groups - 1) if groups else 0


def english_width(app, row):
    """Characters the row's parts take, the two ends a space apart at least."""
    return len(text_of(app.engine, row, 0)) if row else 0


def state(b):
    f = b.app.flow
    return [b.app.engine.to_json(), f.step, f.page, json.dumps(f.draft), f.occupied]


class Screens:
    """Each screen in English and in Persian, the language switched by the
    host's `settings` mid-match: nothing else may change on the way."""

    def __init__(self, b, host):
        self.b = b
        self.host = host
        self.out = {}
        self.changed = []  # screens whose state a language switch changed

    def lang(self, code):
        self.host.session.send(messages.SETTINGS, {0: code})
        self.b.settle(250)

    def english(self):
        app = self.b.app
        rows = app.screen()
        e = app.engine
        return {
            "en": ram(self.b),
            "rows": rows,
            "en_parts": [parts(e, r) for r in app.lines],
            "en_widths": [english_width(app, r) for r in app.lines],
        }

    def persian(self):
        # Every page of the Persian screen, each shown in turn (screens.PAGE_MS).
        b = self.b
        app = b.app
        pages = screens.pages(app)
        e = app.engine
        first_page(b)
        shots = []
        for i in range(len(pages)):
            if i:
                b.settle(screens.PAGE_MS)
            shots.append(ram(b))
        return {
            "fa": shots,
            "fa_parts": [[parts(e, r) for r in page] for page in pages],
            "fa_widths": [[persian_width(app, r) for r in page] for page in pages],
        }

    def offline(self, name):
        # The link goes down in each language in turn (no settings can come then).
        b = self.b
        got = {}
        for code in (EN, FA):
            self.lang(code)
            self.host.connected = False
            b.settle(3500)
            got.update(self.persian() if code == FA else self.english())
            self.host.connected = True
            b.settle(3000)
        self.lang(EN)
        got["missing"] = 0
        self.out[name] = got

    def shot(self, name):
        b = self.b
        before = state(b)
        got = self.english()
        missing = b.app.painter.missing
        self.lang(FA)
        got.update(self.persian())
        got["missing"] = b.app.painter.missing - missing
        self.lang(EN)
        if state(b) != before or ram(b) != got["en"]:
            self.changed.append(name)
        self.out[name] = got


def first_page(b):
    """Wait for the Persian screen's first page (screens.pages) to be shown."""
    while b.app.page % len(screens.pages(b.app)):
        b.settle(50)
    b.settle(100)


def boot(texts=TEXTS):
    fresh_flash()
    b = SimBoard(flash=FLASH, tick_ms=5, texts=texts)
    b.boot()
    return b


def send_names(host, b, which):
    for body in NAMES[which]:
        host.session.send(messages.NAME_BITMAP, body)
    b.settle(300)


def scenario_screens():
    b = boot()
    host = Host(b)
    b.settle(1500)
    s = Screens(b, host)
    s.shot("no_match")
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    send_names(host, b, "singles")
    s.shot("match")
    d = Driver(b)
    d.perform({"ev": "strike"})
    d.perform({"ev": "pot", "ball": "red", "pocket": "tl"})
    d.perform({"ev": "rest"})
    b.settle(300)
    s.shot("after_red")
    b.keys("nom", "black")
    d.perform({"ev": "strike"})
    d.perform({"ev": "pot", "ball": "black", "pocket": "br"})
    b.advance(40)  # the pocket judges the ball once its tail has left the sensor's view
    s.shot("stroke")
    d.perform({"ev": "rest"})
    b.settle(300)
    s.shot("break")
    b.keys("menu", "pink", "black", "ok")  # spots: the black's own spot is taken
    b.settle(200)
    s.shot("respot_places")
    d.perform({"ev": "strike"})
    d.perform({"ev": "rest"})
    b.keys("foul", "red", "yellow")  # wrong ball first, the yellow
    b.settle(300)
    s.shot("foul")
    for keys, name in (
        (("foul",), "foul_list"),
        (("black",), "foul_list_2"),
        (("black",), "foul_list_3"),
        (("black",), "foul_list_4"),
        (("back", "foul", "green"), "foul_ball"),  # push: the ball concerned?
        (("back", "miss"), "miss_list"),
        (("back", "concede"), "concede_list"),
        (("red",), "concede_confirm"),
        (("back", "undo"), "undo_confirm"),
        (("back", "menu"), "menu"),
        (("black",), "menu_2"),
        (("brown",), "link_info"),  # link info
        (("ok", "menu", "yellow"), "award_to"),  # award frame
        (("red",), "award_confirm"),
        (("back", "menu", "red"), "best_of"),  # new match
        (("black",), "best_of_2"),
        (("back", "menu", "red", "green"), "reds"),  # best of 5
        (("red",), "breaker"),  # 15 reds
        (("red",), "new_match_confirm"),
        (("back", "menu", "pink", "yellow", "white"), "spots"),  # spots: yellow, behind
        (("back", "free"), "free_ball_nominate"),
        (("back",), "free_ball"),
    ):
        b.keys(*keys)
        b.settle(200)
        s.shot(name)
    b.keys("again")  # the foul's offender plays again: no free ball after all
    b.settle(200)
    b.keys("free")  # refused now: shown as the engine's sentence
    b.settle(200)
    s.shot("refusal")
    b.settle(7000)  # the refusal times out
    d.perform({"ev": "strike"})
    b.pot(2, 5, rgbc=between(5, nearest(5)))
    b.advance(200)
    s.shot("ask_pot")
    b.keys("pink")
    b.rail()
    b.advance(200)
    s.shot("ask_off")
    b.keys("back")
    d.perform({"ev": "rest"})
    b.settle(300)
    s.shot("foul_after_ask")
    s.offline("link_down")
    b.keys("menu", "green", "red", "ok")  # award match to Ali
    b.settle(300)
    s.shot("match_over")
    return {
        "screens": s.out,
        "changed": s.changed,
        "errors": host.errors,
        "events": len(host.events),
        "scores": b.app.engine.state()["scores"],
    }


def scenario_doubles():
    b = boot()
    host = Host(b)
    b.settle(1500)
    s = Screens(b, host)
    host.setup([["Ali", "Sara"], ["Reza", "Mina"]], 1)
    b.settle(300)
    send_names(host, b, "doubles")
    s.shot("doubles")
    b.keys("menu", "black", "green", "yellow")  # order (dbl) for side 1
    b.settle(200)
    s.shot("partner_list")
    b.keys("back")
    host.setup(["Player A", "Player B"], 1)  # other players: the old bitmaps go
    b.settle(300)
    s.shot("no_bitmaps")
    return {"screens": s.out, "changed": s.changed, "widths": list(b.app.handset.widths)}


def scenario_refused():
    # A name bitmap too large or badly formed, and a language not known here:
    # each refused with an error, and nothing changes.
    b = boot()
    host = Host(b)
    b.settle(1500)
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    send_names(host, b, "singles")
    host.session.send(messages.SETTINGS, {0: FA})
    b.settle(300)
    first_page(b)
    before = [ram(b), list(b.app.handset.widths), b.app.handset.lang, state(b)]
    name0 = open(FLASH + "/journal/name0", "rb").read()
    bad = [
        (messages.NAME_BITMAP, {0: 0, 1: 0, 2: 129, 3: 16, 4: bytes(17 * 16)}),
        (messages.NAME_BITMAP, {0: 0, 1: 0, 2: 16, 3: 16, 4: bytes(31)}),
        (messages.NAME_BITMAP, {0: 0, 1: 0, 2: 16, 3: 16, 4: bytes(257)}),
        (messages.NAME_BITMAP, {0: 0, 1: 0, 2: 16, 3: 16, 4: "not pixels"}),
        (messages.NAME_BITMAP, {0: 3, 1: 0, 2: 16, 3: 1, 4: bytes(2)}),
        (messages.SETTINGS, {0: 7}),
        (messages.SETTINGS, {0: "de"}),
    ]
    for mtype, body in bad:
        host.session.send(mtype, body)
        b.settle(200)
    b.settle(300)
    first_page(b)
    after = [ram(b), list(b.app.handset.widths), b.app.handset.lang, state(b)]
    return {
        "errors": host.errors,
        "same": before == after,
        "name0_same": open(FLASH + "/journal/name0", "rb").read() == name0,
        "acked": b.app.link.session.receiver.delivered,
    }


def scenario_flash():
    # The language and the names outlive a power cut with no host to send them.
    b = boot()
    host = Host(b)
    b.settle(1500)
    host.setup(["Ali", "Reza"], 3)
    b.settle(300)
    send_names(host, b, "singles")
    host.session.send(messages.SETTINGS, {0: FA})
    b.settle(300)
    host.connected = False
    b.settle(3500)  # the link is down: the first page says so
    first_page(b)
    before = ram(b)
    seq = b.app.handset.seq
    b.reset()
    b.settle(3000)
    first_page(b)
    return {
        "same": ram(b) == before,
        "persian": b.app.handset.persian,
        "widths": list(b.app.handset.widths),
        "seq": seq,
        "delivered_after_reset": b.app.link.session.receiver.delivered,
    }


if __name__ == "__main__":  # (mp_pockets.py imports the screens and helpers above)
    print(json.dumps(globals()["scenario_" + sys.argv[1]]()))
