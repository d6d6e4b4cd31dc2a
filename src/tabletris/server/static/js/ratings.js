// A game's ranking (/ratings/{game}?offset=N): the rated players, best first, a page at a time
// (GET /api/ratings/{game}), each name linked to the profile; the logged-in player's row marked.
import { _, api, el, footer, gameWords, header, me, meta, ngettext, num, profileHref } from "./common.js";

const game = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const PAGE = 50;

// A page of the ranking: its offset, and the page size when the address chose one (?limit=).
function pageHref(offset, limit) {
  const q = new URLSearchParams();
  if (offset > 0) q.set("offset", offset);
  if (limit !== PAGE) q.set("limit", limit);
  const query = q.toString();
  return query ? `?${query}` : location.pathname;
}

async function main() {
  document.body.append(header());
  const params = new URLSearchParams(location.search);
  const offset = Math.max(0, Math.floor(Number(params.get("offset")) || 0));
  const limit = Math.min(100, Math.max(1, Math.floor(Number(params.get("limit")) || PAGE)));
  const page = el("main", { id: "ranking-page", class: "narrow" });
  const [m, who] = await Promise.all([meta(), me()]);
  const names = Object.keys(m.games);
  const words = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await gameWords(n)])));
  const title = words[game] ? _("Ranking in {game}", { game: words[game].title }) : _("Ranking");
  document.title = `${title} · tabletris`;
  page.append(el("h2", {}, title),
    el("p", { id: "ranking-games" }, ...names.flatMap((n, i) => [i ? " · " : "", n === game
      ? el("b", { "aria-current": "page" }, words[n].title) : el("a", { href: `/ratings/${encodeURIComponent(n)}` }, words[n].title)])));
  let data;
  try {
    data = await api(`/api/ratings/${encodeURIComponent(game)}?offset=${offset}&limit=${limit}`);
  } catch (err) {
    page.append(el("div", { class: "panel", id: "missing", role: "alert" }, el("p", {}, err.message)));
    document.body.append(page, footer());
    return;
  }
  const panel = el("section", { class: "panel", "aria-labelledby": "ranking-title" },
    el("h3", { id: "ranking-title", class: "sr-only" }, title));
  if (!data.total) {
    panel.append(el("p", { class: "muted", id: "nobody" }, _("Nobody is rated in this game yet: play a rated game to be the first.")));
  } else {
    panel.append(el("table", { class: "scores", id: "ranking" },
      el("tr", {}, el("th", { scope: "col" }, _("Rank")), el("th", { scope: "col" }, _("Player")), el("th", { scope: "col" }, _("Rating")), el("th", { scope: "col" }, _("Rated games"))),
      ...data.players.map((p) => el("tr", { class: who && who.username === p.username ? "me" : "", "data-player": p.username },
        el("td", {}, num(p.rank)), el("td", {}, el("a", { href: profileHref(p.username) }, p.username)), el("td", {}, num(p.rating)), el("td", {}, num(p.games))))));
    const shown = data.players.length;
    const pager = el("nav", { class: "pager", "aria-label": _("Pages of the ranking") },
      offset > 0 ? el("a", { href: pageHref(Math.max(0, offset - limit), limit), id: "prev", rel: "prev" }, _("← Better ranked")) : el("span"),
      el("span", { class: "muted", id: "range" }, shown ? _("{first}–{last} of {total}", { first: num(offset + 1), last: num(offset + shown), total: num(data.total) }) : ngettext("{n} rated player", "{n} rated players", data.total)),
      offset + shown < data.total ? el("a", { href: pageHref(offset + limit, limit), id: "next", rel: "next" }, _("Next players →")) : el("span"));
    panel.append(pager);
  }
  page.append(panel);
  document.body.append(page, footer());
}

main();
