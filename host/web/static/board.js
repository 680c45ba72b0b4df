// baulk boards: table board, venue board, overlay, index.  One script; the
// page says which board it is in <body data-board="...">.  Everything a
// player or operator typed is drawn with textContent, never as HTML.
"use strict";

const SCHEMA = 1;
const params = new URLSearchParams(location.search);
const LANG = params.get("lang") === "fa" ? "fa" : "en";
const BOARD = document.body.dataset.board;
const FA_DIGITS = "۰۱۲۳۴۵۶۷۸۹";

const TEXT = {
  en: {
    best_of: "Best of {n}", frame: "Frame {n}", brk: "Break", ball_on: "Ball on",
    remaining: "Remaining", snookers: "{name} needs {n} snooker(s)", highest: "High break",
    respot: "Spot", history: "Frames", online: "online", offline: "offline",
    connecting: "connecting", refused: "refused", last_seen: "last seen {t}", never: "never seen",
    foul: "FOUL {n} → {name}", miss: "MISS", free_ball: "FREE BALL", play_again_warn: "third miss forfeits the frame",
    respotted_black: "RE-SPOTTED BLACK", match_over: "{name} wins the match", any_colour: "any colour",
    no_match: "No match on this table", shadow: "Check the score: {text}", feed_lost: "reconnecting…",
    tables: "Tables", board: "Board", overlay: "Overlay", venue: "Venue board", reports: "Match reports",
    in_play: "in play", frames_won: "frames",
    red: "red", yellow: "yellow", green: "green", brown: "brown", blue: "blue", pink: "pink", black: "black", white: "white", colour: "colour",
  },
  fa: {
    best_of: "بهترین از {n}", frame: "فریم {n}", brk: "بریک", ball_on: "توپ هدف",
    remaining: "امتیاز باقی‌مانده", snookers: "{name} به {n} اسنوکر نیاز دارد", highest: "بالاترین بریک",
    respot: "برگشت به خال", history: "فریم‌ها", online: "متصل", offline: "قطع",
    connecting: "در حال اتصال", refused: "رد شده", last_seen: "آخرین ارتباط {t}", never: "هنوز متصل نشده",
    foul: "خطا {n} ← {name}", miss: "میس", free_ball: "توپ آزاد", play_again_warn: "میس سوم فریم را می‌بازد",
    respotted_black: "سیاهِ دوباره", match_over: "{name} برنده‌ی مسابقه", any_colour: "هر رنگ",
    no_match: "مسابقه‌ای روی این میز نیست", shadow: "امتیاز را بررسی کنید: {text}", feed_lost: "اتصال دوباره…",
    tables: "میزها", board: "تابلو", overlay: "روکش پخش", venue: "تابلوی سالن", reports: "گزارش مسابقه‌ها",
    in_play: "در جریان", frames_won: "فریم",
    red: "قرمز", yellow: "زرد", green: "سبز", brown: "قهوه‌ای", blue: "آبی", pink: "صورتی", black: "سیاه", white: "سفید", colour: "رنگی",
  },
};

function num(v) {
  const s = String(v);
  return LANG === "fa" ? s.replace(/[0-9]/g, (d) => FA_DIGITS[d]) : s;
}

