// Pass and play (issue 26 item 5): several people at one device, a tablet on the table. The
// lobby's create form seats every person here (``formRow``, ``seatEveryone``); the room page then
// holds all their seats (``Hotseat``): one websocket per seat, each with its own token, so each
// seat gets only its own private state, as on separate devices. Whose turn it is comes from the
// server's states (the game's view says whether a state's seat must act: ``myTurn``); between two
// people a curtain hides the table, so one player's choice (a tower drop waiting for the reveal)
// is gone from the page before the next one looks. Nothing here decides a rule.
import { _, api, el, gameView, myName, seats } from "./common.js";
import { app } from "./table.js";

// This browser's seats at a pass-and-play table: [{seat, token, name}], by room.
export const hotseats = {
  get(room) { try { const v = JSON.parse(localStorage.getItem(`tabletris:hotseat:${room}`)); return Array.isArray(v) ? v : null; } catch { return null; } },
  set(room, value) { localStorage.setItem(`tabletris:hotseat:${room}`, JSON.stringify(value)); },
  drop(room) { localStorage.removeItem(`tabletris:hotseat:${room}`); },
};

// ------------------------------------------------------------------ the create form

// The form's line: "Pass and play", and a name for each person here after the creator (the
// seats left open for people). Redrawn when the seats change.
export function formRow(box) {
  const check = el("input", { type: "checkbox", id: "hotseat", "aria-describedby": "hotseat-help" });
  const names = el("div", { id: "hotseat-names", class: "hotseat-names hidden" });
  const redraw = () => {
    const open = [...box.querySelectorAll("#seats .seat-edit select")].filter((s) => s.value === "open").map((s) => Number(s.dataset.seat));
    const kept = new Map([...names.querySelectorAll("input")].map((i) => [i.dataset.hotseat, i.value]));
    names.replaceChildren(...open.slice(1).map((seat) => el("label", { class: "hotseat-name" }, _("Seat {n}", { n: seat + 1 }), " ",
      el("input", { "data-hotseat": seat, maxlength: 24, placeholder: _("Player name"), value: kept.get(String(seat)) || "", "aria-label": _("Name of the player at seat {n}", { n: seat + 1 }) }))));
    names.classList.toggle("hidden", !check.checked || open.length < 2);
  };
  check.addEventListener("change", redraw);
  box.addEventListener("change", (e) => { if (e.target.closest && e.target.closest("#seats, #game")) redraw(); });
  box.addEventListener("input", (e) => { if (e.target.id === "count") setTimeout(redraw); });
  setTimeout(redraw);
  return el("div", { class: "hotseat-box" },
    el("div", { class: "row" },
      el("label", { class: "check", for: "hotseat" }, check, " ", _("Pass and play: everyone on this device")),
      el("span", { class: "muted", id: "hotseat-help", style: "font-size:12px" }, _("each open seat is a person here; the device goes round, and a curtain hides each player's table from the next"))),
    names);
}

// The names of the other people here, when pass and play is chosen: [{seat, name}], or a reason
// to give the player (a name missing or twice); null when pass and play is not chosen.
export function otherPeople(box, creator) {
  const check = box.querySelector("#hotseat");
  if (!check || !check.checked) return null;
  const people = [...box.querySelectorAll("[data-hotseat]")].map((i) => ({ seat: Number(i.dataset.hotseat), name: i.value.trim(), input: i }));
  if (!people.length) return { error: _("Pass and play needs two open seats or more: one for each person here.") };
  const missing = people.find((p) => !p.name);
  if (missing) { missing.input.focus(); return { error: _("Type the name of the player at seat {n}.", { n: missing.seat + 1 }) }; }
  const names = [creator, ...people.map((p) => p.name)].map((n) => n.toLowerCase());
  if (new Set(names).size !== names.length) return { error: _("Each player here needs a name of their own.") };
  return { people: people.map(({ seat, name }) => ({ seat, name })) };
}

// Seats the other people here at the new room (as guests: a logged-in creator's session stays
// the creator's seat), and remembers every seat of this device for the room page.
export async function seatEveryone(room, creator, people) {
  const mine = [creator];
  for (const p of people) {
    const joined = await api(`/api/rooms/${room}/join`, { method: "POST", body: { name: p.name, seat: p.seat }, credentials: "omit" });
    mine.push({ seat: joined.seat, token: joined.token, name: p.name });
  }
  hotseats.set(room, mine);
}

// ------------------------------------------------------------------ the room

// A pass-and-play room: a socket per seat of this device; ``deliver(msg)`` is the room page's
// own message handler, given the state of the seat the page shows (and the rest once).
export class Hotseat {
  constructor(room, local, deliver) {
    this.room = room;
    this.local = [...local].sort((a, b) => a.seat - b.seat);
    this.deliver = deliver;
    this.sockets = new Map();
    this.states = new Map();
    this.shown = this.local[0].seat;
    this.curtain = null;
    this.View = null;
    this.rematches = new Map();
    app.hotseat = this;
  }

