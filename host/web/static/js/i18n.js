// The page's language, its words (../words.json, which `make words` writes
// from the one catalogue's entries page:KEY) and the small DOM helpers every
// page uses.  Everything a player or operator typed is drawn with
// textContent, never as HTML, and inside a <bdi>: a Latin name on a Persian
// page keeps its own direction and cannot reorder the words around it.
import WORDS from "../words.json" with { type: "json" };

export const params = new URLSearchParams(location.search);
export const LANG = params.get("lang") === "fa" ? "fa" : "en";
const FA_DIGITS = "۰۱۲۳۴۵۶۷۸۹";

export function num(value) {
  const s = String(value);
  return LANG === "fa" ? s.replace(/[0-9]/g, (d) => FA_DIGITS[d]) : s;
}

export function has(key) {
  return key in WORDS[LANG];
}

// A sentence as text; numbers in ``vars`` take the page's digits.
export function t(key, vars) {
  let s = WORDS[LANG][key] ?? WORDS.en[key] ?? key;
  for (const [k, v] of Object.entries(vars || {})) {
    s = s.split("{" + k + "}").join(typeof v === "number" ? num(v) : String(v));
  }
  return s;
}

// A sentence as nodes: each string placeholder (a name) becomes an isolated
// <bdi>, so "{name} wins frame {n}" reads right with a Latin name in Persian.
export function tn(key, vars) {
  const out = [];
  const parts = (WORDS[LANG][key] ?? WORDS.en[key] ?? key).split(/(\{[a-z]+\})/);
  for (const part of parts) {
    const m = /^\{([a-z]+)\}$/.exec(part);
    if (!m || !(m[1] in vars)) {
      if (part) out.push(part);
    } else if (typeof vars[m[1]] === "number") {
      out.push(num(vars[m[1]]));
    } else {
      out.push(bdi(vars[m[1]]));
    }
  }
  return out;
}

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

export function bdi(text, cls) {
  const b = el("bdi", cls, text);
  b.dir = "auto";
  return b;
}

// A person's name as the server gives it, isolated; the operator token's
// built-in name ("operator", which no account may take) in the page's words.
export function person(text, cls = "name") {
  return bdi(text === "operator" ? t("the_operator") : text, cls);
}

export function byId(id) {
  return document.getElementById(id);
}

export function setText(id, text) {
  const e = byId(id);
  if (e && e.textContent !== text) e.textContent = text;
  return e;
}

export function setKids(id, kids) {
  const e = typeof id === "string" ? byId(id) : id;
  if (e) e.replaceChildren(...kids);
  return e;
}

// Dates in the page's language and calendar: the Solar Hijri calendar with
// Persian digits in Persian (the browser's Intl knows both).
const DATE = new Intl.DateTimeFormat(LANG === "fa" ? "fa-IR-u-ca-persian-nu-arabext" : "en-GB", {
  dateStyle: "medium",
  timeStyle: "short",
});

export function dateText(ms) {
  return ms ? DATE.format(new Date(ms)) : "";
}

export function langHref() {
  const p = new URLSearchParams(location.search);
  if (LANG === "fa") p.delete("lang");
  else p.set("lang", "fa");
  const q = p.toString();
  return location.pathname + (q ? "?" + q : "");
}

// The same page in the other language, for links inside the site.
export function withLang(path) {
  return LANG === "fa" ? path + (path.includes("?") ? "&" : "?") + "lang=fa" : path;
}

export function setupPage() {
  document.documentElement.lang = LANG;
  document.documentElement.dir = LANG === "fa" ? "rtl" : "ltr";
  for (const a of document.querySelectorAll("a[data-lang-switch]")) {
    a.textContent = t("lang_switch");
    a.href = langHref();
    a.hreflang = LANG === "fa" ? "en" : "fa";
  }
  for (const e of document.querySelectorAll("[data-t]")) e.textContent = t(e.dataset.t);
  // links to another page of the site stay in this page's language
  for (const a of document.querySelectorAll("a[data-site-link]")) a.href = withLang(a.dataset.siteLink);
  const lost = byId("feed-lost");
  if (lost) lost.textContent = t("feed_lost");
}
