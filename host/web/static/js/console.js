// The operator console: sign in once, by name and password or with the
// operator token (js/signin.js: the server answers with a cookie the page
// cannot read, and a CSRF token kept here in memory only), then run every
// table the account may run from a phone: start a match,
// correct it, and score by hand when the handset is broken (R5.21).  Every
// action shows what the table answered, in the page's language.
import {
  LANG, bdi, byId, el, num, params, setKids, setText, setupPage, t, tn, withLang,
} from "./i18n.js";
import { alertWords } from "./alerts.js";
import { send, showAnswer } from "./answer.js";
import { connect } from "./live.js";
import { ball, linkClass, pair, statusText } from "./parts.js";
import { showPockets } from "./pockets.js";
import { sessionState, signInForm, signOut as endSignIn, whoText } from "./signin.js";

setupPage();
document.title = t("console") + " | " + t("brand");
for (const e of document.querySelectorAll(".n")) e.textContent = num(e.textContent);
byId("best-of").value = num(7);

const MEASURE = params.has("measure");
if (MEASURE) window.__baulkActions = [];
const boards = new Map();
let csrf = null;
let may = new Set(); // the routes the signed-in role may use (the role table's)
let limitedTo = null; // the only tables it may act on (a referee's list), or null
let selected = params.get("table");
// Chosen by the address or a tap: that table, and no other, even while its
// board has not arrived yet; else the first table in order.
let chosen = !!selected;
let vocabulary = null;

// ------------------------------------------------------------------ answers
function showResult(kind, kids, clicked) {
  showAnswer(byId("result"), kind, kids);
  if (MEASURE && clicked !== undefined) {
    requestAnimationFrame(() => setTimeout(() => {
      window.__baulkActions.push({ kind, clicked, shown: performance.now() });
    }, 0));
  }
}

function scoresText(scores) {
  const board = boards.get(selected);
  const names = board && board.match ? board.match.names : ["", ""];
  return [bdi(names[0]), " ", pair(scores[0], scores[1]), " ", bdi(names[1])];
}

async function post(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (csrf) headers["X-CSRF-Token"] = csrf;
  const sep = path.includes("?") ? "&" : "?";
  // No answer within the deadline (js/answer.js) throws: act says so.
  const { status, data } = await send(path + sep + "lang=" + LANG, {
    method: "POST", headers, body: JSON.stringify(body), credentials: "same-origin",
  });
  return { status, data: data && typeof data === "object" ? data : {} };
}

// One action, or a few in order (a stroke: strike, pot): stops at the first
// refusal.  Returns true when the table took them all.
async function act(path, bodies, clicked) {
  showResult("busy", [t("sending")]);
  let answer = null;
  try {
    for (const body of bodies) {
      answer = await post(path, body);
      if (answer.status >= 300) break;
    }
  } catch (e) {
    showResult("error", [t("no_answer")], clicked);
    return false;
  }
  const { status, data } = answer;
  if (status === 200) {
    const said = data.scores ? scoresText(data.scores) : data.message ? [data.message] : [];
    showResult("done", said.length ? [t("done"), ": ", ...said] : [t("done")], clicked);
    return true;
  }
  if (status === 202) {
    showResult("queued", [t("queued")], clicked);
    return true;
  }
  if (status === 401 && csrf) {
    csrf = null;
    showSignedIn(null);
    showResult("error", [t("session_ended")], clicked);
    return false;
  }
  showResult("error", [data.message || data.error || String(status)], clicked);
  return false;
}

// The table as this phone shows it: an action taken on it (undo, award,
// concede, ...) is refused if the table changed since, or another phone's
// action is on its way ("the table changed: look again"), so two referees
// pressing Undo together undo one event, not two.
function seen(board) {
  return board && Number.isInteger(board.events) ? { version: board.events } : {};
}

function command(bodies, clicked) {
  return act("/api/tables/" + encodeURIComponent(selected) + "/command", bodies, clicked);
}

// ------------------------------------------------------------------ confirmation
function confirmed(text) {
  const dialog = byId("confirm");
  setKids("confirm-text", text);
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
  });
}

