// baulk desk: table sessions, receipts and the daily report.  One script for
// the three pages (<body data-page="desk|receipt|day">).  The API needs a
// staff sign-in (js/signin.js: a cookie the page cannot read, and a CSRF
// token it sends with every request); nothing typed into the sign-in is
// kept by the page.  A first visit shows the sign-in form and nothing else.
// Everything typed by a person (names, reasons) is drawn with textContent,
// and in Persian wrapped in <bdi> so a Latin name keeps its own direction.
import { alertWords } from "./js/alerts.js";
import { LANG, bdi, el, num, params, setText, t, tn } from "./js/i18n.js";
import { sessionState, signInForm, signOut, whoText } from "./js/signin.js";

const PAGE = document.body.dataset.page;
let CSRF = null; // the signed-in session's CSRF token, from /console/session
let ROLE = null; // the signed-in account's role
const REFRESH_MS = 1000;

// A sentence of the desk's words, names dropped into it as isolated elements.
function sentence(key, names, vars) {
  const out = el("span");
  out.append(...tn("desk_" + key, { ...vars, ...names }));
  return out;
}

// A name as a person typed it: its own direction inside either language.
function name(text) {
  return bdi(text, "name");
}

// The desk's words: the keys of words.json that begin with "desk_".
function dt(key, vars) {
  return t("desk_" + key, vars);
}

function label(id, key) {
  setText(id, dt(key));
}

function headers() { return CSRF ? { "X-CSRF-Token": CSRF } : {}; }

// Signed in or not: the sign-in form, or who is signed in and a sign-out.
function showState(state) {
  CSRF = state && state.signed_in ? state.csrf : null;
  ROLE = CSRF ? state.role : null;
  document.getElementById("signin-box").hidden = CSRF !== null;
  document.getElementById("sign-out").hidden = CSRF === null;
  document.getElementById("who-box").replaceChildren(whoText(state));
}

function withQuery(path) { return path + (path.includes("?") ? "&" : "?") + "lang=" + LANG; }

function showError(text) {
  const e = document.getElementById("error");
  e.textContent = text || "";
}

async function api(path, body) {
  const init = { headers: headers() };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(withQuery(path), init);
  const type = r.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await r.json() : await r.text();
  if (r.status === 401) { // the sign-in ended (or there was none): sign in again
    showState(null);
    throw new Error("signed out");
  }
  if (!r.ok) { // a refusal (a role that may not, a bad amount) says why, in this language
    showError(dt("failed", { why: data && (data.message || data.error) ? data.message || data.error : r.status }));
    throw new Error("status " + r.status);
  }
  showError("");
  return data;
}

