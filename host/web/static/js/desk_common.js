// What the desk's three pages share (desk.js, receipt.js, day.js): the
// sign-in, the API, the question a destructive tap asks first, what was done,
// and amounts typed in either language.  The API needs the operator's sign-in:
// the console's (a session cookie the page cannot read, and a CSRF token it
// sends with every request); the operator token is typed once into the
// sign-in form and never kept by the page.  Everything typed by a person
// (names, reasons, items) is drawn with textContent, inside a <bdi>.
import { LANG, bdi, el, t } from "./i18n.js";

let CSRF = null; // the signed-in session's CSRF token, from /console/session
const WHO_KEY = "baulk-desk-who";

// The desk's words: the keys of words.json that begin with "desk_".
export function dt(key, vars) {
  return t("desk_" + key, vars);
}

export function label(id, key) {
  const e = document.getElementById(id);
  if (e) e.textContent = dt(key);
}

// A name as a person typed it: its own direction inside either language.
export function name(text) {
  return bdi(text, "name");
}

// A sentence's parts from the server (host/club/receipts.py): text, or a name.
export function parts(list) {
  return (list || []).map((p) => (typeof p === "string" ? p : name(p.name)));
}

// A sentence of the desk's words with names dropped into it as <bdi>.
export function sentence(key, vars) {
  const out = el("span");
  const text = t("desk_" + key);
  for (const piece of text.split(/(\{[a-z]+\})/)) {
    const m = /^\{([a-z]+)\}$/.exec(piece);
    if (!m || !(m[1] in vars)) { if (piece) out.append(piece); continue; }
    const v = vars[m[1]];
    if (v instanceof Node) out.append(v);
    else if (typeof v === "number") out.append(t("desk_n", { n: v }));
    else out.append(name(String(v)));
  }
  return out;
}

export function withLang(path) {
  return LANG === "fa" ? path + (path.includes("?") ? "&" : "?") + "lang=fa" : path;
}

export function langLink() {
  const a = document.getElementById("lang");
  const p = new URLSearchParams(location.search);
  if (LANG === "fa") p.delete("lang"); else p.set("lang", "fa");
  p.delete("done");
  a.href = "?" + p.toString();
  a.textContent = t("lang_switch");
  a.lang = LANG === "fa" ? "en" : "fa";
}

export function showError(text) {
  const e = document.getElementById("error");
  e.textContent = text || "";
}

// What was just done, in words ("Session 3 closed: 80,000 Toman").
export function showDone(node) {
  const e = document.getElementById("done");
  if (!e) return;
  e.replaceChildren(node);
  e.dataset.n = String(Number(e.dataset.n || 0) + 1);
}

// The clerk's name, kept on this device: every change the desk makes says who.
export function who() {
  const field = document.getElementById("who");
  const typed = field ? field.value.trim() : "";
  return typed || localStorage.getItem(WHO_KEY) || null;
}

function setupWho() {
  const field = document.getElementById("who");
  if (!field) return;
  label("who-label", "who");
  field.value = localStorage.getItem(WHO_KEY) || "";
  field.addEventListener("change", () => {
    const v = field.value.trim();
    if (v) localStorage.setItem(WHO_KEY, v); else localStorage.removeItem(WHO_KEY);
  });
}

async function session() {
  const r = await fetch("/console/session", { cache: "no-store" });
  const data = r.ok ? await r.json() : {};
  CSRF = data.signed_in ? data.csrf : null;
  return CSRF !== null;
}

function headers() { return CSRF ? { "X-CSRF-Token": CSRF } : {}; }

function askToken(refused) {
  document.getElementById("token-form").hidden = false;
  if (refused) showError(dt("bad_token"));
}

export class Refused extends Error {}

// GET (no body) or POST a desk request; a change carries who made it.  A
// refusal is shown in the page's language and thrown; a 409 "the table
// changed" means another phone got there first: the caller looks again.
export async function api(path, body) {
  const init = { headers: headers() };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    const by = who();
    init.body = JSON.stringify(by ? { who: by, ...body } : body);
  }
  const r = await fetch(path + (path.includes("?") ? "&" : "?") + "lang=" + LANG, init);
  if (r.status === 401 || r.status === 403) {
    askToken(true);
    throw new Refused("token");
  }
  const type = r.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await r.json() : await r.text();
  if (!r.ok) {
    const why = data && (data.message || data.error) ? data.message || data.error : String(r.status);
    showError(dt("failed", { why }));
    const e = new Refused(why);
    e.status = r.status;
    throw e;
  }
  showError("");
  return data;
}

export async function download(path, filename) {
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

// Asks before a destructive tap, naming what it does: true when confirmed.
// With ``reason``, the dialog asks for one too and answers it (or null).
export function ask(node, { reason = false, yes = "yes" } = {}) {
  const dialog = document.getElementById("ask");
  document.getElementById("ask-text").replaceChildren(node);
  const box = document.getElementById("ask-reason-box");
  const input = document.getElementById("ask-reason");
  box.hidden = !reason;
  input.value = "";
  document.getElementById("ask-yes").textContent = dt(yes);
  document.getElementById("ask-no").textContent = dt("cancel");
  dialog.returnValue = "";
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      if (dialog.returnValue !== "yes") resolve(reason ? null : false);
      else resolve(reason ? input.value.trim() || null : true);
    }, { once: true });
  });
}

// An amount as typed on either language's keyboard, as the API reads it:
// Latin digits, "." for the decimal separator, no group separators.
export function plainAmount(text) {
  return text.trim()
    .replace(/[۰-۹]/g, (d) => String("۰۱۲۳۴۵۶۷۸۹".indexOf(d)))
    .replace(/[٠-٩]/g, (d) => String("٠١٢٣٤٥٦٧٨٩".indexOf(d)))
    .replace(/[٫]/g, ".")
    .replace(/[٬,\s]/g, "")
    .replace(/^[−–]/, "-");
}

// The page's frame: language, sign-in, the clerk's name; ``init`` once,
// then ``load`` (again after a sign-in).
export async function setup(init, load) {
  document.documentElement.lang = LANG;
  document.documentElement.dir = LANG === "fa" ? "rtl" : "ltr";
  langLink();
  label("token-label", "token");
  label("token-save", "save");
  setupWho();
  const form = document.getElementById("token-form");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const field = document.getElementById("token");
    const r = await fetch("/console/signin?lang=" + LANG, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token: field.value.trim() }),
    });
    field.value = ""; // the token is not kept, not even in the form
    if (!r.ok) { askToken(true); return; }
    CSRF = (await r.json()).csrf;
    form.hidden = true;
    showError("");
    load();
  });
  init();
  if (!(await session())) askToken(false);
  load();
}
