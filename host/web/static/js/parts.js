// Pieces the table board, the venue board and the overlay share: balls, the
// link status, the score pairs and the big announcements.
import { bdi, el, num, t, tn } from "./i18n.js";

export function ball(name, label) {
  const b = el("span", "ball " + name);
  b.setAttribute("role", "img");
  b.setAttribute("aria-label", label || t(name));
  return b;
}

// The controller has not said hello since the host started: the board says
// it is waiting for it, rather than showing empty panels that look broken.
export function waitingForController(status) {
  return !!status && status.link !== "online" && !(status.device && status.device.firmware);
}

function ago(ms) {
  if (!ms) return t("never");
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  const n = s < 60 ? t("ago_s", { n: s }) : s < 3600 ? t("ago_m", { n: Math.round(s / 60) })
    : t("ago_h", { n: Math.round(s / 3600) });
  return t("last_seen", { t: n });
}

// ``short``: a card's pill says "waiting" where the table board says what for.
export function statusText(status, short) {
  if (!status) return t("offline");
  if (status.link === "online") return t("online");
  if (waitingForController(status)) return t(short ? "waiting_short" : "waiting");
  const word = status.state === "refused" ? t("refused") : status.state === "connecting"
    ? t("connecting") : t("offline");
  return word + " | " + ago(status.last_seen_ms);
}

export function linkClass(status) {
  if (status && status.link === "online") return "online";
  return waitingForController(status) ? "waiting" : "offline";
}

// Two numbers, side 0 first: in a right-to-left page the flex row puts side
// 0 on the right, where its panel stands.  ``won`` marks the winner's number.
export function pair(a, b, won) {
  const p = el("span", "pair");
  const x = el("span", won === 0 ? "won" : "", num(a));
  const y = el("span", won === 1 ? "won" : "", num(b));
  p.append(x, el("span", "dash", "–"), y);
  return p;
}

export function foulName(kind) {
  return kind ? t("foul_" + kind) : "";
}

// In which frame this page saw a stroke played, per table: a frame-won
// announcement stays up until the next frame's first stroke.
const strokeSeen = new Map();

// What a board shows big: the match won, a frame won, or the board's notice
// (a foul, a free ball, a re-spotted black).  A foul from the last stroke of
// the frame before never stands over the new frame at 0–0.
export function announcement(board) {
  const st = board.state;
  if (!st || !board.match) return null;
  if (st.stroke_open) strokeSeen.set(board.table, st.frame);
  if (st.match_over) {
    return { kind: "match_won", winner: st.match_winner, frames: st.frames };
  }
  const history = st.history || [];
  const last = history[history.length - 1];
  // A new frame not yet scored in: its scores are 0-0 and the frame before
  // is the last in the history (a foul in this frame would have scored).
  const fresh = !!last && last.frame === st.frame - 1 && st.scores[0] === 0 && st.scores[1] === 0;
  if (fresh && !st.break && !st.stroke_open && strokeSeen.get(board.table) !== st.frame) {
    return { kind: "frame_won", frame: last.frame, winner: last.winner, scores: last.scores };
  }
  const n = board.notice;
  if (!n || n.kind === "match_over" || (fresh && n.kind === "foul")) return null;
  return n;
}

function part(kids, cls) {
  const p = el("span", "part" + (cls ? " " + cls : ""));
  p.append(...kids);
  return p;
}

// The announcement as parts of a banner (no separator characters: a "·"
// beside Persian digits reads as a zero).
export function announcementParts(a, names) {
  if (a.kind === "foul") {
    const parts = [part([t("foul", { n: a.points }), " ", el("span", "arrow", t("arrow")), " ",
      bdi(names[1 - a.side])])];
    if (a.foul) parts.push(part([foulName(a.foul)]));
    if (a.miss) parts.push(part([t("miss")], "strong"));
    if (a.free_ball) parts.push(part([t("free_ball")], "strong"));
    if (a.warning) parts.push(part([t("third_miss")]));
    return parts;
  }
  if (a.kind === "free_ball") return [part([t("free_ball")])];
  if (a.kind === "respotted_black") return [part([t("respotted_black")])];
  if (a.kind === "frame_won" && (a.winner === 0 || a.winner === 1)) {
    return [part(tn("frame_won", { name: names[a.winner], n: a.frame })),
      part([pair(a.scores[0], a.scores[1], a.winner)])];
  }
  if (a.kind === "match_won" && (a.winner === 0 || a.winner === 1)) {
    return [part(tn("match_won", { name: names[a.winner] })),
      part([pair(a.frames[0], a.frames[1], a.winner)])];
  }
  return [];
}
