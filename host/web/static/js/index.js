// The index: every table with its boards, and the matches played, newest
// first, with date, table and status (matches replaced before anything was
// scored are left out).
import { bdi, byId, dateText, el, num, setKids, setupPage, t, withLang } from "./i18n.js";
import { linkClass, statusText } from "./parts.js";

setupPage();
document.title = t("brand");
byId("venue-link").href = withLang("/venue");
byId("console-link").href = withLang("/console");

function link(text, href) {
  const a = el("a", "", text);
  a.href = withLang(href);
  return a;
}

function players(p) {
  return p.map((side) => (Array.isArray(side) ? side.join(" & ") : side));
}

async function load() {
  const tables = (await (await fetch("/api/tables")).json()).tables;
  const names = new Map(tables.map((b) => [b.table, b.name]));
  setKids("tables", tables.map((b) => {
    const li = el("li", "item");
    const status = el("span", "pill", statusText(b.status, true));
    status.dataset.link = linkClass(b.status);
    const id = encodeURIComponent(b.table);
    li.append(bdi(b.name, "strong"), status, link(t("table_board"), "/table/" + id),
      link(t("overlay"), "/overlay/" + id));
    return li;
  }));
  const matches = (await (await fetch("/api/matches?limit=50&skip_empty=1")).json()).matches;
  if (!matches.length) {
    setKids("matches", [el("li", "item dim", t("no_matches"))]);
    return;
  }
  setKids("matches", matches.map((m) => {
    const li = el("li", "item");
    const [a, b] = players(m.players);
    const who = el("span", "who");
    who.append(bdi(a), el("span", "score", num(m.frames_won[0]) + " – " + num(m.frames_won[1])), bdi(b));
    const status = el("span", "pill", t(m.status === "empty" ? "not_played" : m.status || "in_play"));
    status.dataset.status = m.status || "in_play";
    const id = encodeURIComponent(m.match_id);
    li.append(el("span", "date", dateText(m.started_ms)), bdi(names.get(m.table_id) || m.table_id, "table"),
      who, el("span", "dim", t("best_of", { n: m.best_of })), status, link(t("report"), "/report/" + id),
      link(t("sheet"), "/report/" + id + "/sheet"));
    return li;
  }));
}

load();
