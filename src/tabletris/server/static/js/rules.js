// The rules page: both games' rules in brief and every house rule with its default and each
// preset's value. All of it comes from /api/meta (the engine's texts); nothing is typed here.
import { el, header, markdown, meta } from "./common.js";

const show = (v) => (v === null || v === undefined ? "default" : typeof v === "boolean" ? (v ? "on" : "off") : Array.isArray(v) ? v.join(" ") : String(v));

function gameSection(name, g) {
  const presets = Object.keys(g.presets);
  return el("section", { class: "panel", id: name, "aria-labelledby": `${name}-title` },
    el("h2", { id: `${name}-title` }, name === "dice" ? "The dice game" : "The tower game"),
    ...markdown(g.summary),
    el("p", { class: "muted" }, `${g.max_seats === 1 ? "1 player" : `1 to ${g.max_seats} players`}. Presets: ${presets.join(", ")}. A room shows the rules in force under "Rules in force".`),
    el("h3", {}, "House rules and options"),
    el("div", { class: "scroll-x", tabindex: 0, role: "region", "aria-label": `${name} options` }, el("table", { class: "scores rules-table" },
      el("tr", {}, el("th", {}, "Option"), ...presets.map((p) => el("th", {}, p)), el("th", {}, "What it does")),
      ...g.options.map((o) => el("tr", { "data-rule": o.name }, el("td", {}, el("b", {}, o.name)),
        ...presets.map((p) => el("td", {}, show(g.presets[p][o.name]))), el("td", {}, o.help))))));
}

async function main() {
  document.body.append(header());
  const m = await meta();
  document.body.append(el("main", { class: "rules-page" }, el("h2", {}, "Rules"),
    el("p", {}, el("a", { href: "#dice" }, "The dice game"), " · ", el("a", { href: "#tower" }, "The tower game")),
    ...Object.entries(m.games).map(([name, g]) => gameSection(name, g))));
  if (location.hash) document.querySelector(location.hash)?.scrollIntoView();
}

main();