// ------------------------------------------------------------------ forms
function nameProblem(value, what) {
  const text = value.trim();
  if (!text) return t("err_name_empty", { what });
  if (new TextEncoder().encode(text).length > vocabulary.name_bytes) return t("err_name_long", { what });
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) return t("err_name_control", { what });
  return null;
}

function nameInputs(box, doubles, values) {
  const kids = [];
  for (let side = 0; side < 2; side++) {
    for (let i = 0; i < (doubles ? 2 : 1); i++) {
      const label = doubles ? t("pair_player", { p: side + 1, n: i + 1 }) : t("player_n", { n: side + 1 });
      const input = el("input");
      input.type = "text";
      input.autocomplete = "off";
      input.setAttribute("list", "known-players");
      input.dataset.side = side;
      input.dataset.label = label;
      input.value = values ? (doubles ? values[side][i] : values[side]) : "";
      const wrap = el("label", "", null);
      wrap.append(el("span", "", label), input);
      kids.push(wrap);
    }
  }
  setKids(box, kids);
}

// The players typed in ``box``, checked; throws the first problem's sentence.
function playersOf(box, doubles) {
  const inputs = [...box.querySelectorAll("input")];
  for (const input of inputs) {
    const problem = nameProblem(input.value, input.dataset.label);
    if (problem) {
      input.focus();
      throw new Error(problem);
    }
  }
  const names = inputs.map((i) => i.value.trim());
  return doubles ? [[names[0], names[1]], [names[2], names[3]]] : [names[0], names[1]];
}

function doublesMode() {
  return byId("match-form").elements.mode.value === "doubles";
}

function running(board) {
  return !!(board && board.match && board.state && !board.state.match_over);
}

async function startMatch(event) {
  event.preventDefault();
  const clicked = performance.now();
  const form = byId("match-form");
  setText("match-error", "");
  const doubles = doublesMode();
  let players;
  try {
    players = playersOf(byId(doubles ? "doubles-names" : "singles-names"), doubles);
  } catch (e) {
    setText("match-error", e.message);
    return;
  }
  const typed = form.elements.best_of.value.trim().replace(/[۰-۹]/g, (d) => "۰۱۲۳۴۵۶۷۸۹".indexOf(d))
    .replace(/[٠-٩]/g, (d) => "٠١٢٣٤٥٦٧٨٩".indexOf(d));
  const bestOf = /^[0-9]{1,3}$/.test(typed) ? Number(typed) : NaN;
  if (!Number.isInteger(bestOf) || bestOf < 1 || bestOf > 35 || bestOf % 2 === 0) {
    setText("match-error", t("err_best_of"));
    form.elements.best_of.focus();
    return;
  }
  const body = { players, best_of: bestOf, reds: Number(form.elements.reds.value),
    breaker: Number(form.elements.breaker.value) };
  const referee = form.elements.referee.value.trim();
  if (referee) {
    const problem = nameProblem(referee, t("referee"));
    if (problem) {
      setText("match-error", problem);
      return;
    }
    body.who = referee;
  }
  const board = boards.get(selected);
  if (running(board) && !(await confirmed([t("confirm_replace")]))) return;
  // The match this phone was showing: another phone's newer one is not replaced unseen.
  body.expect = board && board.match && board.match.match_id ? board.match.match_id : null;
  const ok = await act("/api/tables/" + encodeURIComponent(selected) + "/match", [body], clicked);
  if (ok) byId("match-box").open = false;
}

// "Breaks off": the names typed in the new match's form (a pair's two
// names together), each side's number while nothing is typed.
function breakerNames() {
  const box = byId(doublesMode() ? "doubles-names" : "singles-names");
  for (const e of document.querySelectorAll(".side-label")) {
    const side = e.dataset.side;
    const typed = [...box.querySelectorAll(`input[data-side="${side}"]`)].map((i) => i.value.trim()).filter(Boolean);
    const text = typed.length ? typed.join(" & ") : t("side_n", { n: Number(side) + 1 });
    if (e.textContent !== text) setKids(e, [typed.length ? bdi(text) : text]);
  }
}

