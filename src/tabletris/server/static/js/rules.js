// The rules page: every game's rules in brief and every house rule with its default and each
// preset's value. All of it comes from /api/meta (the engine's texts, shown in the page's
// language through the engine catalog) and each game's own words (its view's ``names``);
// nothing is typed here.
import { _, el, gameName, gameWords, header, markdown, meta, ngettext, ruleValue, tr, trBlocks, valueName } from "./common.js";

function gameSection(name, g, words) {
  const presets = Object.keys(g.presets);
  const players = g.max_seats === 1 ? _("1 player") : ngettext("1 to {n} player", "1 to {n} players", g.max_seats);
  return el("section", { class: "panel", id: name, "aria-labelledby": `${name}-title` },
    el("h2", { id: `${name}-title` }, words.heading),
    ...markdown(trBlocks(g.summary)),
    g.tutorial ? el("p", {}, el("a", { class: "button", href: g.tutorial }, _("Learn it by playing: the guided first game"))) : "",
    el("p", { class: "muted" }, _("{players}. Presets: {presets}. A room shows the rules in force under \"Rules in force\".", { players, presets: presets.map(valueName).join(", ") })),
    el("h3", {}, _("House rules and options")),
    el("div", { class: "scroll-x", tabindex: 0, role: "region", "aria-label": _("{game} options", { game: gameName(name) }) }, el("table", { class: "scores rules-table" },
      el("tr", {}, el("th", {}, _("Option")), ...presets.map((p) => el("th", {}, valueName(p))), el("th", {}, _("What it does"))),
      ...g.options.map((o) => el("tr", { "data-rule": o.name }, el("td", {}, el("b", { title: o.name }, tr(o.label || o.name))),
        ...presets.map((p) => el("td", {}, ruleValue(g.presets[p][o.name]))), el("td", {}, tr(o.help)))))));
}

async function main() {
  document.body.append(header());
  const m = await meta();
  const games = Object.keys(m.games);
  const words = await Promise.all(games.map(gameWords));
  const links = games.flatMap((name, i) => [...(i ? [" · "] : []), el("a", { href: `#${name}` }, words[i].heading)]);
  document.body.append(el("main", { class: "rules-page" }, el("h2", {}, _("Rules")),
    el("p", {}, ...links),
    ...games.map((name, i) => gameSection(name, m.games[name], words[i]))));
  if (location.hash) document.querySelector(location.hash)?.scrollIntoView();
}

main();
