// The lobby's lists: open tables to join (filtered by game, preset, open seats and rated, the
// server's ``list=open`` filters), games being played to watch, and recent games to replay
// (``list=recent``), each its own list. A filter change asks the server at once; the lists
// refresh every few seconds.
import { _, api, el, gameName, seats, statusName, valueName } from "./common.js";
import { speedText } from "./speeds.js";

function roomLine(room) {
  const names = room.seats.map((s) => (s.open ? _("· open ·") : s.kind === "resigned" ? _("{name} (resigned)", { name: s.name })
    : s.bot ? _("{name} (bot)", { name: s.name }) : s.name)).join(", ");
  const mine = seats.get(room.id);
  const actions = [];
  if (room.status === "waiting") actions.push(el("a", { class: "button small", href: `/room/${room.id}` }, mine ? _("Back to seat") : _("Join")));
  if (room.status === "playing") actions.push(el("a", { class: "button small", href: `/room/${room.id}` }, mine ? _("Resume") : _("Watch")));
  if (room.status === "over") actions.push(el("a", { class: "button small", href: `/replay/${room.id}` }, _("Replay")));
  return el("li", { "data-room": room.id },
    el("span", { class: `badge ${room.status}` }, statusName(room.status)),
    el("b", {}, gameName(room.game)),
    el("span", { class: "muted" }, valueName(room.preset)),
    room.rated ? el("span", { class: "badge rated" }, _("rated")) : "",
    room.speed ? el("span", { class: "muted speed" }, speedText(room.speed)) : "",
    el("span", { class: "who" }, names),
    ...actions);
}

// One list of rooms: its <ul>, and how to fill it from the API (``query``: a function of nothing
// that gives the query string, so filters are read at each refresh).
function roomList(id, query, empty) {
  const list = el("ul", { class: "rooms", id });
  let asked = 0;
  const refresh = async () => {
    const mine = ++asked;
    try {
      const rooms = await api(`/api/rooms?${query()}`);
      if (mine !== asked) return;  // an older answer after a newer filter's
      list.replaceChildren(...(rooms.length ? rooms.map(roomLine) : [el("li", { class: "muted" }, empty())]));
    } catch (e) {
      list.replaceChildren(el("li", { class: "muted" }, _("Cannot list rooms: {error}", { error: e.message })));
    }
  };
  return { list, refresh };
}

function select(id, label, options, onchange) {
  const sel = el("select", { id, onchange }, ...options.map(([value, text]) => el("option", { value }, text)));
  return el("label", { for: id }, label, sel);
}

// The filters of the open tables, the three lists, and a refresh of them all.
export function lobbyLists(meta) {
  const games = Object.keys(meta.games);
  const presets = [...new Set(games.flatMap((g) => Object.keys(meta.games[g].presets)))];
  const maxSeats = Math.max(...games.map((g) => meta.games[g].max_seats));
  const any = () => ["", _("all")];
  let open = null;
  const changed = () => open.refresh();
  const filters = el("div", { class: "filters", id: "room-filters", role: "group", "aria-label": _("Filter the open tables") },
    select("filter-game", _("Game"), [any(), ...games.map((g) => [g, gameName(g)])], changed),
    select("filter-preset", _("Preset"), [any(), ...presets.map((p) => [p, valueName(p)])], changed),
    select("filter-seats", _("Open seats"), [any(), ...Array.from({ length: maxSeats - 1 }, (_x, i) => [String(i + 1), _("at least {n}", { n: i + 1 })])], changed),
    select("filter-rated", _("Rated"), [any(), ["true", _("rated only")], ["false", _("unrated only")]], changed));
  const value = (id) => filters.querySelector(`#${id}`).value;
  open = roomList("rooms", () => {
    const q = new URLSearchParams({ list: "open", limit: "60" });
    for (const [name, id] of [["game", "filter-game"], ["preset", "filter-preset"], ["seats", "filter-seats"], ["rated", "filter-rated"]]) if (value(id)) q.set(name, value(id));
    return q.toString();
  }, () => ([...filters.querySelectorAll("select")].some((s) => s.value) ? _("No open table matches these filters.") : _("No open tables: create one, or press Play now.")));
  const playing = roomList("playing-rooms", () => "status=playing&limit=30", () => _("No game is being played now."));
  const recent = roomList("recent-rooms", () => "list=recent&limit=10", () => _("No finished games yet."));
  const refresh = () => Promise.all([open.refresh(), playing.refresh(), recent.refresh()]);
  const panel = el("section", { class: "panel", id: "lists", "aria-labelledby": "open-title" },
    el("div", { class: "row" }, el("h2", { id: "open-title", style: "flex:1" }, _("Open tables")), el("button", { class: "small", onclick: refresh }, _("Refresh"))),
    filters, open.list,
    el("h2", { id: "playing-title", style: "margin-top:16px" }, _("Games in play")), playing.list,
    el("h2", { id: "recent-title", style: "margin-top:16px" }, _("Recent games")), recent.list,
    el("p", { class: "muted", id: "rankings" }, _("Rankings:"), " ",
      ...games.flatMap((g, i) => [i ? " · " : "", el("a", { href: `/ratings/${encodeURIComponent(g)}` }, gameName(g))])));
  return { panel, refresh };
}
