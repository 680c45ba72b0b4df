// The sign-in every staff page shares (the console, the desk, the owner's
// pages): a name and a password, a desk clerk's PIN on the shared tablet,
// a one-time code the owner gave for a new phone, or the configured
// operator token.  The server answers with a sign-in
// cookie the page cannot read, and a CSRF token the page keeps in memory
// only; nothing typed here is kept, not even in the fields.
import { LANG, byId, el, person, setKids, t } from "./i18n.js";

export async function sessionState() {
  try {
    const r = await fetch("/console/session", { cache: "no-store", credentials: "same-origin" });
    return r.ok ? await r.json() : { signed_in: false };
  } catch (e) {
    return { signed_in: false };
  }
}

function field(labelKey, input) {
  const wrap = el("label");
  wrap.append(el("span", "", t(labelKey)), input);
  return wrap;
}

function input(type, id, complete) {
  const i = el("input");
  i.type = type;
  i.id = id;
  i.autocomplete = complete;
  i.spellcheck = false;
  return i;
}

// Builds the form into ``box`` and calls ``done(state)`` once signed in.
export function signInForm(box, done) {
  const form = el("form", "signin-form");
  form.noValidate = true;
  const kind = el("select");
  kind.id = "signin-kind";
  for (const k of ["password", "pin", "code", "token"]) {
    const o = el("option", "", t("signin_with_" + k));
    o.value = k;
    kind.append(o);
  }
  const name = input("text", "signin-name", "username");
  const secret = input("password", "signin-secret", "current-password");
  const secretLabel = el("span", "", t("password_label"));
  const secretWrap = el("label");
  secretWrap.append(secretLabel, secret);
  const nameWrap = field("name_label", name);
  const problem = el("p", "form-error");
  problem.id = "signin-error";
  problem.setAttribute("role", "alert");
  const submit = el("button", "primary", t("sign_in"));
  submit.type = "submit";
  submit.id = "signin-submit";
  const alone = () => kind.value === "token" || kind.value === "code"; // no name asked
  const sync = () => {
    nameWrap.hidden = alone();
    secretLabel.textContent = t(kind.value + "_label");
    secret.inputMode = kind.value === "pin" ? "numeric" : "text";
    secret.type = kind.value === "code" ? "text" : "password"; // read off the owner's screen
    secret.autocapitalize = kind.value === "code" ? "characters" : "off";
  };
  kind.addEventListener("change", sync);
  sync();
  form.append(field("signin_kind", kind), nameWrap, secretWrap, problem, submit);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const typed = secret.value;
    secret.value = ""; // never kept in the page
    if (!typed.trim() || (!alone() && !name.value.trim())) {
      problem.textContent = t("err_signin");
      return;
    }
    const body = alone() ? { [kind.value]: typed }
      : { name: name.value.trim(), [kind.value === "pin" ? "pin" : "password"]: typed };
    let r;
    let data = {};
    try {
      r = await fetch("/console/signin?lang=" + LANG, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body), credentials: "same-origin",
      });
      try { data = await r.json(); } catch (e) { data = {}; }
    } catch (e) {
      problem.textContent = t("no_answer");
      return;
    }
    if (!r.ok) {
      problem.textContent = data.message || data.error || String(r.status);
      return;
    }
    problem.textContent = "";
    done(data);
  });
  setKids(box, [form]);
  return form;
}

// Ends the sign-in on the server too.
export async function signOut(csrf) {
  try {
    await fetch("/console/signout", {
      method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf || "" },
      body: "{}", credentials: "same-origin",
    });
  } catch (e) {
    // signed out here all the same
  }
}

// "Signed in as NAME (role)", the name isolated.
export function whoText(state) {
  const out = el("span", "who");
  out.id = "signed-in-as";
  if (!state || !state.signed_in) return out;
  // the configured operator token signs in as "operator", a name no account
  // may take: it is said in the page's language
  const b = person(state.name);
  out.append(t("signed_in_as") + " ", b, " (" + t("role_" + state.role) + ")");
  return out;
}

export { byId };
