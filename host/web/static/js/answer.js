// What a tap got back, as the console and the desk show it: a tap first
// says it is on its way, so no older answer stays on screen under it, then
// what the server answered, or that no answer came (the network failed, or
// nothing came back within ANSWER_MS).  An answer stays until the next tap
// (or a dismissal): a page's own refreshes never touch it.  A phone that is
// offline (the browser says so, or a request of the page's found no server)
// shows a banner at once, and takes it down when a request gets through.
import { t } from "./i18n.js";

export const ANSWER_MS = 10000;

// No answer came: the request may or may not have reached the server.
export class NoAnswer extends Error {}

// fetch with a deadline; the answer's status, type and body (JSON when it
// says so, else text).  A network failure or a deadline passed throws
// NoAnswer, and so does a body cut off on its way.
export async function send(url, init = {}, ms = ANSWER_MS) {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ms);
  try {
    const r = await fetch(url, { ...init, signal: ctl.signal });
    const type = r.headers.get("Content-Type") || "";
    let data;
    if (type.includes("json")) {
      try { data = await r.json(); } catch (e) { data = {}; }
    } else {
      data = await r.text();
    }
    online.reached();
    return { status: r.status, type, data, response: r };
  } catch (e) {
    online.failed();
    throw new NoAnswer(String(e && e.message ? e.message : e));
  } finally {
    clearTimeout(timer);
  }
}

// Draws an answer in ``box`` (data-kind: busy, done, queued, error; data-n
// counts the answers drawn, for the tests to wait on).
export function showAnswer(box, kind, kids) {
  if (!box) return;
  box.dataset.kind = kind;
  box.dataset.n = String(Number(box.dataset.n || 0) + 1);
  box.replaceChildren(...kids);
}

// The offline banner: <p id="offline"> when the page has one, and
// <body class="offline">.
class Online {
  constructor() {
    this.lost = false; // a request of this page found no server
    if (typeof window !== "undefined") {
      window.addEventListener("online", () => this.show());
      window.addEventListener("offline", () => this.show());
      if (document.readyState === "loading") {
        document.addEventListener("DOMContentLoaded", () => this.show(), { once: true });
      } else {
        this.show();
      }
    }
  }

  failed() { this.lost = true; this.show(); }

  reached() { if (this.lost) { this.lost = false; this.show(); } }

  show() {
    const off = !navigator.onLine || this.lost;
    document.body.classList.toggle("offline", off);
    const banner = document.getElementById("offline");
    if (!banner) return;
    if (!banner.textContent) banner.textContent = t("offline_banner");
    banner.hidden = !off;
  }
}

export const online = new Online();
