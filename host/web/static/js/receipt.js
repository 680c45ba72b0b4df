// The receipt of a session (/desk/receipt/ID): the bill as printed, on an
// 80 mm thermal roll or A6 (the page size is set for the paper chosen, and
// for the roll as long as the receipt), or with one tap on the desk's
// thermal printer; corrections and refunds; and the take-backs: reopen a
// session closed by mistake, void one opened by mistake (and, the owner's,
// undo a void tapped by mistake), take back a correction or an item.  Each
// asks first and says what was done.  Only what the signed-in role may do
// is offered (js/desk_common.js may).
import { LANG, el, params } from "./i18n.js";
import {
  api, ask, download, dt, label, may, name, parts, plainAmount, sentence, setup, showDone,
  showError, withLang,
} from "./desk_common.js";

const SESSION = "/api/sessions/{session}";
const allowed = (route) => may("POST", SESSION + route);

const ID = location.pathname.split("/").pop();
const PX_PER_MM = 96 / 25.4;
let current = null; // {bill, receipt, printer} as the server last sent it

function row(cells, cls) {
  const tr = el("tr", cls);
  const [head, value] = cells;
  const th = el("th");
  th.append(...head);
  const td = el("td");
  td.append(...value);
  tr.append(th, td);
  return tr;
}

function lineHead(r) {
  const head = [el("span", "what")];
  head[0].append(...parts(r.parts));
  if (r.note && r.note.length) {
    const note = el("span", "note");
    note.append(...parts(r.note));
    head.push(note);
  }
  return head;
}

function render(data) {
  current = data;
  const r = data.receipt[LANG];
  const b = data.bill;
  const out = [];
  if (r.venue) {
    const venue = el("h1", "venue");
    venue.append(name(r.venue));
    out.push(venue);
  }
  out.push(el("h2", null, r.title + " " + r.session));
  const info = el("table", "info");
  for (const x of r.info) info.append(row([[x.label], parts(x.value)]));
  out.push(info);
  const lines = el("table", "lines");
  for (const l of r.rows) {
    const tr = row([lineHead(l), [l.amount]], "line " + l.kind);
    lines.append(tr);
  }
  lines.append(row([[r.labels.total], [r.total]], "total"));
  out.push(lines);
  if (r.who_pays && r.who_pays.frames.length) {
    const who = el("section", "who-pays");
    who.append(el("h3", null, r.labels.who_pays));
    if (r.who_pays.intro) who.append(el("p", "intro", r.who_pays.intro));
    const frames = el("table", "frames");
    for (const f of r.who_pays.frames) frames.append(row([lineHead(f), [f.amount]], "frame"));
    who.append(frames);
    out.push(who);
  }
  const pay = el("table", "payers");
  for (const p of r.payers) pay.append(row([parts(p.parts), [p.amount]], "payer"));
  out.push(pay);
  for (const n of r.notes) out.push(el("p", "note", n));
  out.push(el("p", "thanks", r.labels.thanks));
  const box = document.getElementById("receipt");
  box.replaceChildren(...out);
  box.dataset.total = String(b.total);
  box.dataset.state = b.state;
  box.dataset.version = b.version;
  renderTakeBacks(data);
  renderForm(b);
  document.getElementById("print-escpos").hidden = !data.printer || !allowed("/print");
  setPaper(document.getElementById("paper").value);
}

