// The lobby's Play now: pick a game, a preset and how many players, and whether a bot may fill
// the table after some seconds; the server's queue (POST/GET/DELETE /api/queue) pairs players of
// a similar rating, widening the window as they wait. The waiting view shows the time waited and
// the rating window, with Cancel; when the ticket is matched the page goes to the room, where
// the session acts for the seat. It needs an account: logged out, the button leads to log in.
import { _, api, el, gameName, here, ngettext, num, valueName } from "./common.js";
import { errorLine, refusal } from "./forms.js";

const BOT_AFTER = [["", null], ["15", 15], ["30", 30], ["60", 60], ["120", 120]];
const POLL_MS = 1000;
// A Play now table seats 2 to 4 (docs/api.md, POST /api/queue), within the game's own seats.
const PLAYERS_MAX = 4;

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// ``words``: each game's words (gameWords), for its name in the menu as the create form has it.
export function playNowPanel(meta, who, words = {}) {
  const games = Object.keys(meta.games);
  const error = errorLine("playnow-error");
  const panel = el("section", { class: "panel", id: "playnow", "aria-labelledby": "playnow-title" });
  let timer = null;
  let ticket = null;
  let seenAt = 0;

  const form = () => {
    const game = el("select", { id: "pn-game" }, ...games.map((g) => el("option", { value: g }, words[g] ? words[g].menu : gameName(g))));
    const preset = el("select", { id: "pn-preset" });
    const players = el("select", { id: "pn-players" });
    const botAfter = el("select", { id: "pn-bot", "aria-describedby": "pn-bot-help" },
      ...BOT_AFTER.map(([value, s]) => el("option", { value }, s === null ? _("never") : ngettext("after {n} second", "after {n} seconds", s))));
    const fill = () => {
      const g = meta.games[game.value];
      preset.replaceChildren(...Object.keys(g.presets).map((p) => el("option", { value: p }, valueName(p))));
      if ("standard" in g.presets) preset.value = "standard";
      const counts = [];
      for (let n = Math.max(2, g.min_seats); n <= Math.min(PLAYERS_MAX, g.max_seats); n++) counts.push(n);
      players.replaceChildren(...counts.map((n) => el("option", { value: n }, ngettext("{n} player", "{n} players", n))));
      players.value = String(counts[0]);
    };
    game.addEventListener("change", fill);
    fill();
    botAfter.value = "30";
    const go = who
      ? el("button", { class: "primary", type: "submit", id: "playnow-btn" }, _("Play now"))
      : el("a", { class: "button primary-link", id: "playnow-login", href: `/login?next=${encodeURIComponent(here())}` }, _("Log in to play now"));
    const f = el("form", { class: "grid-form", id: "playnow-form" },
      el("div", { class: "row" },
        el("label", { for: "pn-game" }, _("Game")), game,
        el("label", { for: "pn-preset" }, _("Preset")), preset,
        el("label", { for: "pn-players" }, _("Players")), players),
      el("div", { class: "row" },
        el("label", { for: "pn-bot" }, _("Fill with a bot")), botAfter,
        el("span", { class: "muted", id: "pn-bot-help", style: "font-size:12px" }, _("if nobody else comes in time"))),
      error,
      el("div", { class: "row" }, go, el("span", { class: "muted" }, who
        ? _("You are paired with players of a similar rating.") : _("Play now needs an account: it pairs you with players of a similar rating."))));
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!who) { location.href = `/login?next=${encodeURIComponent(here())}`; return; }
      error.textContent = "";
      const seconds = botAfter.value === "" ? null : Number(botAfter.value);
      try {
        show(await api("/api/queue", { method: "POST", body: { game: game.value, preset: preset.value, players: Number(players.value), bot_after: seconds } }));
      } catch (err) {
        if (err.code === "login_required") { location.href = `/login?next=${encodeURIComponent(here())}`; return; }
        error.textContent = refusal(err);
        if (err.code === "already_matched") offerTable();
      }
    });
    return f;
  };

  const showForm = (message = "") => {
    clearInterval(timer);
    timer = null;
    ticket = null;
    panel.replaceChildren(el("h2", { id: "playnow-title" }, _("Play now")), form());
    if (message) panel.querySelector("#playnow-error").textContent = message;
  };

  // The waiting view of a ticket; a matched one goes to its room.
  const show = (t) => {
    if (t.status === "matched" && t.room) { location.href = `/room/${encodeURIComponent(t.room)}`; return; }
    ticket = t;
    seenAt = Date.now();
    const g = meta.games[t.game];
    const what = _("{game}, {preset}, {players}", { game: g ? gameName(t.game) : t.game, preset: valueName(t.preset), players: ngettext("{n} player", "{n} players", t.players) });
    const bot = t.bot_after === null || t.bot_after === undefined ? _("No bot: you wait for people.")
      : ngettext("A bot takes the free seats after {n} second.", "A bot takes the free seats after {n} seconds.", t.bot_after);
    panel.replaceChildren(el("h2", { id: "playnow-title" }, _("Play now")),
      el("div", { class: "waiting-view", id: "playnow-waiting", role: "status" },
        el("p", {}, el("b", {}, _("Looking for players…")), " ", what),
        el("p", { class: "big" }, _("Waited"), " ", el("span", { id: "pn-waited" }, clock(t.waited || 0))),
        el("p", { id: "pn-window" }),
        el("p", { class: "muted" }, bot),
        errorLine("playnow-error"),
        el("div", { class: "row" }, el("button", { id: "playnow-cancel", onclick: cancel }, _("Cancel")))));
    window_(t);
    if (!timer) timer = setInterval(tick, POLL_MS);
  };

  const window_ = (t) => {
    const line = panel.querySelector("#pn-window");
    if (!line) return;
    const parts = [];
    if (Array.isArray(t.window) && t.window.length === 2) parts.push(_("Opponents rated {low} to {high}", { low: num(Math.round(t.window[0])), high: num(Math.round(t.window[1])) }));
    if (t.rating !== null && t.rating !== undefined) parts.push(_("your rating {rating}", { rating: num(Math.round(t.rating)) }));
    line.textContent = parts.join(_(", "));
  };

  let polling = false;
  const tick = async () => {
    if (!ticket) return;
    const waited = panel.querySelector("#pn-waited");
    if (waited) waited.textContent = clock((ticket.waited || 0) + (Date.now() - seenAt) / 1000);
    if (polling) return;
    polling = true;
    try {
      const t = await api("/api/queue");
      if (!ticket) return;  // cancelled meanwhile
      if (t.status === "matched") { show(t); return; }
      ticket = t;
      seenAt = Date.now();
      window_(t);
    } catch (err) {
      if (err.code === "not_queued" || err.status === 404 || err.status === 401) showForm(_("You are not in the queue any more."));
    } finally { polling = false; }
  };

  // Cancel; a ticket matched meanwhile (409 already_matched) goes to its table after all.
  const cancel = async () => {
    try {
      await api("/api/queue", { method: "DELETE" });
      showForm();
    } catch (err) {
      if (err.code === "already_matched") { try { show(await api("/api/queue")); return; } catch { /* gone meanwhile */ } }
      const line = panel.querySelector("#playnow-error");
      if (err.status === 404) showForm(); else if (line) line.textContent = refusal(err);
    }
  };

  // The table a matched ticket found, as a link under the form (never followed on its own: the
  // player may have left it on purpose).
  const offerTable = async (known = null) => {
    try {
      const t = known || await api("/api/queue");
      if (t.status !== "matched" || !t.room || panel.querySelector("#playnow-table")) return;
      panel.append(el("p", { id: "playnow-table" }, _("Play now found you a table."), " ",
        el("a", { href: `/room/${encodeURIComponent(t.room)}` }, _("Go to the table"))));
    } catch { /* no ticket */ }
  };

  showForm();
  // A ticket from before this page (a reload while waiting) comes back as the waiting view; a
  // matched one is offered as a link.
  if (who) {
    api("/api/queue").then((t) => {
      if (t && t.status === "waiting") show(t);
      else if (t && t.status === "matched") offerTable(t);
    }).catch(() => {});
  }
  return panel;
}
