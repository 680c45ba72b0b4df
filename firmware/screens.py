# What the handset display shows (hardware/keypad.md): 8 lines of 16
# characters, one per SSD1306 page, so a changed line costs one page write.
#
#   score      frame and frames, both players with the striker marked, the
#              ball on, the break, points remaining and snookers needed
#   notices    the penalty just given with the options it opens
#              ("FOUL 5>Reza" / "AGAIN? FREE?"), free ball, miss warning,
#              the colours to spot and on which spot
#   prompts    a flow in progress: its title, question or list, and hint
#   message    a refusal from the engine, in its own words
#   link       the last line: link up (with the newest seq) or down

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


from . import keypad_flow as kf
from . import names

_COLS = const(16)
ROWS = const(8)
_ABBR = {
    "yellow": "yel",
    "green": "grn",
    "brown": "brn",
    "blue": "blu",
    "pink": "pnk",
    "black": "blk",
}


def fit(text):
    if len(text) > _COLS:
        return text[:_COLS]
    return text


def wrap(text, width=_COLS):
    """Words of text in lines of at most `width` characters."""
    out = []
    line = ""
    for word in text.split(" "):
        while len(word) > width:
            if line:
                out.append(line)
                line = ""
            out.append(word[:width])
            word = word[width:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line = line + " " + word
        else:
            out.append(line)
            line = word
    if line:
        out.append(line)
    return out


def _lr(left, right):
    room = _COLS - len(right) - 1
    if len(left) > room:
        left = left[:room]
    return left + " " * (_COLS - len(left) - len(right)) + right


def _name(e, side):
    p = e.players[side]
    return p if type(p) is str else p[0] + "/" + p[1]


def link_line(app):
    link = app.link
    if link.session.refused:
        return "LINK REFUSED"
    if link.up:
        return _lr("link up", "#%d" % (app.journal.next - 1))
    return _lr("link down", "%s" % app.table)


def score_lines(app, out):
    e = app.engine
    if not e.active:
        out[0] = "baulk " + app.table
        out[1] = "no match"
        out[2] = "MENU 1: new"
        out[3] = " match, or wait"
        out[4] = " for the host"
        return
    out[0] = _lr("F%d bo%d" % (e.frame, e.best_of), "%d-%d" % (e.f0, e.f1))
    for side in (0, 1):
        mark = ">" if e.striker == side and not e.match_over else " "
        out[1 + side] = _lr(mark + _name(e, side), "%d" % (e.s0 if side == 0 else e.s1))
    if e.match_over:
        out[3] = "MATCH OVER"
        out[4] = fit("%s wins" % _name(e, e.match_winner))
        return
    on = e.ball_on_name()
    if e.nominated >= 0:
        on = on + "=" + names.BALLS[e.nominated]
    out[3] = _lr("on " + on, "R%d" % e.reds)
    need = e.snookers_required()[e.striker]
    out[4] = _lr("brk %d" % e.brk, ("snk %d" % need) if need else "rem %d" % e.points_remaining())
    notes = []
    if e.foul_open or (e.foul_kind >= 0 and e.after_stroke):
        notes.append("FOUL %d>%s" % (e.foul_points, _name(e, 1 - e.foul_side)))
        if e.miss_open:
            notes.append("REPLACE? AGAIN?")
        elif e.foul_open:
            notes.append("AGAIN? FREE?")
    if e.free_ball:
        notes.append("FREE BALL")
    if e.misses == 2:
        notes.append("3RD MISS LOSES")
    if e.respotted_black and e.toss_open:
        notes.append("BLACK: TOSS")
    if e.respot:
        places = e.respot_place_list()
        if places:
            for p in places:  # state_json.Obj: ("ball", colour), ("spot", where)
                ball = p.pairs[0][1]
                notes.append(fit("%s on %s" % (_ABBR.get(ball, ball), p.pairs[1][1])))
        else:
            notes.append(fit("SPOT " + " ".join(_ABBR.get(c, c) for c in e.respot_names())))
    if e.stroke_open:
        notes.append("...stroke")
    out[5] = fit(notes[0]) if notes else ""
    out[6] = fit(notes[1]) if len(notes) > 1 else ""


def prompt_lines(app, out):
    f = app.flow
    out[0] = fit(f.title)
    step = f.step
    if step == kf.SPOTS:
        taken = [_ABBR[names.BALLS[c]] for c in range(1, 7) if f.occupied & (1 << c)]
        if f.occupied & 0x80:
            taken.append("behind")
        body = ["colour keys:", "toggle a spot", "WHITE: behind"]
        body.extend(wrap(" ".join(taken) or "none"))
        hint = "OK send"
    elif step == kf.INFO:
        s = app.link.session
        body = [
            "table " + app.table,
            "boot %d" % app.journal.boot,
            "seq %d ack %d" % (app.journal.next - 1, app.journal.acked),
            "retx %d" % s.sender.retransmits,
            "bad %d" % s.bad_frames,
        ]
        hint = "OK close"
    elif f.opts and step in (kf.FOUL_KIND, kf.MISS, kf.MENU, kf.BEST_OF, kf.REDS, kf.BREAKER,
                             kf.SIDE, kf.PARTNER, kf.CONCEDE):  # fmt: skip
        body = f.lines()
        hint = "ball=number BACK"
    else:
        body = wrap(f.question)
        if step in (kf.CONFIRM, kf.UNDO):
            hint = "OK yes  BACK no"
        elif step == kf.FOUL_BALL:
            hint = "ball key  OK none"
        else:
            hint = "ball key  BACK"
    for i in range(6):
        out[1 + i] = fit(body[i]) if i < len(body) else ""
    out[7] = hint


def render(app, out):
    """Fill out[0:8] with what the display should show now."""
    for i in range(ROWS):
        out[i] = ""
    if app.flow.step != kf.IDLE:
        prompt_lines(app, out)
        return
    score_lines(app, out)
    if app.message:
        lines = wrap("! " + app.message)
        first = 7 - len(lines) if len(lines) < 5 else 2
        for i in range(len(lines)):
            if first + i < 7:
                out[first + i] = lines[i]
    out[7] = link_line(app)
