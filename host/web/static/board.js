// The table board: one table on a TV read from across the room (and on a
// phone).  The page follows its table on the live feed and draws each board.
import { LANG, bdi, byId, el, num, setKids, setText, setupPage, t, tn } from "./js/i18n.js";
import { connect, tableFromPath } from "./js/live.js";
import {
  announcement, announcementParts, ball, linkClass, pair, statusText, waitingForController,
} from "./js/parts.js";

setupPage();
const body = document.body;
let latest = null;

// Draw a part of the board only when what it shows has changed: a pot
// changes a score, the break and one ball, not the whole board.
const drawn = new Map();
function changed(part, value) {
  const key = JSON.stringify(value);
  if (drawn.get(part) === key) return false;
  drawn.set(part, key);
  return true;
}

// The break's balls: a pot adds one at the end, so only the new ones are
// drawn; anything else draws the line again.
function renderBreakBalls(balls) {
  const box = byId("break-balls");
  const shown = box.children;
  const extends_ = shown.length <= balls.length &&
    [...shown].every((b, i) => b.dataset.ball === balls[i]);
  if (!extends_) box.replaceChildren();
  // Each ball's width comes from the line's width and the count (no flex
  // shrinking to work out at every pot).
  box.style.setProperty("--n", Math.max(balls.length, 1));
  for (let i = box.children.length; i < balls.length; i++) {
    const b = ball(balls[i]);
    b.dataset.ball = balls[i];
    box.append(b);
  }
}

function renderStatus(status) {
  const e = setText("status", statusText(status));
  e.dataset.link = linkClass(status);
}

function info(label, kids) {
  return [el("span", "label", label), ...kids];
}

function renderPlayers(st, names) {
  for (const side of [0, 1]) {
    setText("name" + side, names[side]);
    setText("score" + side, num(st.scores[side]));
    setText("frames" + side, num(st.frames[side]));
    const n = st.snookers_required[side];
    setText("needs" + side, n > 0 ? (n === 1 ? t("snookers_one") : t("snookers_many", { n })) : "");
    if (changed("high" + side, st.highest_break[side])) {
      setKids("high" + side, info(t("high_break"), [el("b", "", num(st.highest_break[side]))]));
    }
    byId("player" + side).classList.toggle("striker", !st.match_over && st.striker === side);
  }
}

function renderBallOn(st) {
  const on = st.ball_on;
  const box = byId("ball-on");
  box.hidden = st.match_over || !on;
  if (box.hidden || !changed("ball-on", [on, st.free_ball, st.nominated])) return;
  const kids = on === "colour" ? [ball("colour", t("any_colour")), el("span", "value", t("any_colour"))]
    : [ball(on), el("span", "value", t(on))];
  if (st.free_ball) kids.push(el("span", "value dim", t("free_ball_btn")));
  if (st.nominated && st.nominated !== on) {
    kids.push(el("span", "value dim", t("nominated")), ball(st.nominated));
  }
  setKids(box, info(t("ball_on"), kids));
}

// The frames played, oldest first; on a TV, when more were played than the
// line holds, the oldest give way to a "+N" chip.  How many fit is worked out
// from the screen's width (a chip is at most 19 u wide with its gap), not by
// measuring the line: no layout is forced while a board is drawn.
const portrait = matchMedia("(orientation: portrait)");

function renderHistory(history) {
  const chips = history.map((h) => {
    const chip = el("span", "chip");
    chip.dataset.winner = h.winner;
    chip.title = t("frame", { n: h.frame });
    chip.append(el("span", "fno", num(h.frame)), pair(h.scores[0], h.scores[1], h.winner));
    return chip;
  });
  const u = Math.min(innerHeight / 100, (innerWidth * 0.5625) / 100);
  const room = portrait.matches ? chips.length : Math.max(1, Math.floor((innerWidth / u - 20) / 19));
  if (chips.length > room) {
    const dropped = chips.length - (room - 1);
    chips.splice(0, dropped, el("span", "chip more", "+" + num(dropped)));
  }
  setKids("history", chips);
}

function render(board) {
  latest = board;
  const st = board.state;
  const m = board.match;
  setText("table-name", board.name);
  if (changed("title", board.name)) document.title = board.name + " | " + t("brand");
  renderStatus(board.status);
  const store = board.store || { ok: true };
  if (changed("store", store.ok)) setText("store-failing", store.ok ? "" : t("store_failing"));
  // On a board served from the broker: a second host that sends this table's
  // id is refused (docs/MQTT.md, "Whose table it is"), and the room sees so.
  const refused = (board.mqtt && board.mqtt.refused_hosts) || [];
  if (changed("refused", refused)) {
    setKids("mqtt-refused", refused.length ? tn("mqtt_refused", { hosts: refused.join(", ") }) : []);
  }
  const playing = !!(st && m);
  const waiting = !playing && waitingForController(board.status);
  body.classList.toggle("offline", board.status.link !== "online");
  body.classList.toggle("no-match", !playing);
  setText("message-text", waiting ? t("waiting") : playing ? "" : t("no_match"));
  setText("message-sub", waiting ? t("waiting_sub") : "");
  const notice = byId("notice");
  if (!playing) {
    for (const id of ["bestof", "frame-no", "break"]) setText(id, "");
    for (const id of ["break-balls", "history", notice]) setKids(id, []);
    byId("history").parentElement.classList.add("empty");
    notice.dataset.kind = "none";
    drawn.clear();
    return;
  }
  const names = m.names;
  renderPlayers(st, names);
  setText("bestof", t("best_of", { n: m.best_of }));
  setText("frame-no", t("frame", { n: st.frame }));
  setText("break", st.break ? num(st.break) : "");
  byId("breakline").classList.toggle("empty", !st.break);
  renderBreakBalls(board.break_balls || []);
  renderBallOn(st);
  const remaining = byId("remaining");
  remaining.hidden = st.match_over;
  if (changed("remaining", st.points_remaining)) {
    setKids(remaining, info(t("remaining"), [el("b", "value", num(st.points_remaining))]));
  }
  const respot = st.respot || [];
  byId("respot").hidden = !respot.length;
  if (changed("respot", respot)) setKids("respot", info(t("respot"), respot.map((b) => ball(b))));
  const a = announcement(board);
  if (changed("notice", [a, names])) {
    notice.dataset.kind = a ? a.kind : "none";
    setKids(notice, a ? announcementParts(a, names) : []);
  }
  if (changed("history", st.history || [])) {
    byId("history").parentElement.classList.toggle("empty", !(st.history || []).length);
    renderHistory(st.history || []);
  }
  const alerts = board.alerts || [];
  if (changed("alert", alerts.length ? alerts[alerts.length - 1] : null)) {
    const alert = alerts.length ? t("shadow") : "";
    setKids("alert", alert ? [alert, ...(LANG === "en"
      ? [": ", bdi(alerts[alerts.length - 1].text)] : [])] : []);
  }
}

connect([tableFromPath()], render);
// "last seen 12 s ago" keeps counting while no board message comes (offline).
setInterval(() => { if (latest) renderStatus(latest.status); }, 5000);
