"""Layout checks a person would make looking at a page, measured in the
browser: nothing scrolls sideways, a TV board fits its screen, no text lies
outside the viewport or spills out of its part of the board, and no text is
cut off where the page did not mean to cut it (an ellipsis is meant)."""

from __future__ import annotations

import re
from typing import Any

# The parts of a board that text must stay inside.
REGIONS = (
    "header, main .player, .breakline, .infoline, #notice, #bottom, footer, .card, #overlay, "
    "#message, .summary, details, #result, dialog"
)

MEASURE = """(regions) => {
  const W = innerWidth, H = innerHeight;
  const doc = document.documentElement;
  const docH = Math.max(doc.scrollHeight, H);
  const outside = [], spilled = [], cut = [];
  const describe = (e) => {
    if (e.id) return "#" + e.id;
    const cls = typeof e.className === "string" ? e.className.trim().split(/\\s+/).join(".") : "";
    return e.tagName.toLowerCase() + (cls ? "." + cls : "");
  };
  const clips = (cs) => cs.overflowX !== "visible" || cs.overflowY !== "visible";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.trim();
    if (!text) continue;
    const parent = node.parentElement;
    if (!parent || parent.closest("[hidden], script, style, option, dialog:not([open])")) continue;
    if (getComputedStyle(parent).visibility !== "visible") continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 0.5 || r.height < 0.5) continue;
      let box = { l: r.left, t: r.top, r: r.right, b: r.bottom };
      let region = null;
      for (let a = parent; a && a !== document.body; a = a.parentElement) {
        const cs = getComputedStyle(a);
        if (!region && a.matches(regions)) region = a;
        if (clips(cs)) {
          const c = a.getBoundingClientRect();
          box = { l: Math.max(box.l, c.left), t: Math.max(box.t, c.top),
                  r: Math.min(box.r, c.right), b: Math.min(box.b, c.bottom) };
        }
      }
      if (box.r - box.l < 0.5 || box.b - box.t < 0.5) continue;  // hidden by a clip on purpose
      const top = box.t + scrollY, bottom = box.b + scrollY;
      if (box.l < -1 || box.r > W + 1 || top < -1 || bottom > docH + 1) {
        outside.push(text.slice(0, 40) + " @ " + [box.l, top, box.r, bottom].map(Math.round));
      }
      if (region) {
        const g = region.getBoundingClientRect();
        if (box.l < g.left - 1 || box.r > g.right + 1 ||
            box.t < g.top - 1 || box.b > g.bottom + 1) {
          spilled.push(text.slice(0, 40) + " out of " + describe(region));
        }
      }
    }
  }
  for (const e of document.body.querySelectorAll("*")) {
    if (e.closest("[hidden], [data-clip], dialog:not([open])") || !e.textContent.trim()) continue;
    const cs = getComputedStyle(e);
    if (!clips(cs) || cs.display === "none" || cs.visibility !== "visible") continue;
    const wide = e.scrollWidth > e.clientWidth + 1 && cs.textOverflow !== "ellipsis";
    const tall = e.scrollHeight > e.clientHeight + 1;
    if (wide || tall) cut.push(describe(e) + ": " + e.textContent.trim().slice(0, 40));
  }
  return { scrollWidth: Math.max(doc.scrollWidth, document.body.scrollWidth), width: W,
           scrollHeight: doc.scrollHeight, height: H, outside, spilled, cut };
}"""


def problems(page: Any, fit: bool) -> list[str]:
    """What is wrong with the page's layout (empty: nothing)."""
    m = page.evaluate(MEASURE, REGIONS)
    found: list[str] = []
    if m["scrollWidth"] > m["width"]:
        found.append(f"scrolls sideways: {m['scrollWidth']} px wide in {m['width']}")
    if fit and m["scrollHeight"] > m["height"]:
        found.append(f"taller than the screen: {m['scrollHeight']} px in {m['height']}")
    found += [f"outside the viewport: {t}" for t in m["outside"]]
    found += [f"spills out of its part: {t}" for t in m["spilled"]]
    found += [f"cut off: {t}" for t in m["cut"]]
    return found


LATIN_WORD = re.compile(r"[A-Za-z]+")


def latin_words(page: Any, allowed: list[str]) -> list[str]:
    """Latin words in the page's visible text other than the given names
    (players, tables, referee) and the language switch."""
    text = page.inner_text("body")
    for name in sorted(allowed, key=len, reverse=True):
        text = text.replace(name, " ")
    return LATIN_WORD.findall(text)