async function fixNames(event) {
  event.preventDefault();
  const board = boards.get(selected);
  if (!board || !board.match) return;
  setText("names-error", "");
  const doubles = Array.isArray(board.match.players[0]);
  let players;
  try {
    players = playersOf(byId("fix-names"), doubles);
  } catch (e) {
    setText("names-error", e.message);
    return;
  }
  // The names as this phone shows them: another phone's correction is not replaced unseen.
  const body = { players, expect: board.match.players };
  await act("/api/tables/" + encodeURIComponent(selected) + "/names", [body], performance.now());
}

// ------------------------------------------------------------------ the keypad
function stroke(...events) {
  const open = boards.get(selected)?.state?.stroke_open;
  return command([...(open ? [] : [{ ev: "strike" }]), ...events], performance.now());
}

function ballButtons(id, balls, onClick) {
  setKids(id, balls.map((name) => {
    const b = el("button", "ballbtn");
    b.type = "button";
    b.dataset.ball = name;
    b.append(ball(name), el("span", "", t(name)));
    b.addEventListener("click", () => onClick(name));
    return b;
  }));
}

function setupKeypad() {
  const v = vocabulary;
  ballButtons("pot-balls", v.balls, (b) => stroke({ ev: "pot", ball: b }));
  ballButtons("nominate-balls", v.colours, (b) => command([{ ev: "nominate", ball: b }], performance.now()));
  const kinds = [...v.foul_kinds.ball_on, ...v.foul_kinds.higher, ...v.foul_kinds.seven];
  setKids("foul-kind", kinds.map((k) => {
    const o = el("option", "", t("foul_" + k));
    o.value = k;
    return o;
  }));
  const none = el("option", "", t("none"));
  none.value = "";
  setKids("foul-ball", [none, ...v.balls.map((b) => {
    const o = el("option", "", t(b));
    o.value = b;
    return o;
  })]);
  byId("rest").addEventListener("click", () => stroke({ ev: "rest" }));
  byId("foul-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const foul = { ev: "foul", kind: byId("foul-kind").value };
    if (byId("foul-ball").value) foul.ball = byId("foul-ball").value;
    const events = [foul];
    if (byId("foul-miss").checked) events.push(byId("foul-clear").checked ? { ev: "miss", clear: true } : { ev: "miss" });
    command(events, performance.now());
  });
}

// ------------------------------------------------------------------ tables
function summary(board) {
  const st = board.state;
  const m = board.match;
  const kids = [];
  const head = el("div", "shead");
  const status = el("span", "pill", statusText(board.status));
  status.dataset.link = linkClass(board.status);
  head.append(bdi(board.name, "strong"), status);
  kids.push(head);
  if (!st || !m) {
    kids.push(el("p", "dim", t("no_match")));
    return kids;
  }
  for (const side of [0, 1]) {
    const row = el("div", "srow" + (!st.match_over && st.striker === side ? " striker" : ""));
    row.append(bdi(m.names[side], "sname"), el("span", "sframes", num(st.frames[side])),
      el("span", "sscore", num(st.scores[side])));
    kids.push(row);
  }
  const facts = el("p", "facts");
  facts.append(el("span", "", t("best_of", { n: m.best_of })), el("span", "", t("frame", { n: st.frame })));
  if (st.match_over) facts.append(el("b", "", t("match_over")));
  else {
    if (st.ball_on) {
      const on = el("span", "");
      on.append(t("ball_on") + " ", ball(st.ball_on), " ", st.ball_on === "colour" ? t("any_colour") : t(st.ball_on));
      facts.append(on);
    }
    if (st.break) facts.append(el("span", "", t("break") + " " + num(st.break)));
    if (st.player) {
      const at = el("span", "");
      at.append(t("at_table") + ": ", bdi(st.player));
      facts.append(at);
    }
  }
  kids.push(facts);
  return kids;
}