function renderTakeBacks(data) {
  const b = data.bill;
  const r = data.receipt[LANG];
  document.getElementById("reopen").hidden = b.state !== "closed" || !allowed("/reopen");
  // one route both voids and (with "undo") takes a void back
  document.getElementById("void").hidden = b.state === "void" || !allowed("/void");
  document.getElementById("unvoid").hidden = b.state !== "void" || !allowed("/void");
  const list = [];
  for (const h of r.history) {
    const li = el("li", "done");
    li.append(el("span", "at", h.at), " ", ...parts(h.parts));
    list.push(li);
  }
  for (const c of b.corrections) {
    if (!c.live || b.state === "void" || !allowed("/corrections/{correction}/reverse")) continue;
    const li = el("li", "take-back correction");
    li.dataset.id = String(c.id);
    const line = r.rows.find((x) => x.id === c.id && x.kind === c.kind);
    li.append(...parts(line ? line.parts : []), " ", line ? line.amount : "");
    const btn = el("button", "reverse", dt("take_back"));
    btn.type = "button";
    btn.addEventListener("click", () => reverse(c, line));
    li.append(" ", btn);
    list.push(li);
  }
  for (const it of b.items) {
    if (!it.live || !b.open || !allowed("/items/{item}/take-back")) continue;
    const li = el("li", "take-back item");
    li.dataset.id = String(it.id);
    li.append(name(LANG === "fa" ? it.item_fa : it.item), " × " + it.quantity);
    const btn = el("button", "item-back", dt("take_back"));
    btn.type = "button";
    btn.addEventListener("click", () => takeBackItem(it));
    li.append(" ", btn);
    list.push(li);
  }
  document.getElementById("history").replaceChildren(...list);
}

function renderForm(b) {
  const payer = document.getElementById("payer");
  const choices = [el("option", null, dt("the_table"))];
  choices[0].value = "";
  const seen = new Set();
  for (const f of b.frames) {
    for (const p of f.players) {
      if (!seen.has(p)) { seen.add(p); const o = el("option", null, p); o.value = p; choices.push(o); }
    }
  }
  const keep = payer.value;
  payer.replaceChildren(...choices);
  payer.value = seen.has(keep) ? keep : "";
  document.getElementById("kind-refund").disabled = b.state !== "closed" || !allowed("/refunds");
  document.getElementById("correct").hidden = b.state === "void" || !allowed("/corrections");
}

// The page size Chromium prints on: an explicit width and height (it takes
// neither "80mm auto" nor "A6"); the roll is as long as the receipt.
function setPaper(paper) {
  document.body.className = "paper-" + paper;
  let style = document.getElementById("page-size");
  if (!style) {
    style = el("style");
    style.id = "page-size";
    document.head.append(style);
  }
  if (paper === "a6") {
    style.textContent = "@page { size: 105mm 148mm; margin: 6mm; }";
    return;
  }
  const box = document.getElementById("receipt");
  const mm = Math.ceil(box.getBoundingClientRect().height / PX_PER_MM) + 6;
  style.textContent = `@page { size: 80mm ${Math.max(mm, 60)}mm; margin: 0; }`;
}

// ``quiet``: a look again after a refusal, which leaves the refusal shown.
async function reload(quiet = false) {
  try { render(await api("/api/sessions/" + ID, undefined, { quiet })); } catch (e) { /* shown */ }
}

async function post(path, body, done) {
  try {
    const data = await api(path, { ...body, version: current.bill.version });
    render(data);
    if (done) showDone(done(data));
    return data;
  } catch (e) {
    if (e.status === 409) await reload(true);
    return null;
  }
}

function tableName() { return current.receipt[LANG].table; }

async function reverse(c, line) {
  const what = el("span");
  what.append(...parts(line ? line.parts : []), " ", line ? line.amount : "");
  const reason = await ask(sentence("ask_reverse", { what, n: current.bill.session_id }), { reason: true, yes: "take_back" });
  if (reason === null) return;
  await post(`/api/sessions/${ID}/corrections/${c.id}/reverse`, { reason },
    (data) => sentence("done_reverse", { what, total: document.createTextNode(data.receipt[LANG].total) }));
}

async function takeBackItem(it) {
  const item = LANG === "fa" ? it.item_fa : it.item;
  if (!(await ask(sentence("ask_item_back", { item, n: current.bill.session_id }), { yes: "take_back" }))) return;
  await post(`/api/sessions/${ID}/items/${it.id}/take-back`, {},
    (data) => sentence("done_item_back", { item, total: document.createTextNode(data.receipt[LANG].total) }));
}

async function reopen() {
  const b = current.bill;
  const q = sentence("ask_reopen", { n: b.session_id, table: tableName() });
  if (!(await ask(q, { yes: "reopen" }))) return;
  await post(`/api/sessions/${ID}/reopen`, {}, () => sentence("done_reopen", { n: b.session_id, table: tableName() }));
}

