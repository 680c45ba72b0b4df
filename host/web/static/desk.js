// baulk desk: every table with its session, its running bill and its light.
// The cards are drawn once and then updated in place every second: a number
// changes, the buttons stay the very elements they were, so a finger held
// on one while the bill ticks on is never lost.  Closing and voiding ask
// first, naming the table, the players and the amount, and say afterwards
// what was done; every change carries the bill's version, so a tap made on
// a view another phone has changed meanwhile is refused ("the table
// changed: look again") and the card is drawn again.  A card offers only
// what the signed-in role may do (a void is the owner's: js/desk_common.js may).
import { alertWords } from "./js/alerts.js";
import { LANG, el, num, t } from "./js/i18n.js";
import {
  api, ask, dt, label, may, name, role, sentence, setup, showDone, signedIn, withLang,
} from "./js/desk_common.js";

const REFRESH_MS = 1000;
const OPEN = "/api/tables/{table}/session";
const cards = new Map(); // table id -> {card, key, tb}
const alertItems = new Map(); // alert key -> li

function lightText(light) {
  if (light.unsupported) return dt("light_none");
  if (light.state === null || light.state === undefined) return dt("light_unknown");
  return dt(light.state ? "light_on" : "light_off");
}

function setText(e, text) {
  if (e.textContent !== text) e.textContent = text;
}

// The players of a bill's frames, as one isolated list ("Ali, Reza").
function players(bill) {
  const seen = [];
  for (const f of bill.frames) for (const p of f.players) if (p && p !== "?" && !seen.includes(p)) seen.push(p);
  return seen;
}

function playersNode(bill) {
  const out = el("span");
  const list = players(bill);
  list.forEach((p, i) => { if (i) out.append(LANG === "fa" ? "، " : ", "); out.append(name(p)); });
  return out;
}

// ---------------------------------------------------------------------- actions
async function act(path, body) {
  try {
    const data = await api(path, body || {});
    await refresh();
    return data;
  } catch (e) {
    if (e.status === 409) await refresh(); // the table changed: draw it as it is now
    return null;
  }
}

// The question a destructive tap asks: the session, the table, its players
// and what the bill comes to now.
function question(key, tb) {
  return sentence(key, {
    n: tb.bill.session_id, table: tb.name, players: playersNode(tb.bill),
    amount: document.createTextNode(tb.receipt[LANG].total),
  });
}

async function closeSession(entry) {
  const tb = entry.tb;
  const b = tb.bill;
  if (!(await ask(question("ask_close", tb), { yes: "close" }))) return;
  const done = await act("/api/sessions/" + b.session_id + "/close", { version: b.version });
  if (done) location.href = withLang("/desk/receipt/" + b.session_id + "?done=close");
}

async function voidSession(entry) {
  const tb = entry.tb;
  const b = tb.bill;
  const reason = await ask(question("ask_void", tb), { reason: true, yes: "void" });
  if (reason === null) return;
  const done = await act("/api/sessions/" + b.session_id + "/void", { reason, version: b.version });
  if (!done) return;
  // Nothing tapped by mistake is final: the answer offers the void's undo
  // at once, to whoever may void (the receipt page keeps it for later).
  const said = el("span", null);
  said.append(sentence("done_void", { n: b.session_id, table: tb.name }), " ",
    button("unvoid", "unvoid", () => unvoidSession(b.session_id, tb.name)));
  showDone(said);
}

async function unvoidSession(session, table) {
  const reason = await ask(sentence("ask_unvoid", { n: session, table }), { reason: true, yes: "unvoid" });
  if (reason === null) return;
  const done = await act("/api/sessions/" + session + "/void", { reason, undo: true });
  if (done) {
    showDone(sentence("done_unvoid", {
      n: session, table, total: document.createTextNode(done.receipt[LANG].total),
    }));
  }
}

async function addItem(entry, item) {
  const b = entry.tb.bill;
  const done = await act("/api/sessions/" + b.session_id + "/items",
    { item: item.name, quantity: 1, version: b.version });
  if (done) {
    showDone(sentence("done_item", {
      item: LANG === "fa" ? item.name_fa : item.name, n: b.session_id,
      amount: document.createTextNode(item.price_text[LANG]),
    }));
  }
}

async function openSession(tb) {
  const done = await act("/api/tables/" + encodeURIComponent(tb.table) + "/session");
  if (done) showDone(sentence("done_open", { n: done.bill.session_id, table: tb.name }));
}