async function download(path, filename) {
  const r = await fetch(path, { headers: headers() });
  if (!r.ok) { showError(dt("failed", { why: r.status })); return; }
  const url = URL.createObjectURL(await r.blob());
  const a = el("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

function langLink() {
  const a = document.getElementById("lang");
  const p = new URLSearchParams(location.search);
  if (LANG === "fa") p.delete("lang"); else p.set("lang", "fa");
  a.href = "?" + p.toString();
  a.textContent = t("lang_switch");
  a.lang = LANG === "fa" ? "en" : "fa";
}

function withLang(path) { return LANG === "fa" ? path + "?lang=fa" : path; }

// ---------------------------------------------------------------------- the desk
function lightText(light) {
  if (light.unsupported) return dt("light_none");
  if (light.state === null || light.state === undefined) return dt("light_unknown");
  return dt(light.state ? "light_on" : "light_off");
}

function alertItem(a, names) {
  const li = el("li", "alert " + a.kind);
  li.dataset.kind = a.kind;
  const w = alertWords(a, names[a.table] || a.table);
  li.append(sentence(w.key, w.names, w.vars));
  if (a.kind === "confirm") {
    const b = el("button", "confirm", dt("confirm"));
    b.addEventListener("click", () => act("/api/sessions/" + a.session + "/confirm"));
    li.append(" ", b);
  } else if (a.kind === "no_session") {
    const b = el("button", "open", dt("open"));
    b.addEventListener("click", () => act("/api/tables/" + encodeURIComponent(a.table) + "/session"));
    li.append(" ", b);
  }
  return li;
}

function tableCard(tb) {
  const card = el("div", "card");
  card.id = "table-" + tb.table;
  card.dataset.session = tb.bill ? String(tb.bill.session_id) : "";
  card.dataset.link = tb.link;
  card.dataset.light = String(tb.light.state);
  const head = el("h3");
  head.append(name(tb.name), " ", el("span", "link " + tb.link, dt(tb.link)));
  card.append(head);
  const light = el("p", "light");
  light.append(dt("light") + ": ", el("span", "light-state", lightText(tb.light)));
  card.append(light);
  if (tb.bill) {
    const b = tb.bill;
    const r = tb.receipt[LANG];
    card.append(el("p", "session", dt("session", { n: b.session_id })));
    const dl = el("dl");
    const rows = [
      ["opened", r.opened], ["minutes_open", r.minutes_open], ["in_play", r.minutes_in_play],
      ["frames", r.frames_played], ["running", r.total],
    ];
    for (const [k, v] of rows) {
      dl.append(el("dt", null, dt(k)), el("dd", k === "running" ? "running" : null, v));
    }
    card.append(dl);
    if (tb.in_frame) card.append(el("p", "in-frame", dt("in_frame")));
    const close = el("button", "close", dt("close"));
    close.addEventListener("click", async () => {
      const done = await act("/api/sessions/" + b.session_id + "/close");
      if (done) location.href = withLang("/desk/receipt/" + b.session_id);
    });
    card.append(close);
  } else {
    card.append(el("p", "session none", dt("no_session")));
    if (tb.tariff === null) card.append(el("p", "warn", dt("no_tariff")));
    else {
      const open = el("button", "open", dt("open"));
      open.addEventListener("click", () => act("/api/tables/" + encodeURIComponent(tb.table) + "/session"));
      card.append(open);
    }
  }
  return card;
}

async function act(path, body) {
  try {
    const data = await api(path, body || {});
    await refreshDesk();
    return data;
  } catch (e) {
    return null;
  }
}

async function refreshDesk() {
  if (!CSRF) return;
  let data;
  try { data = await api("/api/desk"); } catch (e) { return; }
  const names = {};
  for (const tb of data.tables) names[tb.table] = tb.name;
  const alerts = data.alerts.map((a) => alertItem(a, names));
  if (!alerts.length) alerts.push(el("li", "quiet", dt("no_alerts")));
  document.getElementById("alerts").replaceChildren(...alerts);
  document.getElementById("tables").replaceChildren(...data.tables.map(tableCard));
  document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
}

function initDesk() {
  document.getElementById("title").textContent = dt("desk");
  const day = document.getElementById("day-link");
  day.href = withLang("/desk/day");
  day.textContent = dt("day");
  label("h-alerts", "alerts");
  label("h-tables", "tables");
  refreshDesk();
  setInterval(refreshDesk, REFRESH_MS);
}

// ---------------------------------------------------------------------- the receipt
function row(label, value, cls) {
  const tr = el("tr", cls);
  const th = el("th");
  th.append(label);
  const td = el("td");
  td.append(value);
  tr.append(th, td);
  return tr;
}

function renderReceipt(data) {
  const r = data.receipt[LANG];
  const b = data.bill;
  const out = [];
  if (r.venue) {
    const venue = el("h1", "venue");
    venue.append(name(r.venue));
    out.push(venue);
  }
  out.push(el("h2", null, r.title + " · " + r.session));
  const info = el("table", "info");
  const table = el("span");
  table.append(name(r.table));
  const tariff = el("span");
  tariff.append(name(r.tariff));
  info.append(
    row(r.labels.table, table), row(r.labels.tariff, tariff),
    row(r.labels.opened, r.opened), row(r.labels.closed, r.closed),
    row(r.labels.minutes_open, r.minutes_open), row(r.labels.minutes_billed, r.minutes_billed),
    row(r.labels.minutes_in_play, r.minutes_in_play), row(r.labels.frames_played, r.frames_played),
  );
  out.push(info);
  const lines = el("table", "lines");
  for (const l of r.lines) lines.append(row(l.label, l.amount, "line"));
  for (const f of r.frames) {
    const label = el("span");
    label.append(f.label + " · " + f.minutes);
    if (f.loser) label.append(" · " + r.labels.lost_by + " ", name(f.loser));
    if (f.note) label.append(" · " + f.note);
    lines.append(row(label, f.amount, "frame"));
  }
  lines.append(row(r.labels.charged, r.charged, "charged"));
  for (const c of r.corrections) {
    const label = el("span");
    label.append(r.labels.correction + ": ", name(c.reason));
    if (c.payer) label.append(" · ", name(c.payer));
    lines.append(row(label, c.amount, "correction"));
  }
  lines.append(row(r.labels.total, r.total, "total"));
  out.push(lines);
  const pay = el("table", "payers");
  for (const p of r.payers) {
    const who = el("span");
    who.append(r.labels.paid_by + ": ");
    if (p.payer === null) who.append(r.labels.the_table); else who.append(name(p.payer));
    pay.append(row(who, p.amount, "payer"));
  }
  out.push(pay);
  for (const n of r.notes) out.push(el("p", "note", n));
  out.push(el("p", "thanks", r.labels.thanks));
  document.getElementById("receipt").replaceChildren(...out);
  document.getElementById("receipt").dataset.total = String(b.total);
  // the correction form: charged to the table or to one of the players
  const payer = document.getElementById("payer");
  const choices = [el("option", null, dt("the_table"))];
  choices[0].value = "";
  const seen = new Set();
  for (const f of b.frames) {
    for (const p of f.players) {
      if (!seen.has(p)) { seen.add(p); const o = el("option", null, p); o.value = p; choices.push(o); }
    }
  }
  payer.replaceChildren(...choices);
}

function setPaper(paper) {
  document.body.className = "paper-" + paper;
  let style = document.getElementById("page-size");
  if (!style) {
    style = el("style");
    style.id = "page-size";
    document.head.append(style);
  }
  style.textContent = paper === "a6"
    ? "@page { size: A6; margin: 8mm; }"
    : "@page { size: 80mm auto; margin: 3mm; }";
}

async function loadReceipt(id) {
  try { renderReceipt(await api("/api/sessions/" + id)); } catch (e) { /* shown */ }
}

function initReceipt() {
  const id = location.pathname.split("/").pop();
  const desk = document.getElementById("desk-link");
  desk.href = withLang("/desk");
  desk.textContent = dt("desk");
  label("paper-label", "paper");
  label("paper-80", "paper_80");
  label("paper-a6", "paper_a6");
  label("print", "print");
  label("csv", "csv");
  label("h-correct", "correct");
  label("amount-label", "amount");
  label("reason-label", "reason");
  label("payer-label", "payer");
  label("correct-save", "save");
  const paper = document.getElementById("paper");
  paper.value = params.get("paper") === "a6" ? "a6" : "80mm";
  setPaper(paper.value);
  paper.addEventListener("change", () => setPaper(paper.value));
  document.getElementById("print").addEventListener("click", () => window.print());
  document.getElementById("csv").addEventListener("click", () =>
    download("/api/sessions/" + id + "/bill.csv?lang=" + LANG, "session-" + id + ".csv"));
  document.getElementById("correct").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      amount: document.getElementById("amount").value.trim(),
      reason: document.getElementById("reason").value,
    };
    const payer = document.getElementById("payer").value;
    if (payer) body.payer = payer;
    try {
      renderReceipt(await api("/api/sessions/" + id + "/corrections", body));
      document.getElementById("amount").value = "";
      document.getElementById("reason").value = "";
      document.getElementById("error").textContent = dt("saved");
    } catch (err) { /* shown */ }
  });
  loadReceipt(id);
}