  start(onOpen, onClose) {
    for (const s of this.local) this.open(s, onOpen, onClose, 0);
  }

  open(s, onOpen, onClose, retry) {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(this.room)}`);
    this.sockets.set(s.seat, ws);
    if (s.seat === this.active) app.ws = ws;
    ws.onopen = () => {
      retry = 0;
      if (s.seat === this.local[0].seat) onOpen();
      ws.send(JSON.stringify({ type: "hello", token: s.token, id: app.nextId++ }));
    };
    ws.onmessage = (e) => this.heard(s.seat, JSON.parse(e.data));
    ws.onclose = (e) => {
      if (this.sockets.get(s.seat) !== ws || app.closed) return;
      if (onClose(e, s.seat === this.local[0].seat)) return;
      setTimeout(() => this.open(s, onOpen, onClose, Math.min(retry + 1, 6)), 300 * 2 ** Math.min(retry + 1, 6));
    };
  }

  // The seat whose socket sends the player's moves: the curtain's (once lifted) or the one shown.
  get active() { return this.curtain ?? this.shown; }

  heard(seat, msg) {
    if (msg.type === "state") {
      this.states.set(seat, msg);
      this.decide(msg.room.game);
      return;
    }
    if (msg.type === "rematch") { this.rematched(seat, msg); return; }
    // The room's chat and presence come once (on the first seat's socket); answers and errors
    // carry the id of the request, which only one socket sent.
    if ((msg.type === "chat" || msg.type === "presence") && seat !== this.local[0].seat) return;
    this.deliver(msg);
  }

  // Who acts now is in each seat's own state (the view reads it: ``myTurn``); the page stays with
  // the seat it shows while that seat acts, and otherwise curtains the table for the next one.
  async decide(game) {
    if (!this.View) {
      const view = await gameView(game);
      this.View = view ? (await view.table()).View : null;
    }
    const mustAct = (s) => Boolean(this.View && this.states.get(s) && this.View.prototype.myTurn.call(null, this.states.get(s)));
    const acting = this.local.map((s) => s.seat).filter(mustAct);
    if (this.curtain !== null && !acting.includes(this.curtain)) this.curtain = null;
    if (this.curtain === null && acting.length && !acting.includes(this.shown)) this.curtain = acting[0];
    const state = this.states.get(this.active) || this.states.get(this.shown);
    if (!state) return;
    app.ws = this.sockets.get(this.active);
    this.deliver(state);
  }

  // The curtain, in place of the table while it is up (the room page asks before drawing one):
  // nothing of the last player's table stays in the page.
  curtained(node) {
    if (this.curtain === null) return false;
    if (app.view) { app.view.destroy(); app.view = null; }
    if (node.dataset.curtain === String(this.curtain)) return true;
    const name = this.local.find((s) => s.seat === this.curtain).name;
    node.dataset.curtain = String(this.curtain);
    node.className = "table";
    node.replaceChildren(el("section", { class: "panel curtain", id: "curtain", "aria-labelledby": "curtain-title" },
      el("h2", { id: "curtain-title" }, _("Pass the device to {name}", { name })),
      el("p", {}, _("It is {name}'s turn. The table shows their own pieces and choices: only {name} should look.", { name })),
      el("button", { class: "primary", id: "curtain-go", onclick: () => this.lift() }, _("I am {name}: show my table", { name }))));
    node.querySelector("#curtain-go").focus();
    return true;
  }

  lift() {
    if (this.curtain === null) return;
    this.shown = this.curtain;
    this.curtain = null;
    const node = document.querySelector("#curtain");
    if (node) delete node.parentNode.dataset.curtain;
    app.ws = this.sockets.get(this.shown);
    this.deliver(this.states.get(this.shown));
  }

  // The game's rematch, for everyone here: the first seat's answer asks it for the others too,
  // and the page goes to the new room once every seat here has one there.
  rematched(seat, msg) {
    this.rematches.set(seat, { seat: msg.seat, token: msg.token, name: this.local.find((s) => s.seat === seat).name });
    if (this.rematches.size === 1) {
      for (const [other, ws] of this.sockets) if (other !== seat && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "rematch", id: app.nextId++ }));
    }
    if (this.rematches.size < this.local.length) return;
    const mine = [...this.rematches.values()];
    hotseats.set(msg.room, mine);
    seats.set(msg.room, { seat: mine[0].seat, token: mine[0].token, name: mine[0].name || myName() });
    location.href = `/room/${msg.room}`;
  }
}
