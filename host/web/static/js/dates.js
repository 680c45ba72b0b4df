// Server-rendered pages (match report, result sheet): each <time data-ms>
// is written in the page's language and calendar, Solar Hijri in Persian.
import { dateText } from "./i18n.js";

for (const e of document.querySelectorAll("time[data-ms]")) {
  const ms = Number(e.dataset.ms);
  e.textContent = dateText(ms);
  e.dateTime = new Date(ms).toISOString();
}