// ---------------------------------------------------------------------- cards
function button(cls, key, onClick) {
  const b = el("button", cls, dt(key));
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function sessionBody(entry) {
  const tb = entry.tb;
  const body = [];
  body.push(el("p", "session", dt("session", { n: tb.bill.session_id })));
  body.push(el("p", "players"));
  const dl = el("dl");
  for (const k of ["opened", "minutes_open", "in_play", "frames", "items", "running"]) {
    const dd = el("dd", k === "running" ? "running" : k);
    dd.dataset.k = k;
    dl.append(el("dt", null, dt(k)), dd);
  }
  body.push(dl);
  const inFrame = el("p", "in-frame", dt("in_frame"));
  body.push(inFrame);
  const actions = el("div", "actions");
  const allowed = (route) => may("POST", "/api/sessions/{session}" + route);
  if (allowed("/close")) actions.append(button("close", "close", () => closeSession(entry)));
  const menu = el("div", "menu");
  menu.hidden = true;
  if (tb.items.length && allowed("/items")) {
    actions.append(button("add-item", "add_item", () => { menu.hidden = !menu.hidden; }));
    for (const item of tb.items) {
      const b = el("button", "item");
      b.type = "button";
      b.dataset.item = item.name;
      b.append(name(LANG === "fa" ? item.name_fa : item.name), " ", el("span", "price", item.price_text[LANG]));
      b.addEventListener("click", () => { menu.hidden = true; addItem(entry, item); });
      menu.append(b);
    }
  }
  if (allowed("/void")) actions.append(button("void", "void", () => voidSession(entry)));
  const receipt = el("a", "receipt-link", dt("receipt"));
  receipt.href = withLang("/desk/receipt/" + tb.bill.session_id);
  actions.append(receipt);
  body.push(actions, menu);
  return body;
}

function freeBody(tb) {
  const body = [el("p", "session none", dt("no_session"))];
  if (tb.tariff === null) body.push(el("p", "warn", dt("no_tariff")));
  else if (may("POST", OPEN)) body.push(button("open", "open", () => openSession(tb)));
  return body;
}

// Only the numbers and words change: no element of the card is replaced
// unless the session itself changed (opened, closed).
function fill(entry) {
  const { card, tb } = entry;
  card.dataset.link = tb.link;
  card.dataset.light = String(tb.light.state);
  setText(card.querySelector("h3 bdi.name"), tb.name);
  const link = card.querySelector("h3 .link");
  link.className = "link " + tb.link;
  setText(link, dt(tb.link));
  setText(card.querySelector(".light-state"), lightText(tb.light));
  if (!tb.bill) return;
  const r = tb.receipt[LANG];
  const b = tb.bill;
  card.dataset.version = b.version;
  const values = {
    opened: r.info.find((x) => x.key === "opened").value.join(""),
    minutes_open: r.info.find((x) => x.key === "minutes_open").value.join(""),
    in_play: r.info.find((x) => x.key === "minutes_in_play").value.join(""),
    frames: num(b.frames_played),
    items: r.items_total,
    running: r.total,
  };
  for (const dd of card.querySelectorAll("dd[data-k]")) setText(dd, values[dd.dataset.k]);
  const who = players(b).join("\u0000");
  const p = card.querySelector("p.players");
  if (p.dataset.who !== who) { p.dataset.who = who; p.replaceChildren(playersNode(b)); }
  card.querySelector(".in-frame").hidden = !tb.in_frame;
}

function cardOf(tb) {
  let entry = cards.get(tb.table);
  if (!entry) {
    const card = el("div", "card");
    card.id = "table-" + tb.table;
    const head = el("h3");
    head.append(name(tb.name), " ", el("span", "link"));
    const light = el("p", "light");
    light.append(dt("light") + ": ", el("span", "light-state"));
    card.append(head, light, el("div", "body"));
    entry = { card, key: null, tb };
    cards.set(tb.table, entry);
  }
  entry.tb = tb;
  // drawn again for another session, or another role signed in
  const key = (tb.bill ? "s" + tb.bill.session_id : "free") + ":" + role();
  if (entry.key !== key) {
    entry.key = key;
    entry.card.dataset.session = tb.bill ? String(tb.bill.session_id) : "";
    entry.card.querySelector(".body").replaceChildren(...(tb.bill ? sessionBody(entry) : freeBody(tb)));
  }
  fill(entry);
  return entry.card;
}

function alertOf(a, names) {
  const key = [a.kind, a.table, a.session, role()].join(":");
  let li = alertItems.get(key);
  const w = alertWords(a, names[a.table] || a.table);
  const text = t("desk_" + w.key, { ...w.vars, ...w.names });
  if (!li) {
    li = el("li", "alert " + a.kind);
    li.dataset.kind = a.kind;
    li.append(el("span", "text"));
    if (a.kind === "confirm" && may("POST", "/api/sessions/{session}/confirm")) {
      li.append(" ", button("confirm", "confirm", () => act("/api/sessions/" + a.session + "/confirm")));
    } else if (a.kind === "no_session" && may("POST", OPEN)) {
      const tb = { table: a.table, name: names[a.table] || a.table };
      li.append(" ", button("open", "open", () => openSession(tb)));
    }
    alertItems.set(key, li);
  }
  const span = li.querySelector(".text");
  if (span.dataset.text !== text) {
    span.dataset.text = text;
    const words = el("span");
    words.append(...sentence(w.key, { ...w.vars, ...w.names }).childNodes);
    span.replaceChildren(...words.childNodes);
  }
  return [key, li];
}

// Puts ``kids`` in ``box`` in order, moving none that is already in place.
function keep(box, kids) {
  kids.forEach((kid, i) => {
    if (box.children[i] !== kid) box.insertBefore(kid, box.children[i] || null);
  });
  while (box.children.length > kids.length) box.lastElementChild.remove();
}

async function refresh() {
  if (!signedIn()) return; // the desk is read under a sign-in only
  let data;
  // quiet: a refresh never erases what a tap got back; a refresh that
  // finds no server puts up the offline banner (js/answer.js).
  try { data = await api("/api/desk", undefined, { quiet: true }); } catch (e) { return; }
  const names = {};
  for (const tb of data.tables) names[tb.table] = tb.name;
  const shown = data.alerts.map((a) => alertOf(a, names));
  const live = new Set(shown.map(([k]) => k));
  for (const k of [...alertItems.keys()]) if (!live.has(k)) alertItems.delete(k);
  const list = shown.map(([, li]) => li);
  if (!list.length) list.push(quiet);
  keep(document.getElementById("alerts"), list);
  keep(document.getElementById("tables"), data.tables.map(cardOf));
  document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
}

const quiet = el("li", "quiet");

function init() {
  document.getElementById("title").textContent = dt("desk");
  const day = document.getElementById("day-link");
  day.href = withLang("/desk/day");
  day.textContent = dt("day");
  label("h-alerts", "alerts");
  label("h-tables", "tables");
  quiet.textContent = dt("no_alerts");
  setInterval(refresh, REFRESH_MS);
}

setup(init, refresh);
