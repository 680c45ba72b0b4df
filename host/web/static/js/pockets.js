// The console's pockets box: the latest pocket check of the table, its
// sensor counts per pocket and the log of every sensor/referee disagreement
// (GET /api/tables/{table}/sensors; docs/API.md, "Pockets").  Pockets, balls,
// verdicts and reasons come as codes and are named in the page's language.
import { dateText, el, num, setKids, t } from "./i18n.js";
import { ball } from "./parts.js";

function cells(tag, texts) {
  const row = el("tr");
  for (const x of texts) {
    const c = el(tag);
    if (typeof x === "string") c.textContent = x;
    else c.append(x);
    row.append(c);
  }
  return row;
}

function table(cls, head, rows) {
  const tbl = el("table", "pockets " + cls);
  const thead = el("thead");
  thead.append(cells("th", head.map((k) => t(k))));
  const body = el("tbody");
  body.append(...rows);
  tbl.append(thead, body);
  const wrap = el("div", "pockets-wrap"); // scrolls sideways on a narrow phone
  wrap.append(tbl);
  return wrap;
}

function verdict(v, reason) {
  const span = el("span", "verdict");
  span.dataset.verdict = v;
  span.append(el("b", "", t("verdict_" + v)));
  if (reason && reason !== "none") span.append(" (" + t("reason_" + reason) + ")");
  return span;
}

function ballName(name) {
  if (!name) return t("no_ball");
  const span = el("span", "");
  span.append(ball(name), " ", t(name));
  return span;
}

function checkPart(check) {
  if (!check) return [el("p", "dim", t("check_none"))];
  const head = el("h3", "", t("check_latest"));
  const when = el("p", "dim", dateText(check.at_ms) + " · " + t("check_from_" + check.from));
  const rows = check.pockets.map((p) => {
    const row = cells("td", [t("pocket_" + p.pocket), verdict(p.verdict, p.reason),
      num(p.break_ms), p.read ? num(p.confidence) : "—"]);
    row.dataset.pocket = p.pocket;
    row.dataset.verdict = p.verdict;
    return row;
  });
  return [head, when, table("check", ["h_pocket", "h_result", "h_break_ms", "h_confidence"], rows)];
}

function healthPart(health) {
  if (!health) return [el("p", "dim", t("health_none"))];
  const rows = health.pockets.map((p) => {
    const state = p.faulty ? verdict("faulty") : p.weak ? verdict("weak") : verdict("ok");
    const row = cells("td", [t("pocket_" + p.pocket), num(p.balls), num(p.glitches),
      num(p.unclear), num(p.corrections), state]);
    row.dataset.pocket = p.pocket;
    return row;
  });
  const out = [el("h3", "", t("pockets")), el("p", "dim", t("health_at", { t: dateText(health.at_ms) })),
    table("health", ["h_pocket", "h_balls", "h_glitches", "h_unclear", "h_corrections", "h_result"], rows)];
  if (health.faulty.length) out.push(el("p", "warn", t("faulty_note")));
  if (health.unplaced) out.push(el("p", "dim", t("unplaced", { n: health.unplaced })));
  return out;
}

function logPart(found) {
  const out = [el("h3", "", t("disagreements"))];
  if (!found.disagreements.length) {
    out.push(el("p", "dim", t("disagreements_none")));
    return out;
  }
  const rows = found.disagreements.map((d) => {
    const row = cells("td", [dateText(d.at_ms), d.pocket ? t("pocket_" + d.pocket) : "—",
      t("kind_" + d.kind), ballName(d.sensor_ball), ballName(d.keyed_ball)]);
    row.dataset.kind = d.kind;
    return row;
  });
  out.push(table("log", ["h_when", "h_pocket", "h_result", "h_sensor", "h_referee"], rows));
  if (found.disagreements_total > found.disagreements.length) {
    out.push(el("p", "dim", t("disagreements_more",
      { n: found.disagreements.length, total: found.disagreements_total })));
  }
  return out;
}

// Fetch and draw a table's pockets into #pockets; the newest call wins.
let asked = 0;
export async function showPockets(table) {
  const mine = ++asked;
  let found;
  try {
    const r = await fetch("/api/tables/" + encodeURIComponent(table) + "/sensors");
    if (!r.ok) return;
    found = await r.json();
  } catch (e) {
    return;
  }
  if (mine !== asked) return;
  const box = document.getElementById("pockets");
  box.dataset.table = table;
  box.dataset.checks = found.check ? String(found.check.at_ms) : "";
  setKids(box, [...checkPart(found.check), ...healthPart(found.health), ...logPart(found)]);
}