function sideButtons(board) {
  const names = board.match ? board.match.names : ["", ""];
  for (const box of document.querySelectorAll(".sides")) {
    const kids = [el("span", "glabel", t(box.dataset.label))];
    for (const side of [0, 1]) {
      const b = el("button", box.dataset.match ? "danger" : "");
      b.type = "button";
      b.append(bdi(names[side] || t("side_n", { n: side + 1 })));
      b.addEventListener("click", async () => {
        const clicked = performance.now();
        const now = boards.get(selected);
        const ev = { ev: box.dataset.ev, side, ...seen(now) };
        if (box.dataset.ev === "award" && now && now.state) {
          if (box.dataset.match) ev.match = true;
          const key = box.dataset.match ? "confirm_award_match" : "confirm_award_frame";
          if (!(await confirmed(tn(key, { name: names[side], n: now.state.frame, score: scoreLine(now) })))) return;
          const said = afterWin(now, side, !!box.dataset.match, "awarded");
          if (await command([ev], clicked)) showResult("done", said, clicked);
          return;
        }
        command([ev], clicked);
      });
      kids.push(b);
    }
    setKids(box, kids);
  }
}

// "Ali 45–12 Reza": the frame's score as the confirmations name it.
function scoreLine(board) {
  const n = board.match.names;
  const st = board.state;
  return [n[0], num(st.scores[0]) + "–" + num(st.scores[1]), n[1]].join(" ");
}

// What was done, in words, once the table took it: "Frame 2 awarded to
// Reza, 1–1" (the frames as they stand after it).
function afterWin(board, side, match, how) {
  const frames = [...board.state.frames];
  const winner = board.match.names[side];
  if (match) return tn("done_match_" + how, { name: winner });
  frames[side] += 1;
  const over = frames[side] > board.match.best_of / 2;
  const key = over ? "done_frame_" + how + "_match" : "done_frame_" + how;
  return tn(key, { name: winner, n: board.state.frame, frames: num(frames[0]) + "–" + num(frames[1]) });
}

// The pockets box follows the selected table and what its board says of its
// sensors (a check started, ended, new counts).
let pocketsKey = null;

function renderPockets(board) {
  const sensors = board.sensors || {};
  byId("check-running").hidden = !sensors.checking;
  byId("pocket-check").disabled = !!sensors.checking;
  // Open, the box follows every event too: a disagreement is found by the
  // host as the events arrive.
  const open = byId("pockets-box").open;
  const key = JSON.stringify([selected, sensors, open ? board.events : null]);
  if (key === pocketsKey) return;
  pocketsKey = key;
  showPockets(selected);
}

// Only what the signed-in role may do on this table is offered: each part
// of the panel with the route it sends, from the sign-in state (its "may"
// and "limited_to", host/staff/roles.py): a desk clerk gets the names, a
// referee his own tables, nobody a button the server would refuse.
const OFFERS = [["match-box", "match"], ["actions-box", "command"], ["keypad-box", "command"],
  ["names-box", "names"], ["pockets-box", "pocket-check"], ["handset-box", "handset"]];

function offer(board) {
  const here = limitedTo === null || limitedTo.includes(selected);
  for (const [id, route] of OFFERS) {
    const yes = here && may.has("POST /api/tables/{table}/" + route);
    byId(id).hidden = !yes || (id === "names-box" && !board.match); // names: of a match
  }
}

function renderPanel() {
  const board = boards.get(selected);
  byId("panel").hidden = !board;
  if (!board) return;
  renderPockets(board);
  setKids("summary", summary(board));
  const st = board.state;
  const m = board.match;
  const key = JSON.stringify(m ? m.names : null);
  if (byId("panel").dataset.names !== key) {
    byId("panel").dataset.names = key;
    sideButtons(board);
    const doubles = !!(m && Array.isArray(m.players[0]));
    nameInputs(byId("fix-names"), doubles, m ? m.players : null);
  }
  offer(board);
  setText("stroke-state", st && st.stroke_open ? t("stroke_open") : "");
  setText("rest", st && st.stroke_open ? t("stroke_end") : t("stroke_nothing"));
  breakerNames();
  const id = encodeURIComponent(selected);
  if (byId("panel").dataset.table !== selected) {
    byId("panel").dataset.table = selected;
    showHandset();
  }
  byId("board-link").href = withLang("/table/" + id);
  const matchId = m && m.match_id;
  for (const [link, path] of [["report-link", ""], ["sheet-link", "/sheet"]]) {
    byId(link).hidden = !matchId;
    if (matchId) byId(link).href = withLang("/report/" + encodeURIComponent(matchId) + path);
  }
}

