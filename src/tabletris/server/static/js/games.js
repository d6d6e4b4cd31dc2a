// Your games (/games): every live game this browser (and, logged in, the account) sits in, those
// waiting for your move first with the time you have left, counting down; then the games where
// others are to move, and the tables still waiting for players. POST /api/me/games.
import { _, el, footer, gameName, header, meta, ngettext } from "./common.js";
import { duration, speedText, yourGames } from "./speeds.js";

const REFRESH = 30000;

function whoMoves(game) {
  const names = game.to_act.map((s) => game.players[s] || _("Seat {n}", { n: s + 1 }));
  return names.length ? _("Waiting for {names}", { names: names.join(", ") }) : "";
}

// One game: what it waits for, its speed, the others at the table, and the way in.
function gameLine(game, fetched) {
  const others = game.players.filter((name, i) => i !== game.seat && name).join(", ");
  const left = el("span", { class: "left" });
  if (game.left !== null && game.left !== undefined) {
    left.dataset.left = String(game.left);
    left.dataset.fetched = String(fetched);
    left.dataset.running = String(game.your_turn);
  }
  const state = game.your_turn ? el("span", { class: "badge your-turn" }, _("Your turn"))
    : game.status === "waiting" ? el("span", { class: "badge waiting" }, _("Waiting for players"))
      : el("span", { class: "muted" }, whoMoves(game));
  return el("li", { "data-room": game.room, class: game.your_turn ? "your-turn" : "" },
    state,
    el("b", {}, gameName(game.game)),
    others ? el("span", { class: "who" }, _("with {names}", { names: others })) : "",
    el("span", { class: "muted speed" }, speedText(game.speed)),
    left,
    el("a", { class: "button small", href: `/room/${game.room}` }, game.your_turn ? _("Play") : _("Open")));
}

// The time left, counted down in the page from what the server sent (only while it runs).
function tick(root = document) {
  for (const node of root.querySelectorAll(".left[data-left]")) {
    const running = node.dataset.running === "true";
    const gone = running ? (Date.now() - Number(node.dataset.fetched)) / 1000 : 0;
    const left = Math.max(0, Number(node.dataset.left) - gone);
    node.textContent = running ? _("{time} left", { time: duration(left) }) : _("your clock: {time}", { time: duration(left) });
    node.classList.toggle("low", running && left <= 60);
  }
}

async function render(list, summary) {
  const found = await yourGames();
  if (!found) {
    summary.textContent = _("Your games cannot be listed now: try again in a moment.");
    return;
  }
  const fetched = Date.now();
  summary.textContent = found.games.length
    ? ngettext("{n} game waits for your move.", "{n} games wait for your move.", found.your_turn)
    : "";
  list.replaceChildren(...(found.games.length ? found.games.map((g) => gameLine(g, fetched))
    : [el("li", { class: "muted", id: "no-games" }, _("You sit in no game now: join one in the lobby, or create one."))]));
  tick(list);
}

async function main() {
  document.body.append(header());
  await meta();  // the games' names
  document.title = `${_("Your games")} · tabletris`;
  const list = el("ul", { class: "rooms", id: "your-games-list" });
  const summary = el("p", { id: "your-games-summary", role: "status" });
  const page = el("main", { id: "games-page", class: "narrow" },
    el("h2", {}, _("Your games")),
    summary,
    el("section", { class: "panel", "aria-label": _("Your games") }, list),
    el("p", { class: "muted" }, _("The games this browser sits in, and your account's when you are logged in."), " ",
      el("a", { href: "/" }, _("Back to the lobby"))));
  await render(list, summary);
  document.body.append(page, footer());
  setInterval(() => tick(list), 1000);
  setInterval(() => render(list, summary), REFRESH);
}

main();
