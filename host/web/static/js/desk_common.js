// What the desk's three pages share (desk.js, receipt.js, day.js): the
// sign-in, the API, the question a destructive tap asks first, what was done,
// and amounts typed in either language.  The API needs a staff sign-in
// (signin.js: a cookie the page cannot read, and a CSRF token it sends with
// every request); nothing typed into the sign-in is kept by the page, and a
// first visit shows the sign-in form and nothing else.  Who made a change is
// the signed-in account, as the server knows it.  Everything typed by a
// person (names, reasons, items) is drawn with textContent, inside a <bdi>.
import { LANG, bdi, el, t } from "./i18n.js";
import { sessionState, signInForm, signOut, whoText } from "./signin.js";

let CSRF = null; // the signed-in session's CSRF token, from /console/session
let ROLE = null; // the signed-in account's role

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

// The signed-in account's role (owner, desk, referee), or null.
export function role() { return ROLE; }

function headers() { return CSRF ? { "X-CSRF-Token": CSRF } : {}; }

// Signed in or not: the sign-in form, or who is signed in and a sign-out.
function showState(state) {
  CSRF = state && state.signed_in ? state.csrf : null;
  ROLE = CSRF ? state.role : null;
  document.getElementById("signin-box").hidden = CSRF !== null;
  document.getElementById("sign-out").hidden = CSRF === null;
  document.getElementById("who-box").replaceChildren(whoText(state));
}

export class Refused extends Error {}

// GET (no body) or POST a desk request.  A refusal (a role that may not, a
// bad amount) is shown in the page's language and thrown; a 409 "the table
// changed" means another phone got there first: the caller looks again.
export async function api(path, body) {
  const init = { headers: headers() };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path + (path.includes("?") ? "&" : "?") + "lang=" + LANG, init);
  if (r.status === 401) { // the sign-in ended (or there was none): sign in again
    showState(null);
    throw new Refused("signed out");
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

// The page's frame: language, the sign-in and sign-out; ``init`` once, then
// ``load`` once signed in (again after a sign-in).
export async function setup(init, load) {
  document.documentElement.lang = LANG;
  document.documentElement.dir = LANG === "fa" ? "rtl" : "ltr";
  langLink();
  signInForm(document.getElementById("signin-box"), (state) => {
    showState(state);
    showError("");
    load();
  });
  const out = document.getElementById("sign-out");
  out.textContent = t("sign_out");
  out.addEventListener("click", async () => {
    await signOut(CSRF);
    showState(null);
  });
  init();
  showState(await sessionState());
  if (CSRF) load();
}
