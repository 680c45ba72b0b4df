"""Every sentence the server or the table's rules engine can refuse an
action with has its Persian (host/web/refusals.py): the sentences are read
from the code itself (firmware/engine.py, the daemon's ActionErrors, the
web app), so a new one without its Persian fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from baulk.host.web.refusals import localise, persian
from baulk.host.web.request_models import every_sentence
from baulk.host.web.words import FSI, PDI

ROOT = Path(__file__).resolve().parents[2]
# A sample for each value a sentence is formatted with, by the code that
# gives it (anything else becomes "x").
SAMPLES = {
    "what": "player 1",
    "MAX_BODY": "16384",
    "NAME_BYTES": "48",
    "int(wait) + 1": "3",
    "origin": "http://127.0.0.1:9",
    "e": "Expecting value: line 1 column 1 (char 0)",
    "i + 1": "2",
    "result['rejected']": "nothing to undo",
    "reason": "command: key 12 (ev) must be int",
    "most": "48",
    # the desk's (host/club/sessions.py)
    "session_id": "3",
    "correction_id": "4",
    "item_id": "5",
    "other['id']": "2",
    "desk.session['id']": "2",
    "TEXT_BYTES": "200",
    "QUANTITY_MOST": "20",
    "allowed": "owner or desk",
    # the days a report may ask for (host/web/http.py)
    "FIRST_YEAR": "1970",
    "LAST_YEAR": "2200",
    "FIRST_JYEAR": "1349",
    "LAST_JYEAR": "1578",
    "actor.role": "desk",
    "secret_word": "password",
    "secret_word.lower()": "password",
    "field": "name",
    "OPERATOR": "operator",
    "NAME_CHARS": "32",
    "low": "4",
    "high": "8",
    "PASSWORD_MIN": "8",
    "PASSWORD_BYTES": "256",
    "TOKEN_NAME_CHARS": "40",
    "ord(c)": "200B",
    "kind": "table session change",
}
PERCENT = re.compile(r"%[sd]")


def _sample(node: ast.expr) -> str | None:
    """The sentence a string expression makes, with sample values."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            elif isinstance(part, ast.FormattedValue):
                out.append(SAMPLES.get(ast.unparse(part.value), "x"))
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        text = _sample(node.left)
        return PERCENT.sub(lambda m: "48" if m.group() == "%d" else "pink", text) if text else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _sample(node.left), _sample(node.right)
        return a + b if a is not None and b is not None else None
    return None


def sentences(path: Path, calls: set[str], position: int = 0) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if name in calls and len(node.args) > position:
            text = _sample(node.args[position])
            if text:
                found.append(text)
    return found


def returned(path: Path) -> list[str]:
    """The sentences a module's functions return (host/name_rules.py's)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [_sample(n.value) for n in ast.walk(tree) if isinstance(n, ast.Return) and n.value]
    return [t for t in found if t and " " in t]


ENGINE = sentences(ROOT / "firmware" / "engine.py", {"Rejected"})
DAEMON = sentences(ROOT / "host" / "venue" / "actions.py", {"ActionError"}, 1)
# The desk's: table sessions and bills (the club), and amounts (host/club/money.py)
CLUB = sentences(ROOT / "host" / "club" / "sessions.py", {"ActionError"}, 1) + [
    "amount " + text for text in sentences(ROOT / "host" / "club" / "money.py", {"MoneyError"})
]
# The store's refusals (a row it cannot keep, or cannot write at all).
STORE = sentences(ROOT / "host" / "store" / "edges.py", {"StoreRefused", "__init__"}, 1)
# The server's own refusals, from each area the operator acts through.
WEB_AREAS = ("app", "http", "auth", "operator", "boards", "api", "console", "desk")
WEB = (
    # every refusal of a body or a query by its model (host/web/request_models.py)
    every_sentence()
    + returned(ROOT / "host" / "name_rules.py")
    + [
        text
        for area in WEB_AREAS
        for text in sentences(ROOT / "host" / "web" / f"{area}.py", {"error", "Refused"}, 1)
    ]
    + [
        node.value.value
        for node in ast.parse((ROOT / "host/web/console_session.py").read_text()).body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and " " in node.value.value
    ]
)


def tuples(path: Path) -> list[str]:
    """The sentences of ``(status, sentence)`` refusals a module returns."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Tuple)
            and len(node.elts) == 2
            and isinstance(node.elts[0], ast.Constant)
            and isinstance(node.elts[0].value, int)
        ):
            text = _sample(node.elts[1])
            if text and " " in text:
                found.append(text)
    return found


STAFF = ROOT / "host" / "staff"
WEB += (
    sentences(STAFF / "accounts.py", {"ValueError"})
    + sentences(STAFF / "registry.py", {"StaffError"}, 1)
    + sentences(ROOT / "host" / "web" / "staff_pages.py", {"error"}, 1)
    + tuples(STAFF / "roles.py")
    + tuples(ROOT / "host" / "web" / "auth.py")
    + [
        node.value.value
        for path in (STAFF / "roles.py", ROOT / "host" / "web" / "auth.py")
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and len(node.value.value.split()) > 3  # a sentence, not a word like "public"
    ]
)


def outside_isolates(text: str) -> str:
    return re.sub(f"{FSI}[^{PDI}]*{PDI}", "", text)


def test_the_sentences_were_found() -> None:
    assert len(ENGINE) >= 60
    assert len(DAEMON) >= 3
    assert len(CLUB) >= 20
    assert len(STORE) >= 3
    assert len(WEB) >= 25


@pytest.mark.parametrize("sentence", sorted(set(ENGINE + DAEMON + CLUB + STORE + WEB)))
def test_every_refusal_has_its_persian(sentence: str) -> None:
    fa = persian(sentence)
    assert fa is not None, f"no Persian for: {sentence!r}"
    assert not re.search("[A-Za-z0-9]", outside_isolates(fa)), (sentence, fa)


def test_a_refusal_from_the_table_is_translated_with_its_reason() -> None:
    assert (
        localise("the table refused: the pink is not on the table", "fa")
        == "میز نپذیرفت: توپ صورتی روی میز نیست"
    )
    assert localise("the table refused: the pink is not on the table", "en") == (
        "the table refused: the pink is not on the table"
    )
    assert localise("wrong_ball_first applies only after a red was potted", "fa") == (
        "«برخورد اول به توپ نادرست» فقط پس از گل شدن قرمز پیش می‌آید"
    )
    assert localise("player 2.1 is longer than 48 bytes", "fa") == (
        "تیم ۲، بازیکن ۱: نام بیش از ۴۸ بایت است"
    )


def test_an_unknown_sentence_stays_whole_and_isolated() -> None:
    text = "a sentence nobody wrote yet"
    assert localise(text, "fa") == f"{FSI}{text}{PDI}"
