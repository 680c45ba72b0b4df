// The owner's pages (<body data-page="staff|activity">): the accounts and
// API tokens, "sign everyone out", the tables' firmware and its updates, the
// check of a day's takings against the tables, and the activity log by day, table and person, the newest rows
// first, a page at a time.  A name a stranger only tried is shown as tried,
// never as that person's own action.  Names, reasons and anything a
// person typed are drawn as text, isolated (<bdi>).  Dates come from the
// server in the page's language (Solar Hijri, Persian digits in Persian).
import { LANG, bdi, byId, el, has, params, person, setKids, setupPage, t, tn } from "./i18n.js";
import { sessionState, signInForm, signOut, whoText } from "./signin.js";
import { solarHijriPicker } from "./solar_hijri.js";

setupPage();
const PAGE = document.body.dataset.page;
document.title = t(PAGE === "staff" ? "staff_title" : "activity_title") + " | " + t("brand");
let csrf = null;
let mine = false; // the signed-in role may read this page
// The read each page is made of: the page is offered to a role the role
// table lets use it (the sign-in state's "may"), and to no other.
const READS = { staff: "GET /api/staff/users", activity: "GET /api/staff/activity" };

function showError(text) {
  byId("error").textContent = text || "";
}

// Which sign-in (or sign-out) the page is under: a 401 answers for the one
// its request went under, never for a sign-in made since (js/desk_common.js).
let generation = 0;

function showState(state) {
  generation += 1;
  csrf = state && state.signed_in ? state.csrf : null;
  mine = csrf !== null && (state.may || []).includes(READS[PAGE]);
  byId("signin-box").hidden = csrf !== null;
  byId("work").hidden = !mine;
  byId("sign-out").hidden = csrf === null;
  setKids("who-box", [whoText(state)]);
  if (csrf !== null && !mine) {
    setKids("error", tn("staff_not_yours", { name: state.name, role: t("role_" + state.role) }));
  }
}

