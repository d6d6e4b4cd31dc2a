// A rating history as a line chart: inline SVG drawn here from the API's numbers (no chart
// library, nothing from another site). The chart is an image with a one-sentence summary as its
// name; the numbers themselves are in a table beside it (``historyTable``), so nothing is only
// in the picture.
import { _, el, ngettext, num } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

export function dateText(at) {
  return new Date(at * 1000).toLocaleDateString(document.documentElement.lang, { year: "numeric", month: "short", day: "numeric" });
}

export function dateTimeText(at) {
  return new Date(at * 1000).toLocaleString(document.documentElement.lang, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

// "Rating from 1000 to 1043 over 5 rated games (lowest 987, highest 1043)."
export function summary(history) {
  const values = history.map((h) => h.rating);
  const first = values[0];
  const last = values[values.length - 1];
  return ngettext("Rating {last} after {n} rated game.", "Rating from {first} to {last} over {n} rated games (lowest {low}, highest {high}).", values.length,
    { first: num(first), last: num(last), low: num(Math.min(...values)), high: num(Math.max(...values)) });
}

// The chart of ``history`` ([{room, at, rating}], oldest first): one point per rated game, from
// left to right, the rating on the vertical axis; ``id`` names it for its caption.
export function ratingChart(history, id) {
  // As wide as the screen allows (up to 640 units), so that its labels keep their size on a phone.
  const w = Math.round(Math.max(300, Math.min(640, document.documentElement.clientWidth - 64)));
  const h = 220;
  const pad = { left: 46, right: 14, top: 14, bottom: 28 };
  const values = history.map((p) => p.rating);
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (high - low < 20) { const mid = (high + low) / 2; low = mid - 10; high = mid + 10; }
  const margin = (high - low) * 0.1;
  low = Math.floor(low - margin);
  high = Math.ceil(high + margin);
  const x = (i) => pad.left + (values.length === 1 ? (w - pad.left - pad.right) / 2 : (i * (w - pad.left - pad.right)) / (values.length - 1));
  const y = (v) => pad.top + ((high - v) * (h - pad.top - pad.bottom)) / (high - low);
  const chart = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img", "aria-labelledby": `${id}-title`, id, "data-points": values.length });
  chart.append(svg("title", { id: `${id}-title` }, summary(history)));
  for (const v of [low, Math.round((low + high) / 2), high]) {
    chart.append(svg("line", { class: "axis", x1: pad.left, x2: w - pad.right, y1: y(v), y2: y(v) }));
    chart.append(svg("text", { x: pad.left - 6, y: y(v) + 4, "text-anchor": "end" }, num(v)));
  }
  chart.append(svg("text", { x: pad.left, y: h - 8 }, dateText(history[0].at)));
  if (history.length > 1) chart.append(svg("text", { x: w - pad.right, y: h - 8, "text-anchor": "end" }, dateText(history[history.length - 1].at)));
  if (values.length > 1) chart.append(svg("polyline", { class: "line", points: values.map((v, i) => `${x(i)},${y(v)}`).join(" ") }));
  values.forEach((v, i) => chart.append(svg("circle", { class: "pt", cx: x(i), cy: y(v), r: values.length > 60 ? 2 : 4 })));
  return chart;
}

// The same numbers as a table (the chart's text alternative), newest first, each game's replay linked.
export function historyTable(history, caption) {
  return el("table", { class: "scores history" },
    el("caption", { class: "sr-only" }, caption),
    el("tr", {}, el("th", { scope: "col" }, _("Game")), el("th", { scope: "col" }, _("Date")), el("th", { scope: "col" }, _("Rating after it"))),
    ...history.map((p, i) => el("tr", {}, el("td", {}, el("a", { href: `/replay/${encodeURIComponent(p.room)}` }, _("rated game {n}", { n: i + 1 }))),
      el("td", {}, dateTimeText(p.at)), el("td", {}, num(p.rating)))).reverse());
}
