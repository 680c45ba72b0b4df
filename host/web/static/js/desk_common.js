// What the desk's three pages share (desk.js, receipt.js, day.js): the
// sign-in, the API, the question a destructive tap asks first, what was done,
// and amounts typed in either language.  The API needs a staff sign-in
// (signin.js: a cookie the page cannot read, and a CSRF token it sends with
// every request); nothing typed into the sign-in is kept by the page, and a
// first visit shows the sign-in form and nothing else.  Who made a change is
// the signed-in account, as the server knows it.  Everything typed by a
// person (names, reasons, items) is drawn with textContent, inside a <bdi>.
import { NoAnswer, send, showAnswer } from "./answer.js";
import { LANG, bdi, el, t } from "./i18n.js";
import { sessionState, signInForm, signOut, whoText } from "./signin.js";

let CSRF = null; // the signed-in session's CSRF token, from /console/session
let ROLE = null; // the signed-in account's role
let MAY = new Set(); // the routes it may use ("POST /api/sessions/{session}/void")

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

// What a tap got back stays until the next tap or the clerk dismisses it
// (js/answer.js): the cards' refresh once a second never erases it.
export function showError(text) {
  const e = document.getElementById("error");
  if (!e) return;
  showAnswer(e, text ? "error" : "none", text ? [text] : []);
  const dismiss = document.getElementById("error-dismiss");
  if (dismiss) dismiss.hidden = !text;
}

// What was just done, in words ("Session 3 closed: 80,000 Toman").
export function showDone(node) {
  const e = document.getElementById("done");
  if (!e) return;
  showAnswer(e, "done", [node]);
}

// A tap begins: the last answer, a success or a refusal, leaves the screen
// and "Sending…" says this one is on its way.
export function begin() {
  showError("");
  showAnswer(document.getElementById("done"), "busy", [t("sending")]);
}

function clearDone() {
  showAnswer(document.getElementById("done"), "none", []);
}

// The signed-in account's role (owner, desk, referee), or null.
export function role() { return ROLE; }

// Whether the signed-in role may use a route, by the server's one role table
// (host/staff/roles.py ROUTES, sent with the sign-in state): a page offers
// only what it may, never a button the server would then refuse.
export function may(method, pattern) { return MAY.has(method + " " + pattern); }

function headers() { return CSRF ? { "X-CSRF-Token": CSRF } : {}; }

// Which sign-in (or sign-out) the page is under now: a request answers for
// the one it was sent under, so a "401, not signed in" to a refresh sent
// under a sign-in that has ended says nothing of the one the clerk made since.
let GENERATION = 0;

// Whether the page is signed in: a refresh asks nothing until it is.
export function signedIn() { return CSRF !== null; }

// Signed in or not: the sign-in form, or who is signed in and a sign-out.
function showState(state) {
  GENERATION += 1;
  CSRF = state && state.signed_in ? state.csrf : null;
  ROLE = CSRF ? state.role : null;
  MAY = new Set(CSRF ? state.may || [] : []);
  document.getElementById("signin-box").hidden = CSRF !== null;
  document.getElementById("sign-out").hidden = CSRF === null;
  document.getElementById("who-box").replaceChildren(whoText(state));
}

export class Refused extends Error {}

// GET (no body) or POST a desk request.  A POST is a tap: what it got back
// replaces what the last one did (begin() said it was sent), a refusal (a
// role that may not, a bad amount) in the page's language; a 409 "the table
// changed" means another phone got there first: the caller looks again.
// No answer (js/answer.js: the network failed, or none came in time) says
// so and throws NoAnswer.  A GET the clerk asked for (a receipt, a day)
// clears the last refusal as it starts; a ``quiet`` one (the desk's
// refresh, a look again after a refusal) never erases what a tap got back:
// it puts up the offline banner, and its own refusal only on an empty line.
export async function api(path, body, { quiet = false } = {}) {
  const init = { headers: headers() };
  const tap = body !== undefined;
  if (!tap && !quiet) showError("");
  if (tap) {
    begin();
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let answer;
  const under = GENERATION;
  try {
    answer = await send(path + (path.includes("?") ? "&" : "?") + "lang=" + LANG, init);
  } catch (e) {
    if (tap || !quiet) { clearDone(); showError(t("no_answer")); }
    throw e;
  }
  const { status, data } = answer;
  if (status === 401) { // the sign-in ended (or there was none): sign in again
    if (tap) clearDone();
    if (under === GENERATION) { // not an older sign-in's answer, come after a newer one
      showState(null);
      if (tap) showError(t("session_ended"));
    }
    throw new Refused("signed out");
  }
  if (status >= 300) {
    const why = data && (data.message || data.error) ? data.message || data.error : String(status);
    // a refused refresh (a role that may not read the desk) is said too,
    // unless a tap's answer is on screen: that one stays
    const shown = document.getElementById("error");
    if (tap || !quiet) { clearDone(); showError(dt("failed", { why })); }
    else if (shown && !shown.textContent) showError(dt("failed", { why }));
    const e = new Refused(why);
    e.status = status;
    throw e;
  }
  if (tap) { showError(""); clearDone(); }
  return data;
}

export { NoAnswer };

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
  const error = document.getElementById("error");
  if (error && !document.getElementById("error-dismiss")) {
    const dismiss = el("button", "dismiss no-print", dt("dismiss"));
    dismiss.type = "button";
    dismiss.id = "error-dismiss";
    dismiss.hidden = true;
    dismiss.addEventListener("click", () => showError(""));
    error.after(dismiss);
  }
  init();
  showState(await sessionState());
  if (CSRF) load();
}
