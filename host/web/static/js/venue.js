// The venue board: every table at a glance.  Up to 16 tables share one TV
// screen (the cards grow to fill it when there are fewer); with more, the
// board pages through them (?per_page=N, ?page_s=SECONDS).  A phone held
// upright scrolls one column of cards instead.
import { bdi, byId, el, num, setKids, setText, setupPage, t, withLang, params } from "./i18n.js";
import { connect } from "./live.js";
import { announcement, linkClass, statusText, waitingForController } from "./parts.js";

setupPage();
document.title = t("venue") + " | " + t("brand");
const PER_PAGE = Math.min(16, Math.max(1, parseInt(params.get("per_page") || "16", 10) || 16));
const PAGE_S = Math.min(600, Math.max(3, parseInt(params.get("page_s") || "10", 10) || 10));
const portrait = matchMedia("(orientation: portrait)");
const cards = new Map();
let page = 0;

function grid(n) {
  for (const [cols, rows] of [[1, 1], [2, 1], [2, 2], [3, 2], [3, 3], [4, 3], [4, 4]]) {
    if (n <= cols * rows) return [cols, rows];
  }
  return [4, 4];
}

function layout() {
  const ids = [...cards.keys()].sort();
  const box = byId("venue");
  const pages = portrait.matches ? 1 : Math.max(1, Math.ceil(ids.length / PER_PAGE));
  page %= pages;
  const shown = portrait.matches ? ids : ids.slice(page * PER_PAGE, (page + 1) * PER_PAGE);
  const [cols, rows] = grid(shown.length);
  box.style.setProperty("--cols", cols);
  box.style.setProperty("--rows", rows);
  setKids(box, shown.map((id) => cards.get(id)));
  setText("page-no", pages > 1 ? t("page", { n: page + 1, m: pages }) : "");
}

function row(side, st, m) {
  const r = el("div", "row side" + side + (!st.match_over && st.striker === side ? " striker" : ""));
  r.append(el("span", "mark"), bdi(m.names[side], "pname"), el("span", "pframes", num(st.frames[side])),
    el("span", "pscore", num(st.scores[side])));
  return r;
}

// Free to play, as players see it from the door: the controller is there,
// no session is open at the desk (the venue may have no desk), and no match
// is being played.
function isFree(board) {
  const inPlay = board.match && board.state && !board.state.match_over;
  return linkClass(board.status) === "online" && board.session_open !== true && !inPlay;
}

function render(board) {
  let card = cards.get(board.table);
  const fresh = !card;
  if (fresh) {
    card = el("a", "card");
    card.href = withLang("/table/" + encodeURIComponent(board.table));
    cards.set(board.table, card);
  }
  const st = board.state;
  const m = board.match;
  const head = el("div", "head");
  const status = el("span", "status", statusText(board.status, true));
  status.dataset.link = linkClass(board.status);
  head.append(bdi(board.name, "tname"), status);
  const kids = [head];
  const free = isFree(board);
  if (free) {
    kids.push(el("div", "message free-word", t("table_free")));
  } else if (st && m) {
    kids.push(row(0, st, m), row(1, st, m));
    const foot = el("div", "foot");
    const a = announcement(board);
    foot.append(el("span", "", t("best_of", { n: m.best_of })), el("span", "", t("frame", { n: st.frame })));
    if (a && a.kind === "match_won") foot.append(el("b", "", t("match_over")));
    else if (st.break) foot.append(el("b", "", t("break") + " " + num(st.break)));
    kids.push(foot);
  } else {
    kids.push(el("div", "message", waitingForController(board.status) ? t("waiting") : t("no_match")));
  }
  card.className = "card " + linkClass(board.status) + (free ? " free" : "");
  card.dataset.free = free ? "1" : "0";
  card.replaceChildren(...kids);
  if (fresh) layout();
}

connect(null, render);
portrait.addEventListener("change", layout);
setInterval(() => { page += 1; if (cards.size > PER_PAGE) layout(); }, PAGE_S * 1000);