// ---------------------------------------------------------------------- the daily report
function cells(tr, values) {
  for (const v of values) {
    const td = el("td");
    td.append(v);
    tr.append(td);
  }
  return tr;
}

function heads(id, keys) {
  document.getElementById(id).replaceChildren(...keys.map((k) => el("th", null, dt(k))));
}

function renderDay(data) {
  const r = data.report;
  document.getElementById("day-label").textContent = r.label[LANG];
  document.body.dataset.day = r.day;
  heads("day-head", ["table", "sessions", "minutes_open", "in_play", "frames", "currency", "charged", "corrections", "total"]);
  const rows = [];
  const add = (label, totals, money, cls) => {
    const list = money.length ? money : [{ currency: "", charged: "", corrections: "", total: "" }];
    for (const m of list) {
      const tr = el("tr", cls);
      cells(tr, [label, num(totals.sessions), dt("minutes", { n: totals.minutes_open }),
        dt("minutes", { n: totals.minutes_in_play }), num(totals.frames), m.currency ? name(m.currency) : "",
        m.charged, m.corrections, m.total]);
      rows.push(tr);
    }
  };
  for (const tb of r.tables) add(name(tb.name), tb, r.formatted.tables[tb.table], "table-row");
  add(dt("venue"), r.venue, r.formatted.venue, "venue-row");
  document.getElementById("day-rows").replaceChildren(...rows);
  heads("sessions-head", ["h_session", "table", "opened", "closed", "minutes_open", "in_play", "frames", "total",
    "opened_by", "closed_by", "corrected_by"]);
  const names = {};
  for (const tb of r.tables) names[tb.table] = tb.name;
  const srows = r.bills.map((b) => {
    const tr = el("tr", "session-row");
    tr.dataset.session = String(b.session_id);
    const link = el("a", null, dt("session", { n: b.session_id }));
    link.href = withLang("/desk/receipt/" + b.session_id);
    const f = r.formatted.bills[String(b.session_id)];
    // who opened, closed and corrected it: the signed-in accounts (host/web/auth.py who)
    const fixers = [...new Set(b.corrections.map((c) => c.who).filter(Boolean))];
    cells(tr, [link, name(names[b.table_id] || b.table_id), f.opened, f.closed,
      dt("minutes", { n: b.minutes_open }), dt("minutes", { n: b.minutes_in_play }), num(b.frames_played), f.total,
      name(b.opened_by || ""), name(b.closed_by || ""), name(fixers.join(", "))]);
    return tr;
  });
  document.getElementById("session-rows").replaceChildren(...srows);
}