async function voidIt() {
  const b = current.bill;
  const q = sentence("ask_void", {
    n: b.session_id, table: tableName(), players: el("span"),
    amount: document.createTextNode(current.receipt[LANG].total),
  });
  const reason = await ask(q, { reason: true, yes: "void" });
  if (reason === null) return;
  await post(`/api/sessions/${ID}/void`, { reason }, () => sentence("done_void", { n: b.session_id, table: tableName() }));
}

// A void tapped by mistake, taken back (the owner's, with a reason): the
// bill stands again as it stood, and its history keeps both.
async function unvoid() {
  const b = current.bill;
  const q = sentence("ask_unvoid", { n: b.session_id, table: tableName() });
  const reason = await ask(q, { reason: true, yes: "unvoid" });
  if (reason === null) return;
  await post(`/api/sessions/${ID}/void`, { reason, undo: true }, (data) => sentence("done_unvoid", {
    n: b.session_id, table: tableName(), total: document.createTextNode(data.receipt[LANG].total),
  }));
}

async function printEscpos() {
  try {
    await api(`/api/sessions/${ID}/print`, { lang: LANG });
    showDone(sentence("done_print", { n: current.bill.session_id }));
  } catch (e) { /* shown */ }
}

async function saveCorrection(e) {
  e.preventDefault();
  const kind = document.getElementById("kind").value;
  const body = {
    amount: plainAmount(document.getElementById("amount").value),
    reason: document.getElementById("reason").value,
  };
  const payer = document.getElementById("payer").value;
  if (payer) body.payer = payer;
  const path = `/api/sessions/${ID}/` + (kind === "refund" ? "refunds" : "corrections");
  const done = await post(path, body, (data) => sentence(kind === "refund" ? "done_refund" : "done_correct",
    { total: document.createTextNode(data.receipt[LANG].total) }));
  if (done) {
    document.getElementById("amount").value = "";
    document.getElementById("reason").value = "";
  }
}

function init() {
  const desk = document.getElementById("desk-link");
  desk.href = withLang("/desk");
  desk.textContent = dt("desk");
  for (const [id, key] of [["paper-label", "paper"], ["paper-80", "paper_80"], ["paper-a6", "paper_a6"],
    ["print", "print"], ["print-escpos", "print_escpos"], ["csv", "csv"], ["h-correct", "correct"],
    ["kind-label", "kind"], ["kind-correction", "kind_correction"], ["kind-refund", "kind_refund"],
    ["amount-label", "amount"], ["reason-label", "reason"], ["payer-label", "payer"],
    ["correct-save", "save"], ["h-actions", "take_backs"], ["reopen", "reopen"], ["void", "void"],
    ["unvoid", "unvoid"],
    ["h-history", "history"], ["ask-reason-label", "reason"]]) label(id, key);
  const paper = document.getElementById("paper");
  paper.value = params.get("paper") === "a6" ? "a6" : "80mm";
  paper.addEventListener("change", () => setPaper(paper.value));
  addEventListener("beforeprint", () => setPaper(paper.value));
  document.getElementById("print").addEventListener("click", () => window.print());
  document.getElementById("print-escpos").addEventListener("click", printEscpos);
  document.getElementById("csv").addEventListener("click", () =>
    download("/api/sessions/" + ID + "/bill.csv?lang=" + LANG, "session-" + ID + ".csv"));
  document.getElementById("reopen").addEventListener("click", reopen);
  document.getElementById("void").addEventListener("click", voidIt);
  document.getElementById("unvoid").addEventListener("click", unvoid);
  document.getElementById("correct").addEventListener("submit", saveCorrection);
}

async function load() {
  await reload();
  if (current && params.get("done") === "close") {
    showDone(sentence("done_close", { n: current.bill.session_id, table: tableName(),
      amount: document.createTextNode(current.receipt[LANG].total) }));
  }
}

setup(init, load);
showError("");
