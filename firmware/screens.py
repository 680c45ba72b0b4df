# What the handset display shows (hardware/keypad.md), as rows of
# parts (painter.py): fixed texts, numbers and names kept apart, so that one
# piece of logic says what to show and each language lays it out.
#
#   English  8 rows of 16 characters, one per SSD1306 page, so a changed row
#            costs one page write
#   Persian  4 rows of 16 pixels, right to left: the very same pieces (every
#            text, number and name the English screen shows), in pages of 4
#            rows shown in turn when they take more (the players' rows, or a
#            list's options, stay; the most urgent page first)
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
PAGE_MS = const(1500)  # a Persian page shows this long, then the next


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
    if e.nominated >= 0:  # the nominated colour is the ball on
        row = ["nom ", names.BALLS[e.nominated]]  # type: list[object]
    else:
        row = ["on ", e.ball_on_name() or "-"]
    row.append(None)
    row.append("R")
    row.append(e.reds)
    return row


def frame_row(e):
    return ["F", e.frame, " bo", e.best_of, None, e.f0, "-", e.f1]


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
    out[0] = frame_row(e)
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


_LISTS = (kf.FOUL_KIND, kf.MISS, kf.MENU, kf.BEST_OF, kf.REDS, kf.BREAKER, kf.SIDE, kf.PARTNER,
          kf.CONCEDE)  # fmt: skip


def _hint(step):
    """The keys a question's screen takes (its bottom row)."""
    if step in (kf.CONFIRM, kf.UNDO):
        return "OK yes  BACK no"
    if step == kf.FOUL_BALL:
        return "ball key OK none"
    return "ball key  BACK"


def _option_row(f, j):
    return [j - f.visible()[0] + 1, " ", f.label(j)]


def prompt_rows(app, out):
    f = app.flow
    e = app.engine
    out[0] = _title(f)
    step = f.step
    if step == kf.SPOTS or step == kf.INFO:  # the menu's own screens
        body, hint = app.menu().english(app)
    elif step in _LISTS:
        first, count = f.visible()
        body = [_option_row(f, first + j) for j in range(count)]
        if f.count() > 7:
            body.append(["7 more..."])
        hint = "ball=number BACK"
    else:
        body = [[line] for line in wrap(text_of(e, f.question, 0))]
        hint = _hint(step)
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


# -- Persian: pages of 4 rows of 16 pixels ---------------------------------------
def paragraph(app, text, out):
    """A fixed text as the rows it takes in Persian, appended to out.  A text
    with no Persian goes in Latin, 16 characters a row (painter.py counts it
    as missing)."""
    texts = app.handset.texts
    entry = texts.find(text)
    if entry < 0:
        for line in wrap(text):
            out.append([line.encode()])
        return
    for i in range(texts.line(entry)[0]):
        out.append([(text, i)])


def paged(head, body):
    """Pages of 4 rows: the head rows on each, the body's rows after them in turn."""
    k = 4 - len(head)
    out = []
    for i in range(0, len(body), k):
        out.append(head + body[i : i + k])
    return out or [head]


def _whole_pages(rows):
    # A group of rows begins a page of its own (two rows below the players).
    if len(rows) & 1:
        rows.append(None)


def _persian_score(app):
    e = app.engine
    body = []  # type: list[list[object] | None]
    if not e.active:
        body.append(["baulk ", app.table.encode()])
        body.append(["no match"])
        paragraph(app, "MENU 1: new match, or wait for the host", body)
        body.append(link_row(app))
        return paged([], body)
    if not app.link.up:  # the link down: the first thing the referee sees
        body.append(link_row(app))
        _whole_pages(body)
    if app.message:
        paragraph(app, app.message, body)
        _whole_pages(body)
    if e.match_over:
        body.append(["MATCH OVER"])
        body.append([-1 - e.match_winner, " wins"])
    else:
        body.extend(notes(e))
        _whole_pages(body)
        body.append(ball_on_row(e))
        body.append(break_row(e))
    body.append(frame_row(e))
    if app.link.up:
        body.append(link_row(app))
    return paged([player_row(e, 0), player_row(e, 1)], body)


def _persian_prompt(app):
    f = app.flow
    title = _title(f)
    step = f.step
    if step == kf.SPOTS or step == kf.INFO:  # the menu's own screens
        return app.menu().persian(app, title)
    if step in _LISTS:
        # Two options a row, the first at the right: up to 6, as in English;
        # the title and the hint take the top row in turn.
        first, count = f.visible()
        rows = []
        for j in range(0, count, 2):
            row = _option_row(f, first + j)
            if j + 1 < count:
                row.append(None)
                row.extend(_option_row(f, first + j + 1))
            rows.append(row)
        if f.count() > 7:
            title = title + [None, "7 more..."]
        return [[title] + rows, [["ball=number BACK"]] + rows]
    q = f.question
    body = []  # type: list[list[object] | None]
    if type(q) is str:
        paragraph(app, q, body)
    else:
        body.append(q)
    while len(body) % 2:  # the hint on the bottom row
        body.append(None)
    body.append([_hint(step)])
    return paged([title], body)


def pages(app):
    """The Persian screen: its pages of 4 rows (one when everything fits)."""
    if app.check is not None:
        rows = app.check.rows(True)
        return paged(rows[0:1], rows[1:])
    if app.flow.step != kf.IDLE:
        return _persian_prompt(app)
    return _persian_score(app)


def render(app, out):
    """Fill out[0:8] with the rows the display should show now (None: empty);
    in Persian out[0:4], the page app.page (of however many there are)."""
    for i in range(ROWS):
        out[i] = None
    if app.handset.persian:
        ps = pages(app)
        page = ps[app.page % len(ps)]
        for i in range(len(page)):
            out[i] = page[i]
    elif app.check is not None:
        rows = app.check.rows(False)
        for i in range(len(rows)):
            out[i] = rows[i]
    else:
        _english(app, out)