async function api(path, body) {
  const init = { headers: { "X-CSRF-Token": csrf || "" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const under = generation;
  const r = await fetch(path + (path.includes("?") ? "&" : "?") + "lang=" + LANG, init);
  let data = {};
  try { data = await r.json(); } catch (e) { data = {}; }
  if (r.status === 401) {
    if (under === generation) showState(null);
    throw new Error("signed out");
  }
  if (!r.ok) {
    showError(data.message || data.error || String(r.status));
    throw new Error(String(r.status));
  }
  showError("");
  return data;
}

function name(text) {
  return bdi(text, "name");
}

function cell(...kids) {
  const td = el("td");
  td.append(...kids);
  return td;
}

function button(key, onClick) {
  const b = el("button", "", t(key));
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

// ---------------------------------------------------------------------- the staff page
async function loadUsers() {
  const { users } = await api("/api/staff/users");
  setKids("user-rows", users.map((u) => {
    const tr = el("tr", u.disabled ? "user disabled" : "user");
    tr.dataset.name = u.name;
    const tables = u.tables ? name(u.tables.join(", ")) : t("staff_all_tables");
    const actions = el("td");
    actions.append(button(u.disabled ? "staff_enable" : "staff_disable", async () => {
      await api("/api/staff/users/" + encodeURIComponent(u.name), { disabled: !u.disabled });
      loadUsers();
    }));
    const pw = el("input");
    pw.type = "password";
    pw.autocomplete = "new-password";
    pw.placeholder = t("staff_new_password");
    actions.append(" ", pw, button("staff_set", async () => {
      const password = pw.value;
      pw.value = "";
      await api("/api/staff/users/" + encodeURIComponent(u.name), { password });
      showError(t("staff_changed"));
    }));
    // A one-time code for a phone the person never signed in from: it gets
    // him in even while a stranger's guesses hold his password back.
    const code = el("output", "sign-in-code");
    if (!u.disabled) actions.append(" ", button("staff_code", async () => {
      const made = await api("/api/staff/users/" + encodeURIComponent(u.name) + "/code", {});
      const until = new Date(made.expires_ms).toLocaleTimeString(LANG === "fa" ? "fa-IR" : "en-GB",
        { hour: "2-digit", minute: "2-digit" });
      setKids(code, [bdi(made.code, "code"), " " + t("staff_code_until") + " " + until]);
    }), code);
    tr.append(cell(name(u.name)), cell(t("role_" + u.role) + (u.disabled ? " · " + t("staff_disabled") : "")),
      cell(tables), actions);
    return tr;
  }));
}

async function loadTokens() {
  const { tokens } = await api("/api/staff/tokens");
  setKids("tokens", tokens.map((tok) => {
    const li = el("li", tok.ended ? "token revoked" : "token");
    li.append(name(tok.name), " · " + t("role_" + tok.role));
    // an ended token says why (the server's sentence, in the page's language)
    if (tok.ended) li.append(" · " + tok.ended_why);
    else li.append(" ", button("staff_revoke", async () => {
      await api("/api/staff/tokens/" + tok.id + "/revoke", {});
      loadTokens();
    }));
    return li;
  }));
}

const VERDICTS = ["verified", "differs", "flagged", "uncovered"];

async function verifyDay(event) {
  event.preventDefault();
  const day = byId("verify-date").value;
  const data = await api("/api/staff/verify" + (day ? "?date=" + day : ""));
  const rows = data.bills.map((b) => {
    const li = el("li", "verdict " + b.status);
    li.dataset.status = b.status;
    // in Persian a comma: the middle dot reads as the Persian zero
    const sep = LANG === "fa" ? "، " : " · ";
    li.append(t("desk_session", { n: b.session_id }) + sep, name(b.table_id), sep,
      t(VERDICTS.includes(b.status) ? "verify_" + b.status : "verify_uncovered"));
    // each finding in the page's language, one sentence of the catalogue
    // said in each (host/staff/takings.py): the Persian comes with its ids
    // and names already isolated
    const why = el("ul");
    const fa = LANG === "fa";
    const said = fa ? [...b.findings.map((x) => x.text_fa || x.text), ...(b.uncovered_fa || [])]
      : [...b.findings.map((x) => x.text), ...b.uncovered];
    for (const f of said) {
      const item = el("li", "finding");
      item.append(fa ? f : name(f));
      why.append(item);
    }
    li.append(why);
    return li;
  });
  if (!rows.length) rows.push(el("li", "quiet", t("verify_none")));
  setKids("verify-rows", rows);
}

// ---------------------------------------------------------------------- the tables' firmware
// Each table's release and its update over the link (docs/UPDATES.md): the
// phase in the page's language, a bar for the bytes the table holds, read
// again every second while an update runs.
const ENDED = ["confirmed", "refused", "rolledback"];
const REASONS = ["same", "downgrade", "tag", "board", "arch", "abi", "hash", "size", "space", "trial",
  "confirm"];
let firmwareTimer = null;

function phaseOf(u) {
  const out = el("span", "phase " + u.phase);
  if (u.phase === "sending" && u.total) {
    const bar = el("progress");
    bar.max = u.total;
    bar.value = u.held;
    out.append(bar, " ", t("fw_phase_sending", { pct: Math.floor((100 * u.held) / u.total) }));
  } else if (u.phase === "confirmed" || u.phase === "rolledback") {
    out.append(...tn("fw_phase_" + u.phase, { version: u.version }));
  } else {
    out.append(t("fw_phase_" + u.phase));
  }
  if (u.phase === "refused" && u.reason) {
    // the table's word in the page's language; its sentence as it came
    out.append(": ", REASONS.includes(u.reason) ? t("fw_reason_" + u.reason) : name(u.reason));
  }
  return out;
}

async function loadFirmware() {
  const { tables } = await api("/api/firmware");
  setKids("firmware-rows", tables.map((row) => {
    const tr = el("tr", "table-firmware");
    tr.dataset.table = row.table;
    const u = row.update;
    tr.dataset.phase = u ? u.phase : "";
    const go = button("fw_update", () => update([row.table]));
    go.disabled = !row.release || (u !== null && !ENDED.includes(u.phase));
    tr.append(cell(name(row.table)), cell(name(row.board)),
      cell(row.release ? name(row.release) : t("fw_none")), cell(u ? phaseOf(u) : ""), cell(go));
    return tr;
  }));
  const running = tables.some((row) => row.update && !ENDED.includes(row.update.phase));
  clearTimeout(firmwareTimer);
  if (running) firmwareTimer = setTimeout(() => loadFirmware().catch(() => {}), 1000);
  document.body.dataset.firmware = String(Number(document.body.dataset.firmware || 0) + 1);
}

async function update(tables) {
  let reply;
  try {
    reply = await api("/api/firmware/update", tables ? { tables } : {});
  } catch (e) {
    return;
  }
  // a table that could not start says why (the server's sentence, in this
  // language, its ids isolated); in Persian a comma: the middle dot reads as zero
  const parts = [];
  for (const r of reply.refused) {
    if (parts.length) parts.push(LANG === "fa" ? "، " : " · ");
    parts.push(name(r.table), ": " + r.text);
  }
  setKids("error", parts);
  loadFirmware().catch(() => {});
}

function initStaff() {
  byId("update-all").addEventListener("click", () => update(null));
  byId("add-user").addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { name: byId("new-name").value.trim(), role: byId("new-role").value,
      password: byId("new-password").value };
    const pin = byId("new-pin").value.trim();
    if (pin) body.pin = pin;
    const tables = byId("new-tables").value.split(",").map((x) => x.trim()).filter(Boolean);
    if (tables.length) body.tables = tables;
    byId("new-password").value = "";
    byId("new-pin").value = "";
    try {
      await api("/api/staff/users", body);
    } catch (e) {
      return;
    }
    byId("new-name").value = "";
    byId("new-tables").value = "";
    showError(t("staff_added"));
    loadUsers();
  });
  byId("add-token").addEventListener("submit", async (event) => {
    event.preventDefault();
    let made;
    try {
      made = await api("/api/staff/tokens", { name: byId("token-name").value.trim(), role: byId("token-role").value });
    } catch (e) {
      return;
    }
    byId("token-secret").textContent = made.token;
    byId("token-once").hidden = false;
    loadTokens();
  });
  solarHijriPicker(byId("verify-date"));
  byId("verify").addEventListener("submit", verifyDay);
  // Every sign-in ends, on every phone, this one too: after a phone is lost
  // or a password leaked.  API tokens are not sign-ins: revoke them above.
  byId("sign-out-all").addEventListener("click", async () => {
    if (!window.confirm(t("staff_sign_out_all_confirm"))) return;
    try {
      await api("/api/staff/sign-out-all", { confirm: true });
    } catch (e) {
      return;
    }
    showState(null);
    showError(t("staff_signed_out_all"));
  });
}

function loadStaff() {
  loadUsers().catch(() => {});
  loadTokens().catch(() => {});
  loadFirmware().catch(() => {});
}

// ---------------------------------------------------------------------- the activity page
function actionText(action) {
  const key = "action_" + action.replace(/[ -]/g, "_");
  return has(key) ? t(key) : name(action);
}

function options(id, values, allKey) {
  const select = byId(id);
  const keep = select.value;
  const all = el("option", "", t(allKey));
  all.value = "";
  setKids(select, [all, ...values.map((v) => {
    const o = el("option", "", v === "operator" ? t("the_operator") : v);
    o.value = v;
    return o;
  })]);
  select.value = values.includes(keep) ? keep : "";
}

function query() {
  const q = new URLSearchParams();
  if (byId("day").value) q.set("date", byId("day").value);
  if (byId("table").value) q.set("table", byId("table").value);
  if (byId("person").value) q.set("who", byId("person").value);
  return q.toString();
}

let shown = 0;
// The day's rows when its first page was read: the older pages page through
// exactly those (the log is only appended to), so a row logged since is no
// row of this reading (the day read again shows it).
let total = 0;

// One page of the log (the newest first): a new day or filter starts again,
// "Older rows" adds the next page below.
async function loadActivity(event, before) {
  let data;
  const page = before ? "&before=" + before : "";
  try { data = await api("/api/staff/activity?" + query() + page); } catch (e) { return; }
  byId("day-label").textContent = data.label;
  document.body.dataset.day = data.day;
  options("table", data.tables, "staff_all_tables");
  options("person", data.people, "activity_everyone");
  const rows = data.rows.map((r) => {
    const tr = el("tr", "row " + r.result);
    tr.dataset.result = r.result;
    const who = el("span");
    if (r.who) who.append(person(r.who));
    if (r.role) who.append(" (" + t("role_" + r.role) + ")");
    // a stranger's attempt with a name: the name tried, never the person
    if (!r.who && r.tried) who.append(...tn("activity_tried", { name: r.tried }));
    const from = el("span");
    if (r.address) from.append(name(r.address));
    if (r.device) {
      const device = el("small");
      device.append(name(r.device.slice(0, 40)));
      from.append(" ", device);
    }
    // what was done, as a sentence in the page's language (names isolated)
    const did = el("span", "did");
    did.append(...(r.sentence || []).map((p) => (typeof p === "string" ? p : name(p.name))));
    tr.append(cell(r.when), cell(who), cell(actionText(r.action_name || r.action)), cell(did),
      cell(r.table_id ? name(r.table_id) : ""),
      cell(t("result_" + r.result)), cell(r.why_text ? name(r.why_text) : ""), cell(from));
    return tr;
  });
  if (before) byId("rows").append(...rows); else setKids("rows", rows);
  shown = (before ? shown : 0) + rows.length;
  if (!before) total = data.count;
  byId("shown").textContent = total ? t("activity_shown", { shown, n: total }) : "";
  const older = byId("older");
  older.hidden = data.next === null;
  older.dataset.before = data.next === null ? "" : String(data.next);
  byId("none").hidden = shown > 0;
  document.body.dataset.version = String(Number(document.body.dataset.version || 0) + 1);
}

async function downloadCsv() {
  const r = await fetch("/api/staff/activity.csv?" + query() + "&lang=" + LANG,
    { headers: { "X-CSRF-Token": csrf || "" }, credentials: "same-origin" });
  if (!r.ok) { showError(String(r.status)); return; }
  const url = URL.createObjectURL(await r.blob());
  const a = el("a");
  a.href = url;
  a.download = "activity-" + (document.body.dataset.day || "") + ".csv";
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

function initActivity() {
  if (params.get("date")) byId("day").value = params.get("date");
  solarHijriPicker(byId("day"));
  for (const id of ["day", "table", "person"]) byId(id).addEventListener("change", loadActivity);
  byId("older").addEventListener("click", () => loadActivity(null, byId("older").dataset.before));
  byId("csv").addEventListener("click", downloadCsv);
}

// ---------------------------------------------------------------------- both
async function start() {
  const load = PAGE === "staff" ? loadStaff : loadActivity;
  if (PAGE === "staff") initStaff(); else initActivity();
  signInForm(byId("signin-box"), (state) => { showState(state); if (mine) load(); });
  byId("sign-out").addEventListener("click", async () => { await signOut(csrf); showState(null); });
  const state = await sessionState();
  showState(state);
  if (mine) load();
}

start();
