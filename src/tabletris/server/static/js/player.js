// A player's profile (/players/{username}): per game the games played and won, the rating and its
// history as a chart (with the numbers as a table), and the newest games with their replays; all
// from GET /api/players/{username}. Each game links to its ranking.
import { _, api, el, footer, gameWords, header, me, meta, num, statusName } from "./common.js";
import { dateText, dateTimeText, historyTable, ratingChart } from "./chart.js";

const username = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());

const RESULTS = { won: () => _("Won"), lost: () => _("Lost"), resigned: () => _("Resigned") };

function gameSection(name, g, words) {
  const stats = el("div", { class: "stats" },
    el("div", {}, el("span", { class: "muted" }, _("Played")), el("b", { "data-stat": "played" }, num(g.played))),
    el("div", {}, el("span", { class: "muted" }, _("Won")), el("b", { "data-stat": "won" }, num(g.won))),
    el("div", {}, el("span", { class: "muted" }, _("Rating")), el("b", { "data-stat": "rating" }, g.rating === null ? "–" : num(g.rating))));
  const parts = [el("h3", { id: `${name}-title` }, words.heading), stats];
  if (g.history.length) {
    const caption = _("Rating history in {game}", { game: words.title });
    parts.push(el("h4", {}, caption), ratingChart(g.history, `chart-${name}`),
      el("details", { class: "history-table" }, el("summary", {}, _("The rating history as a table")), historyTable(g.history, caption)));
  } else {
    parts.push(el("p", { class: "muted" }, _("No rated game yet.")));
  }
  parts.push(el("p", {}, el("a", { href: `/ratings/${encodeURIComponent(name)}`, "data-ranking": name }, _("Ranking in {game}", { game: words.title }))));
  return el("section", { class: "panel", id: `game-${name}`, "aria-labelledby": `${name}-title` }, ...parts);
}

function recentTable(recent, words) {
  if (!recent.length) return el("p", { class: "muted" }, _("No games yet."));
  return el("div", { class: "scroll-x", tabindex: 0, role: "region", "aria-label": _("Recent games") }, el("table", { class: "scores", id: "recent" },
    el("tr", {}, el("th", { scope: "col" }, _("Date")), el("th", { scope: "col" }, _("Game")), el("th", { scope: "col" }, _("Result")), el("th", { scope: "col" }, _("Replay"))),
    ...recent.map((r) => el("tr", { "data-room": r.room },
      el("td", {}, dateTimeText(r.at)),
      el("td", {}, words[r.game] ? words[r.game].title : r.game, r.rated ? el("span", { class: "badge rated", style: "margin-left:6px" }, _("rated")) : ""),
      el("td", { class: `result-${r.result}` }, RESULTS[r.result] ? RESULTS[r.result]() : statusName(r.result)),
      el("td", {}, el("a", { href: r.replay }, _("Replay")))))));
}

async function main() {
  document.body.append(header());
  document.title = `${username} · tabletris`;
  const page = el("main", { id: "profile", class: "profile" });
  let profile;
  try {
    profile = await api(`/api/players/${encodeURIComponent(username)}`);
  } catch (err) {
    page.append(el("div", { class: "panel", id: "missing", role: "alert" }, el("h2", {}, _("No such player")), el("p", {}, err.message),
      el("p", {}, el("a", { href: "/" }, _("Back to the lobby")))));
    document.body.append(page, footer());
    return;
  }
  const [m, who] = await Promise.all([meta(), me()]);
  const names = Object.keys(m.games);
  const words = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await gameWords(n)])));
  const played = names.filter((n) => profile.games[n]);
  page.append(
    el("h2", { id: "profile-name" }, profile.username),
    el("p", { class: "muted" }, _("Playing here since {date}.", { date: dateText(profile.created) }),
      who && who.username === profile.username ? [" ", el("a", { href: "/account" }, _("Your account"))] : ""),
    ...(played.length ? played.map((n) => gameSection(n, profile.games[n], words[n])) : [el("p", { class: "panel muted", id: "no-games" }, _("No games yet."))]),
    el("section", { class: "panel", "aria-labelledby": "recent-title" }, el("h3", { id: "recent-title" }, _("Recent games")), recentTable(profile.recent, words)),
    el("p", {}, ...names.flatMap((n, i) => [i ? " · " : "", el("a", { href: `/ratings/${encodeURIComponent(n)}` }, _("Ranking in {game}", { game: words[n].title }))])));
  document.body.append(page, footer());
}

main();