function t(key, vars) {
  let s = (TEXT[LANG][key] || TEXT.en[key] || key);
  for (const [k, v] of Object.entries(vars || {})) {
    s = s.split("{" + k + "}").join(typeof v === "number" ? num(v) : String(v));
  }
  return s;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

function set(id, text) {
  const e = document.getElementById(id);
  if (e) e.textContent = text;
  return e;
}

function ball(name, title) {
  const b = el("span", "ball " + name);
  b.title = title || t(name);
  b.setAttribute("aria-label", t(name));
  return b;
}

function replace(id, children) {
  const e = document.getElementById(id);
  if (!e) return;
  e.replaceChildren(...children);
}

function foulText(kind) {
  return kind ? String(kind).replace(/_/g, " ") : "";
}

function ago(ms) {
  if (!ms) return t("never");
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  const text = s < 60 ? num(s) + "s" : s < 3600 ? num(Math.round(s / 60)) + "m" : num(Math.round(s / 3600)) + "h";
  return t("last_seen", { t: text });
}

function statusText(st) {
  if (!st) return t("offline");
  if (st.link === "online") return t("online");
  const word = st.state === "connecting" ? t("connecting") : st.state === "refused" ? t("refused") : t("offline");
  return word + " · " + ago(st.last_seen_ms);
}

// ------------------------------------------------------------------ table board
function renderTable(board) {
  const st = board.state;
  const m = board.match;
  document.body.classList.toggle("offline", board.status.link !== "online");
  set("table-name", board.name);
  const status = set("status", statusText(board.status));
  if (status) status.dataset.link = board.status.link;
  if (!st || !m) {
    set("name0", ""); set("name1", "");
    set("score0", ""); set("score1", "");
    set("frames0", ""); set("frames1", "");
    set("bestof", "");
    set("frame-no", "");
    set("notice", t("no_match"));
    document.getElementById("notice").dataset.kind = "none";
    return;
  }
  const names = m.names;
  for (const side of [0, 1]) {
    set("name" + side, names[side]);
    set("score" + side, num(st.scores[side]));
    set("frames" + side, num(st.frames[side]));
    set("high" + side, t("highest") + " " + num(st.highest_break[side]));
    const panel = document.getElementById("player" + side);
    if (panel) panel.classList.toggle("striker", !st.match_over && st.striker === side);
  }
  set("bestof", t("best_of", { n: m.best_of }));
  set("frame-no", t("frame", { n: st.frame }));
  set("break", st.break ? t("brk") + " " + num(st.break) : "");
  replace("break-balls", (board.break_balls || []).map((b) => ball(b)));
  const on = st.ball_on;
  const onBox = document.getElementById("ball-on");
  if (onBox) {
    const kids = [el("span", "label", t("ball_on"))];
    if (on === "colour") kids.push(ball("colour", t("any_colour")), el("span", "value", t("any_colour")));
    else if (on) kids.push(ball(on), el("span", "value", t(on)));
    if (st.nominated && on === "colour") kids.push(ball(st.nominated));
    onBox.replaceChildren(...kids);
  }
  set("remaining", t("remaining") + " " + num(st.points_remaining));
  const needs = [];
  for (const side of [0, 1]) {
    const n = st.snookers_required[side];
    if (n > 0) needs.push(t("snookers", { name: names[side], n: n }));
  }
  set("snookers", needs.join(" · "));
  replace("respot", (st.respot || []).length ? [el("span", "label", t("respot")), ...st.respot.map((b) => ball(b))] : []);
  renderNotice(board, names);
  replace("history", (st.history || []).map((h) => {
    const chip = el("span", "chip w" + h.winner);
    chip.textContent = num(h.scores[0]) + "–" + num(h.scores[1]);
    chip.title = t("frame", { n: h.frame });
    return chip;
  }));
  const alerts = board.alerts || [];
  set("alert", alerts.length ? t("shadow", { text: alerts[alerts.length - 1].text }) : "");
}

function renderNotice(board, names) {
  const n = board.notice;
  const box = document.getElementById("notice");
  if (!box) return;
  box.dataset.kind = n ? n.kind : "none";
  if (!n) { box.textContent = ""; return; }
  if (n.kind === "foul") {
    const receiver = names[1 - n.side];
    const parts = [t("foul", { n: n.points, name: receiver }) + " · " + foulText(n.foul)];
    if (n.miss) parts.push(t("miss"));
    if (n.free_ball) parts.push(t("free_ball"));
    if (n.warning) parts.push(t("play_again_warn"));
    box.textContent = parts.join(" · ");
  } else if (n.kind === "free_ball") {
    box.textContent = t("free_ball");
  } else if (n.kind === "respotted_black") {
    box.textContent = t("respotted_black");
  } else if (n.kind === "match_over") {
    box.textContent = n.winner === 0 || n.winner === 1 ? t("match_over", { name: names[n.winner] }) : "";
  }
}

// ------------------------------------------------------------------ overlay
function renderOverlay(board) {
  const st = board.state;
  const m = board.match;
  const root = document.getElementById("overlay");
  root.hidden = !st || !m;
  if (!st || !m) return;
  for (const side of [0, 1]) {
    set("name" + side, m.names[side]);
    set("score" + side, num(st.scores[side]));
    set("frames" + side, num(st.frames[side]));
    document.getElementById("row" + side).classList.toggle("striker", !st.match_over && st.striker === side);
  }
  set("bestof", t("best_of", { n: m.best_of }));
  set("break", st.break ? t("brk") + " " + num(st.break) : "");
  replace("break-balls", (board.break_balls || []).map((b) => ball(b)));
  renderNotice(board, m.names);
}

// ------------------------------------------------------------------ venue board
const venueCards = new Map();

function renderVenueCard(board) {
  let card = venueCards.get(board.table);
  const grid = document.getElementById("venue");
  if (!card) {
    card = el("a", "card");
    card.href = "/table/" + encodeURIComponent(board.table) + (LANG === "fa" ? "?lang=fa" : "");
    card.dataset.table = board.table;
    venueCards.set(board.table, card);
    const sorted = [...venueCards.keys()].sort();
    grid.replaceChildren(...sorted.map((k) => venueCards.get(k)));
  }
  const st = board.state;
  const m = board.match;
  const head = el("div", "head");
  head.append(el("span", "tname", board.name));
  const s = el("span", "status", statusText(board.status));
  s.dataset.link = board.status.link;
  head.append(s);
  const kids = [head];
  if (st && m) {
    for (const side of [0, 1]) {
      const row = el("div", "row" + (!st.match_over && st.striker === side ? " striker" : ""));
      row.append(el("span", "pname", m.names[side]), el("span", "pframes", num(st.frames[side])),
        el("span", "pscore", num(st.scores[side])));
      kids.push(row);
    }
    const foot = el("div", "foot", t("best_of", { n: m.best_of }) + " · " + t("frame", { n: st.frame }) +
      (st.break ? " · " + t("brk") + " " + num(st.break) : ""));
    kids.push(foot);
  } else {
    kids.push(el("div", "foot", t("no_match")));
  }
  card.classList.toggle("offline", board.status.link !== "online");
  card.replaceChildren(...kids);
}

// ------------------------------------------------------------------ index
async function renderIndex() {
  const q = LANG === "fa" ? "?lang=fa" : "";
  const other = LANG === "fa" ? "English" : "فارسی";
  const switcher = document.getElementById("lang");
  switcher.textContent = other;
  switcher.href = LANG === "fa" ? "?" : "?lang=fa";
  set("h-tables", t("tables"));
  set("h-reports", t("reports"));
  const venue = document.getElementById("venue-link");
  venue.textContent = t("venue");
  venue.href = "/venue" + q;
  const api = await (await fetch("/api/tables")).json();
  replace("tables", api.tables.map((b) => {
    const li = el("li");
    li.append(el("strong", "", b.name), " ");
    const a = el("a", "", t("board")); a.href = "/table/" + encodeURIComponent(b.table) + q;
    const o = el("a", "", t("overlay")); o.href = "/overlay/" + encodeURIComponent(b.table) + q;
    li.append(a, " · ", o, " · ", el("span", "status", statusText(b.status)));
    return li;
  }));
  const matches = await (await fetch("/api/matches?limit=20")).json();
  replace("matches", matches.matches.map((mt) => {
    const li = el("li");
    const a = el("a", "", mt.players.map((p) => Array.isArray(p) ? p.join(" & ") : p).join(" – "));
    a.href = "/report/" + encodeURIComponent(mt.match_id) + q;
    li.append(a, " ", el("span", "", num(mt.frames_won[0]) + "–" + num(mt.frames_won[1]) + " (" + t("best_of", { n: mt.best_of }) + ")"));
    return li;
  }));
}

// ------------------------------------------------------------------ the live feed
function tableFromPath() {
  const parts = location.pathname.split("/");
  return decodeURIComponent(parts[parts.length - 1]);
}

function connect(tables, onBoard) {
  let delay = 500;
  const open = () => {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = tables ? "?tables=" + encodeURIComponent(tables.join(",")) : "";
    const ws = new WebSocket(proto + "//" + location.host + "/api/live" + q);
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "hello") {
        if (msg.schema !== SCHEMA) console.warn("live feed schema", msg.schema, "expected", SCHEMA);
        document.body.classList.remove("feed-lost");
        delay = 500;
      } else if (msg.type === "board") {
        onBoard(msg.board);
        window.__baulkLast = msg;
      }
    };
    ws.onclose = () => {
      document.body.classList.add("feed-lost");
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    };
  };
  open();
}

// "last seen 12s" must keep counting while no board message comes (offline).
let lastTableBoard = null;

function refreshStatus() {
  if (lastTableBoard) {
    const status = set("status", statusText(lastTableBoard.status));
    if (status) status.dataset.link = lastTableBoard.status.link;
  }
}

function init() {
  document.documentElement.lang = LANG;
  document.documentElement.dir = LANG === "fa" ? "rtl" : "ltr";
  const lost = document.getElementById("feed-lost");
  if (lost) lost.textContent = t("feed_lost");
  if (BOARD === "table") {
    connect([tableFromPath()], (b) => { lastTableBoard = b; renderTable(b); });
    setInterval(refreshStatus, 5000);
  } else if (BOARD === "overlay") {
    connect([tableFromPath()], renderOverlay);
  } else if (BOARD === "venue") {
    set("venue-title", t("venue"));
    connect(null, renderVenueCard);
  } else if (BOARD === "index") {
    renderIndex();
  }
}

init();