async function loadDay() {
  const day = document.getElementById("date").value;
  const q = day ? "?date=" + day : "";
  try { renderDay(await api("/api/reports/day" + q + (q ? "&" : "?") + "lang=" + LANG)); } catch (e) { return; }
  if (ROLE === "owner") flagDay(document.body.dataset.day);
}

// The owner's report flags each bill the tables' signed record does not
// bear out (GET /api/staff/verify, host/staff/takings.py; docs/LEDGER.md).
async function flagDay(day) {
  let checked;
  try { checked = await api("/api/staff/verify?date=" + day); } catch (e) { return; }
  for (const b of checked.bills) {
    const tr = document.querySelector("#session-rows tr[data-session='" + b.session_id + "']");
    if (!tr) continue;
    tr.dataset.verdict = b.status;
    if (b.status === "flagged" || b.status === "differs") {
      const first = tr.querySelector("td");
      first.append(" ", el("strong", "verdict", dt(b.status)));
    }
  }
}

function initDay() {
  const desk = document.getElementById("desk-link");
  desk.href = withLang("/desk");
  desk.textContent = dt("desk");
  label("title", "day");
  label("date-label", "date");
  label("print", "print");
  label("csv", "csv");
  label("h-sessions", "sessions");
  const date = document.getElementById("date");
  if (params.get("date")) date.value = params.get("date");
  date.addEventListener("change", loadDay);
  document.getElementById("print").addEventListener("click", () => window.print());
  document.getElementById("csv").addEventListener("click", () => {
    const d = document.getElementById("date").value || document.body.dataset.day || "";
    download("/api/reports/day.csv?lang=" + LANG + (d ? "&date=" + d : ""), "day-" + d + ".csv");
  });
  loadDay();
}

async function init() {
  document.documentElement.lang = LANG;
  document.documentElement.dir = LANG === "fa" ? "rtl" : "ltr";
  langLink();
  const reload = () => {
    if (PAGE === "desk") refreshDesk();
    else if (PAGE === "receipt") loadReceipt(location.pathname.split("/").pop());
    else loadDay();
  };
  signInForm(document.getElementById("signin-box"), (state) => {
    showState(state);
    showError("");
    reload();
  });
  const out = document.getElementById("sign-out");
  out.textContent = t("sign_out");
  out.addEventListener("click", async () => {
    await signOut(CSRF);
    showState(null);
  });
  showState(await sessionState());
  if (PAGE === "desk") initDesk();
  else if (PAGE === "receipt") initReceipt();
  else initDay();
}

init();
