# What the handset display shows (hardware/keypad.md), as rows of
# parts (painter.py): fixed texts, numbers and names kept apart, so that one
# piece of logic says what to show and each language lays it out.
#
#   English  8 rows of 16 characters, one per SSD1306 page, so a changed row
#            costs one page write
#   Persian  4 rows of 16 pixels, right to left: the same pieces, fewer at a
#            time, the most urgent first
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
from .painter import text_of

_COLS = const(16)
ROWS = const(8)  # in English; in Persian the first 4


_ABBR = "redyelgrnbrnblupnkblkwht"  # three letters a ball, by its code


def abbr(ball):
    """A ball's name in three letters (English; Persian has a word for each)."""
    c = names.code_of(names.BALLS, ball)
    return _ABBR[3 * c : 3 * c + 3] if c >= 0 else ball


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


# -- the pieces -------------------------------------------------------------------
def _title(f):
    return f.title if type(f.title) is list else [f.title]


def link_row(app, word_only=False):
    link = app.link
    if link.session.refused:
        return ["LINK REFUSED"]
    if word_only:
        return ["link up" if link.up else "link down"]
    if link.up:
        return ["link up", None, "#", app.journal.next - 1]
    return ["link down", None, app.table.encode()]


def player_row(e, side):
    mark = ">" if e.striker == side and not e.match_over else " "
    return [mark, -1 - side, None, e.s0 if side == 0 else e.s1]


def ball_on_row(e):
    row = ["on ", e.ball_on_name() or "-"]
    if e.nominated >= 0:
        row.append("=")
        row.append(names.BALLS[e.nominated])
    row.append(None)
    row.append("R")
    row.append(e.reds)
    return row


def break_row(e):
    need = e.snookers_required()[e.striker]
    row = ["brk ", e.brk, None]
    if need:
        row.append("snk ")
        row.append(need)
    else:
        row.append("rem ")
        row.append(e.points_remaining())
    return row


def notes(e):
    """The notices, the most urgent first: rows of parts."""
    out = []
    if e.foul_open or (e.foul_kind >= 0 and e.after_stroke):
        out.append(["FOUL ", e.foul_points, ">", -2 + e.foul_side])
        if e.miss_open:
            out.append(["REPLACE? AGAIN?"])
        elif e.foul_open:
            out.append(["AGAIN? FREE?"])
    if e.free_ball:
        out.append(["FREE BALL"])
    if e.misses == 2 and (e.miss_open or e.miss_chain):  # as the engine's warning
        out.append(["3RD MISS LOSES"])
    if e.respotted_black and e.toss_open:
        out.append(["BLACK: TOSS"])
    if e.respot:
        places = e.respot_place_list()
        if places:
            for p in places:  # state_json.Obj: ("ball", colour), ("spot", where)
                out.append([abbr(p.pairs[0][1]), " to ", p.pairs[1][1]])
        else:
            row = ["SPOT"]  # type: list[object]
            for c in e.respot_names():
                row.append(" ")
                row.append(abbr(c))
            out.append(row)
    if e.stroke_open:
        out.append(["...stroke"])
    return out


# -- English: 8 rows ----------------------------------------------------------------
def score_rows(app, out):
    e = app.engine
    if not e.active:
        out[0] = ["baulk ", app.table.encode()]
        out[1] = ["no match"]
        out[2] = ["MENU 1: new"]
        out[3] = [" match, or wait"]
        out[4] = [" for the host"]
        return
    out[0] = ["F", e.frame, " bo", e.best_of, None, e.f0, "-", e.f1]
    out[1] = player_row(e, 0)
    out[2] = player_row(e, 1)
    if e.match_over:
        out[3] = ["MATCH OVER"]
        out[4] = [-1 - e.match_winner, " wins"]
        return
    out[3] = ball_on_row(e)
    out[4] = break_row(e)
    n = notes(e)
    if n:
        out[5] = n[0]
        if len(n) > 1:
            out[6] = n[1]


def _spots_taken(f):
    taken = []  # type: list[object]
    for c in range(1, 7):
        if f.occupied & (1 << c):
            taken.append(abbr(names.BALLS[c]))
    if f.occupied & 0x80:
        taken.append("behind")
    return taken


def _option_row(f, j):
    return [j - f.visible()[0] + 1, " ", f.label(j)]


def prompt_rows(app, out):
    f = app.flow
    e = app.engine
    out[0] = _title(f)
    step = f.step
    if step == kf.SPOTS:
        body = [["colour keys:"], ["toggle a spot"], ["WHITE: behind"]]
        for line in wrap(" ".join(_spots_taken(f)) or "none"):
            body.append([line])
        hint = "OK send"
    elif step == kf.INFO:
        s = app.link.session
        j = app.journal
        body = [
            ["table ", app.table.encode()],
            ["boot ", j.boot],
            ["seq ", j.next - 1, " ack ", j.acked],
            ["retx ", s.sender.retransmits],
            ["bad ", s.bad_frames],
        ]
        hint = "OK close"
    elif step in (kf.FOUL_KIND, kf.MISS, kf.MENU, kf.BEST_OF, kf.REDS, kf.BREAKER,
                  kf.SIDE, kf.PARTNER, kf.CONCEDE):  # fmt: skip
        first, count = f.visible()
        body = [_option_row(f, first + j) for j in range(count)]
        if f.count() > 7:
            body.append(["7 more..."])
        hint = "ball=number BACK"
    else:
        body = [[line] for line in wrap(text_of(e, f.question, 0))]
        if step in (kf.CONFIRM, kf.UNDO):
            hint = "OK yes  BACK no"
        elif step == kf.FOUL_BALL:
            hint = "ball key  OK none"
        else:
            hint = "ball key  BACK"
    for i in range(6):
        out[1 + i] = body[i] if i < len(body) else None
    out[7] = [hint]