function renderTables() {
  setKids("tables", [...boards.keys()].sort().map((id) => {
    const board = boards.get(id);
    const b = el("button", "tablebtn" + (id === selected ? " selected" : ""));
    b.type = "button";
    b.setAttribute("role", "listitem");
    b.setAttribute("aria-pressed", id === selected ? "true" : "false");
    const status = el("span", "pill", statusText(board.status, true));
    status.dataset.link = linkClass(board.status);
    b.append(bdi(board.name, "strong"), status);
    if (board.match && board.state) {
      const score = el("span", "tscore");
      score.append(bdi(board.match.names[0]), pair(board.state.frames[0], board.state.frames[1]),
        bdi(board.match.names[1]));
      b.append(score);
    }
    b.addEventListener("click", () => {
      selected = id;
      chosen = true;
      renderTables();
      renderPanel();
    });
    return b;
  }));
}

// What the console shows of a board: a message that changes none of it (the
// link's counters, a version) draws nothing.
const shownKeys = new Map();

function shownKey(board) {
  const st = board.state || {};
  return JSON.stringify([board.name, statusText(board.status), board.match,
    st.frames, st.scores, st.striker, st.ball_on, st.break, st.stroke_open, st.match_over,
    st.player, st.frame, board.sensors, byId("pockets-box").open ? board.events : null]);
}

function onBoard(board) {
  boards.set(board.table, board);
  const before = selected;
  if (!chosen) selected = [...boards.keys()].sort()[0];
  const key = shownKey(board);
  const same = shownKeys.get(board.table) === key;
  shownKeys.set(board.table, key);
  if (same && before === selected) return;
  renderTables();
  if (board.table === selected || before !== selected) renderPanel();
}

// ------------------------------------------------------------------ players
// Names the registry knows (GET /api/players), offered as the operator types:
// the same player is then spelled the same way from match to match.
let lookup = null;

function suggestPlayers(event) {
  const input = event.target;
  if (!(input instanceof HTMLInputElement) || input.getAttribute("list") !== "known-players") return;
  clearTimeout(lookup);
  const q = input.value.trim();
  if (!q) return;
  lookup = setTimeout(async () => {
    const r = await fetch("/api/players?limit=8&q=" + encodeURIComponent(q));
    if (!r.ok) return; // a board with no store, or nothing yet
    const players = (await r.json()).players || [];
    setKids("known-players", players.map((p) => {
      const o = el("option");
      o.value = p.name;
      return o;
    }));
  }, 150);
}

// ------------------------------------------------------------------ the handset
async function showHandset() {
  const table = selected;
  if (!table) return;
  const r = await fetch("/api/tables/" + encodeURIComponent(table) + "/handset");
  if (!r.ok || table !== selected) return;
  const { lang } = await r.json();
  for (const b of document.querySelectorAll("#handset-box button")) {
    b.setAttribute("aria-pressed", b.dataset.handset === lang ? "true" : "false");
  }
  // The one in use, in words: the host's choice, or the device's own.
  const now = byId("handset-now");
  now.dataset.lang = lang || "";
  now.textContent = lang ? t("handset_now", { lang: t("lang_" + lang) }) : t("handset_device");
}

async function setHandset(lang, clicked) {
  const path = "/api/tables/" + encodeURIComponent(selected) + "/handset";
  await act(path, [{ lang }], clicked);
  showHandset();
}

// ------------------------------------------------------------------ the desk's alerts
const ALERTS_EVERY_MS = 5000;

