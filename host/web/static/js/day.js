// The daily report (/desk/day): each table's totals and the venue's, per
// currency, and every session of the business day.  The day is picked in
// the page's calendar: Gregorian in English, Solar Hijri in Persian (day,
// month, year: js/solar_hijri.js).  On a phone each row stacks, every cell
// beside its column's name.
import { LANG, el, num, params, person } from "./i18n.js";
import { api, download, dt, label, name, role, setup, withLang } from "./desk_common.js";
import { solarHijriPicker } from "./solar_hijri.js";

let shown = null; // the report on the page
let showPicked = () => {}; // the Persian picker shows the date input's day again

function cells(tr, heads, values) {
  values.forEach((v, i) => {
    const td = el("td");
    td.dataset.label = heads[i];
    td.append(v);
    tr.append(td);
  });
  return tr;
}

function heads(id, keys) {
  const words = keys.map((k) => dt(k));
  document.getElementById(id).replaceChildren(...words.map((w) => el("th", null, w)));
  return words;
}

function render(data) {
  const r = data.report;
  shown = r;
  document.getElementById("day-label").textContent = r.label[LANG];
  document.body.dataset.day = r.day;
  pickers(r);
  const cols = heads("day-head", ["table", "sessions", "voided", "minutes_open", "in_play", "frames",
    "currency", "charged", "items", "corrections", "refunds", "void_amount", "total"]);
  const rows = [];
  const add = (label, totals, money, cls) => {
    const list = money.length ? money : [{ currency: "", charged: "", items: "", corrections: "", refunds: "", void: "", total: "" }];
    list.forEach((m, i) => {
      const first = i === 0; // minutes and frames once, not on each currency's row
      const tr = el("tr", cls);
      cells(tr, cols, [label, first ? num(totals.sessions) : "", first ? num(totals.voided) : "",
        first ? dt("minutes", { n: totals.minutes_open }) : "",
        first ? dt("minutes", { n: totals.minutes_in_play }) : "", first ? num(totals.frames) : "",
        m.currency, m.charged, m.items, m.corrections, m.refunds, m.void, m.total]);
      rows.push(tr);
    });
  };
  for (const tb of r.tables) add(name(tb.name), tb, r.formatted.tables[tb.table], "table-row");
  add(dt("venue"), r.venue, r.formatted.venue, "venue-row");
  document.getElementById("day-rows").replaceChildren(...rows);
  const scols = heads("sessions-head", ["h_session", "table", "opened", "closed", "minutes_open", "in_play",
    "frames", "items", "total", "opened_by", "closed_by", "voided_by", "corrected_by"]);
  const names = {};
  for (const tb of r.tables) names[tb.table] = tb.name;
  const srows = r.bills.map((b) => {
    const tr = el("tr", "session-row " + b.state);
    tr.dataset.session = String(b.session_id);
    const link = el("a", null, dt("session", { n: b.session_id }));
    link.href = withLang("/desk/receipt/" + b.session_id);
    const f = r.formatted.bills[String(b.session_id)];
    // who opened, closed, voided and corrected it: the signed-in accounts
    const fixers = [...new Set((b.corrections || []).map((c) => c.who).filter(Boolean))];
    const people = (list) => {
      const out = el("span");
      list.forEach((p, i) => out.append(...(i ? [", "] : []), person(p)));
      return out;
    };
    return cells(tr, scols, [link, name(names[b.table_id] || b.table_id), f.opened, f.closed,
      dt("minutes", { n: b.minutes_open }), dt("minutes", { n: b.minutes_in_play }),
      num(b.frames_played), f.items, f.total, person(b.opened_by || ""), person(b.closed_by || ""),
      person(b.voided_by || ""), people(fixers)]);
  });
  document.getElementById("session-rows").replaceChildren(...srows);
}

// The picker shows the report's day (a day asked as ?date= may be moved to
// the business day it falls in).
function pickers(r) {
  document.getElementById("date").value = r.day;
  showPicked();
}

function asked() {
  const d = document.getElementById("date").value;
  return d ? "date=" + d : "";
}

async function loadDay(q) {
  const query = q === undefined ? (params.get("date") ? "date=" + params.get("date") : "") : q;
  try { render(await api("/api/reports/day" + (query ? "?" + query : ""))); } catch (e) { return; }
  if (role() === "owner") flagDay(document.body.dataset.day);
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

function init() {
  const desk = document.getElementById("desk-link");
  desk.href = withLang("/desk");
  desk.textContent = dt("desk");
  label("title", "day");
  label("date-label", "date");
  label("print", "print");
  label("csv", "csv");
  label("h-sessions", "sessions");
  const date = document.getElementById("date");
  showPicked = solarHijriPicker(date, "j-");
  date.addEventListener("change", () => loadDay(asked()));
  document.getElementById("print").addEventListener("click", () => window.print());
  document.getElementById("csv").addEventListener("click", () => {
    const d = shown ? shown.day : "";
    download("/api/reports/day.csv?lang=" + LANG + (d ? "&date=" + d : ""), "day-" + d + ".csv");
  });
}

setup(init, () => loadDay());
