// The streaming overlay: names, frames, scores, frame number, points
// remaining and the break, over a transparent page.
import { byId, num, params, setKids, setText, setupPage, t } from "./i18n.js";
import { connect, tableFromPath } from "./live.js";
import { announcement, announcementParts, ball } from "./parts.js";

setupPage();
const box = byId("overlay");

function bounded(name, low, high, fallback) {
  const v = parseFloat(params.get(name));
  return Number.isFinite(v) ? Math.min(high, Math.max(low, v)) : fallback;
}

const POSITIONS = ["bl", "br", "tl", "tr", "bc", "tc"];
box.dataset.pos = POSITIONS.includes(params.get("pos")) ? params.get("pos") : "bl";
box.style.setProperty("--margin", bounded("margin", 0, 400, 40) + "px");
box.style.setProperty("--width", bounded("width", 320, 1600, 560) + "px");
box.style.setProperty("--scale", bounded("scale", 0.5, 3, 1));

function render(board) {
  const st = board.state;
  const m = board.match;
  box.hidden = !st || !m;
  if (box.hidden) return;
  for (const side of [0, 1]) {
    setText("name" + side, m.names[side]);
    setText("score" + side, num(st.scores[side]));
    setText("frames" + side, num(st.frames[side]));
    byId("row" + side).classList.toggle("striker", !st.match_over && st.striker === side);
  }
  setText("frame-no", t("frame", { n: st.frame }));
  setText("bestof", t("best_of", { n: m.best_of }));
  setText("remaining", st.match_over ? "" : t("remaining") + " " + num(st.points_remaining));
  setText("break", st.break ? t("break") + " " + num(st.break) : "");
  setKids("break-balls", (board.break_balls || []).map((b) => ball(b)));
  const a = announcement(board);
  const notice = byId("notice");
  notice.dataset.kind = a ? a.kind : "none";
  setKids(notice, a ? announcementParts(a, m.names) : []);
}

connect([tableFromPath()], render);
