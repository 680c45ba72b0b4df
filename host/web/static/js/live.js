// The live feed (docs/API.md): a WebSocket that sends each followed table's
// whole board at every change.  It reconnects by itself, backing off to 10 s.
import { params } from "./i18n.js";

const SCHEMA = 1;
// ?measure=1 keeps the time from each message's arrival to the paint after
// it (bench/board_bench.py reads window.__baulkPaints).
const MEASURE = params.has("measure");
if (MEASURE) window.__baulkPaints = [];

export function connect(tables, onBoard) {
  let delay = 500;
  const open = () => {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = tables ? "?tables=" + encodeURIComponent(tables.join(",")) : "";
    const ws = new WebSocket(proto + "//" + location.host + "/api/live" + q);
    ws.onmessage = (e) => {
      const arrived = performance.now();
      const msg = JSON.parse(e.data);
      if (msg.type === "hello") {
        if (msg.schema !== SCHEMA) console.warn("live feed schema", msg.schema, "expected", SCHEMA);
        document.body.classList.remove("feed-lost");
        delay = 500;
      } else if (msg.type === "board") {
        onBoard(msg.board);
        window.__baulkLast = msg;
        if (MEASURE) {
          const rendered = performance.now();
          // rAF runs just before the next paint; a task queued from it runs
          // just after that paint.
          requestAnimationFrame(() => setTimeout(() => {
            window.__baulkPaints.push({ version: msg.version, sent_ms: msg.sent_ms, arrived,
              rendered, painted: performance.now(), origin: performance.timeOrigin });
          }, 0));
        }
      }
    };
    ws.onclose = () => {
      document.body.classList.add("feed-lost");
      setTimeout(open, delay);
      delay = Math.min(delay * 2, 10000);
    };
  };
  open();
}

export function tableFromPath() {
  const parts = location.pathname.split("/");
  return decodeURIComponent(parts[parts.length - 1]);
}