async function showAlerts() {
  if (!csrf) return;
  const r = await fetch("/api/desk", { headers: { "X-CSRF-Token": csrf }, credentials: "same-origin" });
  if (!r.ok) return;
  const desk = await r.json();
  const names = Object.fromEntries((desk.tables || []).map((tb) => [tb.table, tb.name]));
  const alerts = desk.alerts || [];
  byId("alerts").hidden = !alerts.length;
  setKids("alert-list", alerts.map((a) => {
    const w = alertWords(a, names[a.table] || a.table);
    const li = el("li", "alert " + a.kind);
    li.append(...tn("desk_" + w.key, { ...w.vars, ...w.names }));
    return li;
  }));
}

// ------------------------------------------------------------------ sign-in
function showSignedIn(state) {
  const yes = !!(state && state.signed_in);
  may = new Set(yes ? state.may || [] : []);
  limitedTo = yes ? state.limited_to ?? null : null;
  if (boards.has(selected)) renderPanel();
  byId("signin").hidden = yes;
  byId("work").hidden = !yes;
  byId("sign-out").hidden = !yes;
  setKids("who-box", [whoText(state)]);
}

function signedIn(state) {
  csrf = state.csrf;
  showSignedIn(state);
  showResult("done", [t("signed_in")]);
}

async function signOut() {
  await endSignIn(csrf);
  csrf = null;
  showSignedIn(null);
  showResult("done", [t("signed_out")]);
}

async function start() {
  const session = await sessionState();
  vocabulary = await (await fetch("/api/vocabulary")).json();
  if (!session.actions_enabled) {
    byId("notice-off").hidden = false;
    return;
  }
  csrf = session.csrf;
  nameInputs(byId("singles-names"), false, null);
  nameInputs(byId("doubles-names"), true, null);
  for (const radio of byId("match-form").elements.mode) {
    radio.addEventListener("change", () => {
      byId("singles-names").hidden = doublesMode();
      byId("doubles-names").hidden = !doublesMode();
      breakerNames();
    });
  }
  byId("match-form").addEventListener("input", breakerNames);
  breakerNames();
  setupKeypad();
  for (const b of document.querySelectorAll("#panel .buttons button[data-ev]")) {
    b.addEventListener("click", async () => {
      const clicked = performance.now();
      const board = boards.get(selected);
      const ev = { ev: b.dataset.ev, ...seen(board) };
      if (b.dataset.ev === "concede" && board && board.state && board.match) {
        // The player at the table concedes: the other side wins the frame.
        const striker = board.state.striker;
        const names = board.match.names;
        if (b.dataset.match) ev.match = true;
        const key = b.dataset.match ? "confirm_concede_match" : "confirm_concede_frame";
        const vars = { name: names[striker], n: board.state.frame, score: scoreLine(board) };
        if (!(await confirmed(tn(key, vars)))) return;
        const said = afterWin(board, 1 - striker, !!b.dataset.match, "conceded");
        if (await command([ev], clicked)) showResult("done", said, clicked);
        return;
      }
      command([ev], clicked);
    });
  }
  signInForm(byId("signin-box"), signedIn);
  byId("sign-out").addEventListener("click", signOut);
  byId("match-form").addEventListener("submit", startMatch);
  byId("names-form").addEventListener("submit", fixNames);
  byId("pockets-box").addEventListener("toggle", () => {
    const board = boards.get(selected);
    if (board) renderPockets(board);
  });
  byId("pocket-check").addEventListener("click", () => {
    act("/api/tables/" + encodeURIComponent(selected) + "/pocket-check", [{}], performance.now());
  });
  byId("work").addEventListener("input", suggestPlayers);
  for (const b of document.querySelectorAll("#handset-box button")) {
    b.addEventListener("click", () => setHandset(b.dataset.handset, performance.now()));
  }
  showSignedIn(session);
  connect(null, onBoard);
  showAlerts();
  setInterval(showAlerts, ALERTS_EVERY_MS);
}

start();
