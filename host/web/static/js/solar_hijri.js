// The day picker of a Persian page: Solar Hijri day, month and year.  The
// page keeps its <input type="date"> (hidden in Persian): its value stays the
// Gregorian day the API reads, so a page reads and sets it in one way in
// both languages.  The calendar is the browser's own (Intl, ca-persian, the
// same as every date the pages print): no calendar arithmetic of our own.
import { LANG, el, num } from "./i18n.js";

const DAY_MS = 86_400_000;
const PARTS = new Intl.DateTimeFormat("en-u-ca-persian-nu-latn", {
  timeZone: "UTC", year: "numeric", month: "numeric", day: "numeric",
});
const MONTH = new Intl.DateTimeFormat("fa-IR-u-ca-persian", { timeZone: "UTC", month: "long" });

// {year, month, day} of the Solar Hijri calendar on a Gregorian day (UTC ms).
function solarOf(ms) {
  const p = {};
  for (const x of PARTS.formatToParts(new Date(ms))) p[x.type] = Number(x.value);
  return { year: p.year, month: p.month, day: p.day };
}

// The Gregorian day (UTC ms) of a Solar Hijri date, or null when the month
// has no such day: found near its estimate (a year begins on 20-21 March).
function gregorianOf(year, month, day) {
  const guess = Date.UTC(year + 621, 2, 21) + Math.round((month - 1) * 30.5 + day - 1) * DAY_MS;
  for (let k = -4; k <= 4; k++) {
    const ms = guess + k * DAY_MS;
    const s = solarOf(ms);
    if (s.year === year && s.month === month && s.day === day) return ms;
  }
  return null;
}

function iso(ms) { return new Date(ms).toISOString().slice(0, 10); }

function options(select, values, text, value) {
  select.replaceChildren(...values.map((v) => {
    const o = el("option", null, text(v));
    o.value = String(v);
    return o;
  }));
  select.value = String(value);
}

// In Persian, ``input`` (type="date") gets the Solar Hijri selects beside it
// (ids PREFIX + "day", "month", "year"); picking one sets the input's
// Gregorian value and fires its "change".  Answers a function that shows
// the input's value again after the page set it (no value: today).  In
// English it does nothing: the browser's own picker is Gregorian.
export function solarHijriPicker(input, prefix = input.id + "-") {
  if (LANG !== "fa") return () => {};
  input.hidden = true;
  const [day, month, year] = ["day", "month", "year"].map((k) => {
    const s = el("select", "solar-hijri " + k);
    s.id = prefix + k;
    // named as the input is: by its page's label
    const by = input.getAttribute("aria-labelledby");
    if (by) s.setAttribute("aria-labelledby", by);
    else if (input.labels && input.labels.length) s.setAttribute("aria-label", input.labels[0].textContent);
    return s;
  });
  input.after(day, " ", month, " ", year); // in reading order, as a date is said
  const show = () => {
    const ms = input.value ? Date.parse(input.value + "T00:00:00Z") : Date.now();
    const s = solarOf(ms);
    const now = solarOf(Date.now()).year;
    const years = [];
    for (let y = Math.min(s.year, now - 3); y <= Math.max(s.year, now + 1); y++) years.push(y);
    options(year, years, num, s.year);
    const months = Array.from({ length: 12 }, (_, i) => i + 1);
    options(month, months, (m) => MONTH.format(new Date(gregorianOf(s.year, m, 1))), s.month);
    const days = [];
    for (let d = 1; d <= 31 && gregorianOf(s.year, s.month, d) !== null; d++) days.push(d);
    options(day, days, num, s.day);
  };
  const picked = () => {
    const [y, m] = [Number(year.value), Number(month.value)];
    let d = Number(day.value);
    // the 31st picked, then a month of 30: its last day
    while (d > 1 && gregorianOf(y, m, d) === null) d -= 1;
    input.value = iso(gregorianOf(y, m, d));
    show();
    input.dispatchEvent(new Event("change"));
  };
  for (const s of [day, month, year]) s.addEventListener("change", picked);
  show();
  return show;
}
