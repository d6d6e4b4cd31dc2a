// What the room page shares with each game's view (js/views/<game>.js): the live table's state,
// the websocket requests, the seats' names and colours, dialogs, the game log's lines and the
// display settings. Nothing here names a game, and nothing runs on import: the lobby, the rules
// and the replay pages load the views too (for their words and replay frames).
import { _, el, prefs, profileHref, toast } from "./common.js";

// The room page's state: the socket, the last state message, this browser's seat, the loaded
// game module (``game``: undefined until it arrives, null for a game without a view) and its
// table view (``view``). ``mine`` holds the ids of the moves this page sent, ``timerPlayed``
// those the turn timer's bot played for this seat. ``local``: a page without a socket (the
// tutorial) answers the views' requests itself (a function of the message, giving a promise).
export const app = {
  roomId: null, ws: null, state: null, seat: null, token: null, nextId: 1, game: undefined, view: null, retry: 0, closed: false,
  meta: null, hello: null, wasMyTurn: false, mine: new Set(), timerPlayed: new Set(), table: null, local: null,
  rematchAsked: null,  // the id of the rematch asked and not answered yet (room.js: the button waits)
};

export function send(message) {
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) { toast(_("Not connected: reconnecting…")); return null; }
  const id = app.nextId++;
  app.ws.send(JSON.stringify({ ...message, id }));
  return id;
}

const waiters = new Map();
export function request(message) {
  if (app.local) return app.local(message);
  return new Promise((resolve, reject) => {
    const id = send(message);
    if (id === null) { reject(new Error("not connected")); return; }
    waiters.set(id, { resolve, reject });
  });
}

// The pending request that the server's message answers, taken off the list; null for none.
export function waiterFor(msg) {
  const w = msg.id !== undefined && msg.id !== null ? waiters.get(msg.id) : null;
  if (w) waiters.delete(msg.id);
  return w;
}

export function nameOf(seat) {
  const s = app.state.room.seats[seat];
  return s && s.name ? s.name : _("Seat {n}", { n: seat + 1 });
}

// A seat's name as the scoreboards show it: an account's name links to its profile.
export function playerName(seat) {
  const s = app.state.room.seats[seat];
  return s && s.account && s.name ? el("a", { href: profileHref(s.name), class: "player-link" }, s.name) : nameOf(seat);
}

// The seat was given up (its player resigned, or let the clock run out too often): the timer's
// bot plays it to the end of the game.
export function seatResigned(seat) {
  const s = app.state && seat !== null && seat !== undefined ? app.state.room.seats[seat] : null;
  return Boolean(s && s.kind === "resigned");
}

export const RESIGNED = () => _("You resigned: the timer's bot plays your seat to the end of the game.");

// "Ann wins", "Ann and Bob share the win" (empty when nobody won).
export function winnersText(winners) {
  const names = winners.map(nameOf);
  if (!names.length) return "";
  if (names.length === 1) return _("{name} wins", { name: names[0] });
  return _("{names} share the win", { names: names.reduce((a, b) => _("{a} and {b}", { a, b })) });
}

export function legend(i) { return el("span", { class: `swatch o-${i % 8}`, role: "img", "aria-label": _("colour of {name}", { name: nameOf(i) }) }); }

// A small modal dialog: focus on its first button, Escape or "Cancel" closes it.
export function dialog(id, title, body, buttons, { peek = false } = {}) {
  const back = document.activeElement;
  const panel = el("div", { class: "panel", role: "dialog", "aria-modal": peek ? null : "true", "aria-labelledby": `${id}-title` },
    el("h2", { id: `${id}-title` }, title), ...body, el("div", { class: "row", style: "margin-top:12px" }, ...buttons));
  const overlay = el("div", { class: `overlay${peek ? " peek" : ""}`, id }, panel);
  overlay.close = () => { overlay.remove(); if (back && back.focus) back.focus(); };
  overlay.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); e.stopPropagation(); overlay.cancel ? overlay.cancel() : overlay.close(); } });
  document.body.append(overlay);
  const first = panel.querySelector("select, button, a");
  if (first) first.focus();
  return overlay;
}

// A board key (arrows, Enter, R ...) is for the board unless a control, a dialog or the chat has it.
export function boardKey(e) {
  if (document.querySelector(".overlay:not(.peek)")) return false;
  const t = e.target;
  return !(t && t.closest && t.closest("input, select, textarea, button, a, summary, [role=dialog], .chat"));
}

// A move of this seat that the player did not send was played by the turn timer's bot (the
// server also marks it "by": "timer" in the log once it knows to).
function byTimer(m, id) { return m.by === "timer" || app.timerPlayed.has(id); }

// One line of the game log: move (or round) ``n``, marked when the timer played it, and once the
// game is over a link to the replay at that point.
export function logItem(n, children, id, m) {
  const item = el("li", { value: n + 1 }, ...children, byTimer(m, id) ? el("span", { class: "tag timer-tag" }, _("timer")) : "");
  if (app.state.game.over && app.roomId) item.append(" ", el("a", { href: `/replay/${app.roomId}?step=${n + 1}`, "aria-label": _("replay from move {n}", { n: n + 1 }) }, "▶"));
  return item;
}

// Display settings: colour by shape or by player, letters on stones, sound and notifications.
export function viewPanel() {
  const colour = el("select", { id: "pref-colour", "aria-label": _("Colour stones by") },
    el("option", { value: "shape" }, _("shape (owner outlined)")), el("option", { value: "player" }, _("player")));
  colour.value = prefs.get("colour");
  colour.addEventListener("change", () => { prefs.set("colour", colour.value); });
  const check = (id, name, text, after = null) => {
    const box = el("input", { type: "checkbox", id });
    box.checked = Boolean(prefs.get(name));
    box.addEventListener("change", async () => { prefs.set(name, box.checked); if (after) await after(box); });
    return el("label", { class: "check", for: id }, box, ` ${text}`);
  };
  return el("div", { class: "panel", id: "view-prefs" }, el("h2", {}, _("View")),
    el("div", { class: "row" }, el("label", { for: "pref-colour" }, _("Colour stones by")), colour),
    el("div", { class: "row" },
      check("pref-letters", "letters", _("Letters on stones")),
      check("pref-sound", "sound", _("Sound on my turn")),
      check("pref-notify", "notify", _("Notify when the tab is hidden"), async (box) => {
        if (box.checked && "Notification" in window && Notification.permission === "default") {
          try { await Notification.requestPermission(); } catch { /* refused */ }
        }
      })));
}