def _english(app, out):
    if app.flow.step != kf.IDLE:
        prompt_rows(app, out)
        return
    score_rows(app, out)
    if app.message:
        lines = wrap("! " + app.message)
        first = 7 - len(lines) if len(lines) < 5 else 2
        for i in range(len(lines)):
            if first + i < 7:
                out[first + i] = [lines[i]]
    out[7] = link_row(app)


# -- Persian: 4 rows of 16 pixels ---------------------------------------------------
def _paragraph(app, text, out, first, last):
    """A fixed text over rows first..last (as many lines as it has in Persian);
    returns the row after it.  A text with no Persian goes in Latin, 16
    characters a row (painter.py counts it as missing)."""
    texts = app.handset.texts
    entry = texts.find(text)
    if entry < 0:
        for line in wrap(text):
            if first > last:
                break
            out[first] = [line.encode()]
            first += 1
        return first
    for i in range(texts.line(entry)[0]):
        if first > last:
            break
        out[first] = [(text, i)]
        first += 1
    return first


def _persian_score(app, out):
    e = app.engine
    if not e.active:
        out[0] = ["no match", None, app.table.encode()]
        _paragraph(app, "MENU 1: new match, or wait for the host", out, 1, 2)
        out[3] = link_row(app)
        return
    out[0] = player_row(e, 0)
    out[1] = player_row(e, 1)
    if app.message:
        if _paragraph(app, app.message, out, 2, 3) == 3:
            out[3] = link_row(app)
        return
    if e.match_over:
        out[2] = ["MATCH OVER", None, e.f0, "-", e.f1]
        out[3] = [-1 - e.match_winner, " wins"]
        return
    n = notes(e)
    if not app.link.up:  # a link down outranks a second notice
        out[2] = n[0] if n else ball_on_row(e)
        out[3] = link_row(app)
        return
    if len(n) >= 2:
        out[2] = n[0]
        out[3] = n[1]
        return
    on = ball_on_row(e)
    on[len(on) - 3 :] = [None, "brk ", e.brk]  # the reds left give way to the break
    out[2] = on
    if n:
        out[3] = n[0]
        return
    row = break_row(e)
    row[0:3] = []  # the break is on the row above
    row.append(None)
    row.extend(link_row(app, True))
    out[3] = row


def _persian_prompt(app, out):
    f = app.flow
    out[0] = _title(f)
    step = f.step
    if step == kf.SPOTS:
        row = _spots_taken(f) or ["none"]
        row.append(None)
        row.append("OK send")
        out[1] = row
        _paragraph(app, "colour keys: toggle a spot, WHITE: behind", out, 2, 3)
    elif step == kf.INFO:
        s = app.link.session
        j = app.journal
        out[1] = ["table ", app.table.encode(), None, "boot ", j.boot]
        out[2] = ["seq ", j.next - 1, None, "ack ", j.acked]
        out[3] = ["retx ", s.sender.retransmits, None, "bad ", s.bad_frames]
    elif step in (kf.FOUL_KIND, kf.MISS, kf.MENU, kf.BEST_OF, kf.REDS, kf.BREAKER,
                  kf.SIDE, kf.PARTNER, kf.CONCEDE):  # fmt: skip
        # Two options a row, the first at the right: up to 6, as in English.
        first, count = f.visible()
        for j in range(0, count, 2):
            row = _option_row(f, first + j)
            if j + 1 < count:
                row.append(None)
                row.extend(_option_row(f, first + j + 1))
            out[1 + j // 2] = row
        if f.count() > 7:
            out[0] = _title(f) + [None, "7 more..."]
    else:
        q = f.question
        if type(q) is str:
            _paragraph(app, q, out, 1, 2)
        else:
            out[1] = q
        if step in (kf.CONFIRM, kf.UNDO):
            out[3] = ["OK yes  BACK no"]
        elif step == kf.FOUL_BALL:
            out[3] = ["ball key  OK none"]
        else:
            out[3] = ["ball key  BACK"]


def render(app, out):
    """Fill out[0:8] with the rows the display should show now (None: empty);
    in Persian only out[0:4] are shown."""
    for i in range(ROWS):
        out[i] = None
    if app.check is not None:
        app.check.rows(out, app.handset.persian)
    elif not app.handset.persian:
        _english(app, out)
    elif app.flow.step != kf.IDLE:
        _persian_prompt(app, out)
    else:
        _persian_score(app, out)
