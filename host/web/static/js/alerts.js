// What needs the desk (GET /api/desk "alerts"): which sentence of the desk's
// words says it, with what.  The desk and the operator console both show
// them; each draws the sentence its own way.
import { t } from "./i18n.js";

// {key, names, vars}: the words' key (without "desk_"), the names to isolate
// in it (the table's), and the rest of its values.
export function alertWords(a, tableName) {
  const names = { table: tableName };
  if (a.kind === "confirm") return { key: "alert_confirm", names, vars: { n: a.session } };
  if (a.kind === "idle") return { key: "alert_idle", names, vars: { n: a.session, m: a.minutes } };
  if (a.kind === "light") {
    const want = t(a.wanted ? "desk_on" : "desk_off");
    const is = a.light === null ? t("desk_unknown") : t(a.light ? "desk_on" : "desk_off");
    return { key: "alert_light", names, vars: { want, is } };
  }
  return { key: "alert_no_session", names, vars: {} };
}
