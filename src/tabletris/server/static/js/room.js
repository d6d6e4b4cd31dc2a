// A room: join a seat (or watch), then play the room's game live over the websocket.
// The server sends the whole state after every change, with this seat's legal placements;
// the page only draws it and sends the player's choice. Errors come back as the engine words them.
//
// Everything one game's table needs is in that game's module, loaded by the URL /api/meta gives
// (``gameView``: js/views/<game>.js); this page names no game. A game's module exports:
//   names         {title, menu, heading, rulesLink}: the game's words on the shared pages
//   timerMoves(before, now)  [{id, text}]: this seat's moves the turn timer's bot played
//   seatChoice(game, room)   optional: a choice made on sitting down ({field, label, yours, options})
//   tutorialHints optional: how this page's controls do each step of the guided first game
//                 (js/tutorial.js), by the step's name
//   table()       a promise of the module with the game's table and replay (loaded only by the
//                 pages that draw them; the lobby and the rules page need only the words):
//     View        the table: nodes(), update(state), myTurn(state), turnText(), clockText(time),
//                 endReason(state), breakdown(state), destroy()
//     Replay      new Replay(firstFrame, players): boards, step({step, total}), show(frame, info)
import { _, announce, api, applyPrefs, el, choiceOptions, errorText, gameName, gameView, gameWords, header, markdown, me, meta, myName, ngettext, prefs, rememberName, ruleValue, scrollToEnd, seats, statusName, toast, tr, trBlocks, valueName } from "./common.js";
import { Hotseat, hotseats } from "./hotseat.js";
import { duration, serverNow, speedText, syncClock } from "./speeds.js";
import { app, dialog, legend, playerName, request, send, waiterFor, winnersText } from "./table.js";

// The room this page shows: the address's at first, the new room's once a rematch is followed on
// this page's socket (followRematch); every use reads it here, never a copy.
app.roomId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());

// ------------------------------------------------------------------ connection

function connect() {
  const mine = seats.get(app.roomId);
  app.token = mine ? mine.token : null;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // The seat token goes in the first message (hello), never in the URL: logs would keep it.
  const url = `${proto}://${location.host}/ws/${encodeURIComponent(app.roomId)}`;
  const ws = new WebSocket(url);
  app.ws = ws;
  ws.onopen = () => {
    app.retry = 0;
    setConn(true);
    // The first message says who this is (the seat token, or none to watch).
    app.hello = send(app.token ? { type: "hello", token: app.token } : { type: "hello" });
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = (e) => {
    if (app.ws !== ws || app.closed) return;
    // No such room: said once, without the "connection lost" banner (nothing will come back).
    if (e.code === 4404) { app.closed = true; showMissing(); return; }
    setConn(false);
    if (app.rematchAsked != null) rematchAnswered();
    if (e.code === 4403 && app.token) { seats.drop(app.roomId); toast(_("This browser's seat token is not valid here any more: watching instead.")); }
    app.retry = Math.min(app.retry + 1, 6);
    setTimeout(connect, 300 * 2 ** app.retry);
  };
}

// Pass and play (js/hotseat.js): every seat of this device on a socket of its own; the page shows
// one seat's state at a time, and a curtain between two people.
function startHotseat(local) {
  new Hotseat(app.roomId, local, onMessage).start(() => { app.retry = 0; setConn(true); }, (e, primary) => {
    if (e.code === 4404) { app.closed = true; showMissing(); return true; }
    if (primary) setConn(false);
    return false;
  });
}

function onMessage(msg) {
  if (msg.type === "state") {
    const before = app.state;
    app.state = msg;
    app.seat = msg.you;
    showState(before, msg);
    return;
  }
  if (msg.type === "chat") { addChat(msg); return; }
  if (msg.type === "presence") {  // someone connected or left: only the dots and the watcher count change
    if (app.state && app.state.room) {
      app.state.room.seats.forEach((seat, i) => { seat.connected = msg.connected[i] ? 1 : 0; });
      app.state.room.spectators = msg.spectators;
      if (app.game !== undefined) render();
    }
    return;
  }
  const w = waiterFor(msg);
  if (msg.type === "error") {
    const text = errorText(msg);
    if (msg.error === "unknown_room") { app.closed = true; showMissing(); return; }
    chatRefused(msg.id);
    if (msg.id !== undefined && msg.id === app.rematchAsked) rematchAnswered();
    if (w) w.reject(Object.assign(new Error(text), { code: msg.error, english: msg.message }));
    else toast(text);
  } else if (msg.type === "rematch") {
    seats.set(msg.room, { seat: msg.seat, token: msg.token, name: seats.get(app.roomId)?.name });
    // A server that moved this socket to the new room says "follow"; an older one did not, and
    // the new room's page opens as before (a new page, a new socket).
    if (msg.follow) followRematch(msg);
    else location.href = `/room/${msg.room}`;
  } else if (w) {
    w.resolve(msg);
  }
}

// The rematch, asked from the end dialog. One seat per browser asks to follow it on this socket
// (docs/api.md: the server moves the socket to the new room). Pass and play (js/hotseat.js) asks
// without: each seat's socket gets its own answer and the page opens the new room's page once
// every seat here has one, as before (moving several sockets one by one would mix the two rooms'
// states on one page for a while). The button waits for the answer: a second ask would reach the
// new room, whose game is not over.
function askRematch() {
  const follow = !app.hotseat;
  const id = send(follow ? { type: "rematch", follow: true } : { type: "rematch" });
  if (id === null || !follow) return;
  app.rematchAsked = id;
  const button = document.querySelector("#rematch");
  if (button) button.disabled = true;
}

// The rematch was refused (an error with its id) or its answer will not come (the socket closed):
// the button can ask again.
function rematchAnswered() {
  app.rematchAsked = null;
  const button = document.querySelector("#rematch");
  if (button) button.disabled = false;
}

// The rematch, followed on this socket: from the answer on, the socket is the new room's, at the
// new seat with the new token, and its next state is the new room's. The page becomes the new
// room's without a reload: its id (everything reads app.roomId), its address, its token (a
// reconnect says hello with it to the new room), and nothing of the old game's page is kept for
// the new room's first state to be drawn over.
function followRematch(msg) {
  app.roomId = msg.room;
  app.token = msg.token;
  app.seat = msg.seat;
  // replaceState, not pushState: the finished room's history entry becomes the new room's, so
  // Back leaves the table for the page before it, as from any room, and a reload opens the new
  // room. A pushed entry would be this same document: Back would change the address to the old
  // room and nothing else (the socket is the new room's). The finished game keeps its Replay.
  history.replaceState(history.state, "", `/room/${encodeURIComponent(msg.room)}`);
  // The old game's page state: the last state (the new room's first one is no change from it:
  // no timer or out-of-time notices), its end dialog and whether it was closed, the moves sent
  // and those the timer played (by move number, which the new game counts from the start), the
  // view (a new one for the new game) and the old room's chat (the new room sends its own lines).
  app.state = null;
  app.endClosed = false;
  app.wasMyTurn = false;
  app.mine.clear();
  app.timerPlayed.clear();
  app.rematchAsked = null;
  const end = document.querySelector("#end");
  if (end) end.remove();
  if (app.view) { app.view.destroy(); app.view = null; }
  app.chat = [];
  chatSent.clear();
  if (dom.chatLog) dom.chatLog.replaceChildren();
}

function setConn(on) {
  const dot = document.querySelector("#conn");
  if (dot) { dot.className = `dot ${on ? "on" : ""}`; dot.title = on ? _("connected") : _("reconnecting"); dot.setAttribute("aria-label", dot.title); }
  const banner = document.querySelector("#offline");
  if (banner) {
    banner.classList.toggle("hidden", on);
    if (!on) banner.textContent = _("Connection lost — reconnecting… Your seat is kept; moves are not sent until the table is back.");
  }
  if (!on) announce(_("Connection lost: reconnecting"));
}

// The room's game module and words arrive once (a dynamic import); a state that comes before
// them waits, and the states are drawn in the order they came (all wait on the one promise).
let loading = null;
async function showState(before, msg) {
  loading = loading || Promise.all([gameView(msg.room.game), gameWords(msg.room.game)])
    .then(async ([game, words]) => [game, words, game ? await game.table() : null]);
  [app.game, app.words, app.table] = await loading;
  noticeTimer(before, msg);
  noticeOutOfTime(before, msg);
  render();
}

// A game clock that ran out: the server played the move and resigned the seat; the page says so
// once, to everyone (the clocks line shows "out of time" from then on).
function noticeOutOfTime(before, now) {
  const is = now.room && now.room.clocks;
  if (!before || !before.room || !is) return;
  is.forEach((clock, seat) => {
    if (!clock || clock.left > 0 || clock.until || now.room.seats[seat].kind !== "resigned") return;
    if (before.room.seats[seat].kind === "resigned") return;  // told already
    const text = seat === app.seat ? _("Your time ran out: a bot plays your seat to the end of the game.")
      : _("{name} ran out of time: a bot plays the seat to the end of the game.", { name: now.room.seats[seat].name });
    toast(text, "info");
    announce(text);
  });
}

// A move of this seat that the player did not send was played by the turn timer's bot (the
// server also marks it "by": "timer" in the log once it knows to); the game's module finds them.
function noticeTimer(before, now) {
  const timed = now.room.speed ? now.room.speed.mode !== "untimed" : Boolean(now.timer ?? now.room.timer);
  if (!app.game || !before || !before.game || !now.game || app.seat === null || !timed) return;
  if (resigned(now.room)) return;  // the player gave the seat to the bot: its moves are no news
  for (const { id, text } of app.game.timerMoves(before, now)) {
    app.timerPlayed.add(id);
    toast(text);
  }
}

// This browser's seat was given up (resign): the timer's bot plays it to the end.
function resigned(room) {
  const mine = app.seat !== null && room && room.seats[app.seat];
  return Boolean(mine && mine.kind === "resigned");
}

// ------------------------------------------------------------------ page

const dom = {};

function layout() {
  document.body.append(header());
  applyPrefs();
  dom.main = el("main", { class: "room" });
  dom.offline = el("div", { id: "offline", class: "offline hidden", role: "status" });
  // The room's line: its name, status and clock, then the buttons. During a game on a narrow
  // screen the buttons and the rules in force go below the table (style.css), so the board and
  // its controls fit the screen during a turn.
  dom.actions = el("div", { class: "room-actions row hidden" },
    el("button", { class: "small", id: "invite", onclick: copyInvite }, _("Copy invite link")),
    el("button", { class: "small hidden", id: "expel", onclick: expel }),
    el("button", { class: "small hidden", id: "resign", onclick: () => confirmThen(_("Resign this game?"), _("Your pieces stay on the board and the game goes on without you."), _("Resign"), () => sendAction("resign")) }, _("Resign")),
    el("button", { class: "small", id: "leave", onclick: leave }, _("Leave")));
  dom.top = el("div", { class: "room-top" },
    el("div", { class: "room-head" },
      el("span", { id: "conn", class: "dot", role: "img", "aria-label": _("connecting") }),
      el("h2", { id: "title", class: "room-title" }, _("Room")),
      el("span", { id: "status-badge", class: "badge" }, "…"),
      el("span", { id: "speed-badge", class: "muted speed" }),
      el("span", { id: "clock", class: "clock hidden", role: "timer", "aria-live": "off" })),
    el("div", { id: "clocks", class: "clocks hidden", role: "timer", "aria-live": "off", "aria-label": _("The players' clocks") }),
    dom.actions);
  // Shown with the room's first state (below the table: it would be pushed down as the table came).
  dom.rules = el("details", { class: "panel rules-in-force hidden", id: "rules-in-force" }, el("summary", {}, _("Rules")));
  dom.join = el("div", { class: "panel hidden", id: "join" });
  dom.table = el("div", { class: "table" });
  dom.main.append(dom.offline, dom.top, dom.join, dom.table, dom.rules);
  document.body.append(dom.main);
}

async function sendAction(type) {
  try {
    const answer = await request({ type });
    if (type === "leave" && answer.done === "left") { seats.drop(app.roomId); location.href = "/"; return; }
    // A player who resigns (or leaves a running game, which resigns) watches the rest.
    const text = _("You resigned: the timer's bot plays your seat to the end of the game.");
    toast(text, "info");
    announce(text);
    if (type === "leave") { seats.drop(app.roomId); location.href = "/"; }
  } catch (e) { toast(e.message); }
}

function leave() {
  const s = app.state;
  const seated = app.seat !== null && s && s.room.status !== "over";
  if (!seated) { location.href = "/"; return; }
  const text = s.room.status === "waiting" ? _("Your seat opens again for someone else.") : _("The game goes on without you: a bot plays your seat.");
  confirmThen(_("Leave this table?"), text, _("Leave"), () => sendAction("leave"));
}

function confirmThen(title, text, yes, action) {
  const d = dialog("confirm", title, [el("p", {}, text)], [
    el("button", { class: "primary", id: "confirm-yes", onclick: () => { d.close(); action(); } }, yes),
    el("button", { id: "confirm-no", onclick: () => d.close() }, _("Cancel"))]);
}

async function copyInvite() {
  const link = `${location.origin}/room/${app.roomId}`;
  try { await navigator.clipboard.writeText(link); toast(_("Invite link copied"), "info"); } catch { prompt(_("Invite link"), link); }
}

// A room that does not exist: only that, and the way back (no table, no buttons, no banner).
function showMissing() {
  if (document.querySelector("#missing")) return;
  dom.main.replaceChildren(el("div", { class: "panel", id: "missing", role: "alert" }, el("h2", {}, _("No such room")), el("p", {}, el("a", { href: "/" }, _("Back to the lobby")))));
}

function renderJoin(room) {
  const open = room.seats.filter((s) => s.open);
  if (app.seat !== null || room.status !== "waiting" || !open.length) { dom.join.classList.add("hidden"); return; }
  if (dom.join.dataset.for === JSON.stringify(open.map((s) => s.seat))) { dom.join.classList.remove("hidden"); return; }
  dom.join.dataset.for = JSON.stringify(open.map((s) => s.seat));
  // A rated table seats accounts only: a guest is asked to log in (and comes back here).
  if (room.rated && !app.me) {
    const back = encodeURIComponent(location.pathname);
    dom.join.replaceChildren(el("h2", {}, _("Join this game")),
      el("p", { id: "join-rated" }, _("This is a rated game: its seats are for accounts."), " ",
        el("a", { href: `/login?next=${back}` }, _("Log in")), " · ", el("a", { href: `/register?next=${back}` }, _("Register"))),
      el("p", { class: "muted" }, _("Or just watch: the game starts when every seat is taken.")));
    dom.join.classList.remove("hidden");
    return;
  }
  // Logged in, the seat is the account's, named by its username (the server takes it from the
  // session); a guest types a name.
  const name = app.me
    ? el("span", { id: "join-as" }, _("You sit down as {name}.", { name: app.me.username }))
    : el("input", { id: "join-name", maxlength: 24, placeholder: _("Your name"), value: myName(), "aria-label": _("Your name") });
  const choice = seatChoice(room);
  const picker = choice ? el("select", { id: `join-${choice.field}` }, ...choiceOptions(choice)) : null;
  const buttons = open.map((s) => el("button", {
    class: "primary", "data-join": s.seat,
    onclick: async () => {
      const n = app.me ? app.me.username : name.value.trim();
      if (!n) { toast(_("Type your name first.")); return; }
      try {
        const body = { name: n, seat: s.seat };
        if (picker && picker.value) body[choice.field] = picker.value;
        const joined = await api(`/api/rooms/${app.roomId}/join`, { method: "POST", body });
        if (!app.me) rememberName(n);
        seats.set(app.roomId, { seat: joined.seat, token: joined.token, name: n });
        app.ws.close();
        connect();
      } catch (e) { toast(e.message); }
    },
  }, _("Sit at seat {n}", { n: s.seat + 1 })));
  dom.join.replaceChildren(el("h2", {}, _("Join this game")), el("div", { class: "row join" }, name, picker ? el("label", { for: picker.id }, choice.label) : "", picker || "", ...buttons),
    el("p", { class: "muted" }, _("Or just watch: the game starts when every seat is taken.")));
  dom.join.classList.remove("hidden");
}

// A choice the game asks of a seat on sitting down (the tower game: a tower and its end), with
// the choices other seats made named beside theirs; null when it asks none.
function seatChoice(room) {
  const game = app.meta.games[room.game];
  return app.game && app.game.seatChoice && game ? app.game.seatChoice(game, room) : null;
}

// The rules in force: the preset and every option, with the engine's help text; the options a
// room changed from its preset are listed first and named in the title.
function changedRules(room) {
  const g = app.meta.games[room.game];
  const preset = g.presets[room.preset] || {};
  return Object.entries(room.rules).filter(([k, v]) => k !== "preset" && JSON.stringify(v) !== JSON.stringify(preset[k]));
}

function renderRules(room) {
  if (dom.rules.dataset.for === room.id) return;
  dom.rules.dataset.for = room.id;
  dom.rules.classList.remove("hidden");
  const g = app.meta.games[room.game];
  const preset = g.presets[room.preset] || {};
  const changed = new Map(changedRules(room));
  const value = ruleValue;
  const opts = [...g.options].sort((a, b) => Number(changed.has(b.name)) - Number(changed.has(a.name)));
  dom.rules.replaceChildren(
    el("summary", {}, _("Rules in force: {preset} preset", { preset: valueName(room.preset) }), changed.size ? ngettext(", {n} house rule changed", ", {n} house rules changed", changed.size) : ""),
    el("div", { class: "rules-body" },
      ...markdown(trBlocks(g.summary)),
      el("table", { class: "scores rules-table" },
        el("tr", {}, el("th", {}, _("Option")), el("th", {}, _("In force")), el("th", {}, _("What it does"))),
        ...opts.map((o) => el("tr", { class: changed.has(o.name) ? "changed" : "", "data-rule": o.name },
          el("td", { title: o.name }, tr(o.label || o.name)), el("td", {}, value(changed.has(o.name) ? changed.get(o.name) : preset[o.name]), changed.has(o.name) ? el("b", { class: "house" }, " ", _("house rule")) : ""), el("td", { class: "muted" }, tr(o.help))))),
      el("p", {}, el("a", { href: `/rules#${room.game}` }, app.words.rulesLink))));
}

function render() {
  const s = app.state;
  const room = s.room;
  const changes = changedRules(room).length;
  const house = changes ? ngettext("{n} house rule", "{n} house rules", changes) : "";
  const title = [app.words.title, valueName(room.preset) + (house ? " + " + house : ""), room.id].join(" · ");
  document.querySelector("#title").textContent = title;
  const badge = document.querySelector("#status-badge");
  const watching = room.spectators ? ngettext("{n} watching", "{n} watching", room.spectators) : "";
  badge.textContent = statusName(room.status) + (watching ? " · " + watching : "");
  badge.className = `badge ${room.status}`;
  document.querySelector("#resign").classList.toggle("hidden", !(app.seat !== null && room.status === "playing" && !resigned(room)));
  dom.main.classList.toggle("in-game", Boolean(s.game));
  dom.actions.classList.remove("hidden");  // with the first state, in its place (no layout shift)
  renderRules(room);
  renderJoin(room);
  if (!s.game) { renderWaiting(room); notifyTurn(false, title); return; }
  if (!app.game) { renderNoView(room); notifyTurn(false, title); return; }
  if (app.hotseat && app.hotseat.curtained(dom.table)) { notifyTurn(false, title); return; }
  const View = app.table.View;
  if (!(app.view instanceof View) || app.view.seat !== app.seat) {
    if (app.view) app.view.destroy();
    app.view = new View();
    app.view.seat = app.seat;
    dom.table.replaceChildren(...app.view.nodes(), chatPanel());
    dom.table.className = `table ${room.game}`;
  }
  app.view.update(s);
  notifyTurn(app.view.myTurn(s), title);
  renderEnd(s);
}

// Your turn: the tab's title, an optional sound, a Web Notification when the tab is hidden, and
// the live region for screen readers. Everybody hears whose turn it is.
function notifyTurn(mine, title) {
  document.title = `${mine ? `▶ ${_("Your turn")} · ` : ""}${title} · tabletris`;
  if (mine && !app.wasMyTurn) {
    announce(app.view ? app.view.turnText() : _("Your turn"));
    if (prefs.get("sound")) beep();
    if (prefs.get("notify") && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try { new Notification(_("tabletris: your turn"), { body: title, tag: `tabletris-${app.roomId}` }); } catch { /* not allowed here */ }
    }
  }
  app.wasMyTurn = mine;
}

function beep() {
  try {
    const ctx = new (window.AudioContext || window.webkitAudioContext)();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.3);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.3);
    app.beeps = (app.beeps || 0) + 1;
  } catch { /* no audio */ }
}

// A game the web client has no view of: said plainly where its table would be (the chat and the
// rules in force still work).
function renderNoView(room) {
  if (dom.table.dataset.noView === room.id) return;
  dom.table.dataset.noView = room.id;
  dom.table.className = "table";
  dom.table.replaceChildren(el("div", { class: "panel", id: "no-view", role: "status" },
    el("h2", {}, app.words.title),
    el("p", {}, _("This web client cannot show the {game} game: use the terminal (tabletris play, tabletris replay) or the API.", { game: gameName(room.game) }))), chatPanel());
}

function renderWaiting(room) {
  app.view = null;
  delete dom.table.dataset.noView;
  dom.table.className = "table";
  const list = el("table", { class: "scores" }, el("tr", {}, el("th", {}, _("Seat")), el("th", {}, _("Player"))),
    ...room.seats.map((seat) => el("tr", { class: seat.seat === app.seat ? "me" : "" },
      el("td", {}, seat.seat + 1),
      el("td", {}, seat.open ? el("span", { class: "muted" }, _("open"))
        : [el("span", { class: `dot ${seat.connected ? "on" : ""}` }), playerName(seat.seat), seat.bot ? el("span", { class: "bot" }, _("bot")) : ""]))));
  dom.table.replaceChildren(el("div", { class: "panel", style: "min-width:300px" }, el("h2", {}, _("Waiting for players")), list,
    el("p", { class: "muted" }, _("Send the invite link to the other players."))), chatPanel());
}

// Each player's game clock (real-time rooms with clocks): the one running counts down, a clock
// that ran out says so. The server sent each clock's time left and, while it runs, when it ends.
function renderClocks(room) {
  const box = document.querySelector("#clocks");
  if (!box) return;
  const clocks = room && room.status === "playing" ? room.clocks : null;
  box.classList.toggle("hidden", !clocks);
  if (!clocks) return;
  const now = serverNow();
  const parts = clocks.map((clock, seat) => {
    if (!clock) return null;
    const left = clock.until ? Math.max(0, clock.until - now) : clock.left;
    const name = room.seats[seat].name || _("Seat {n}", { n: seat + 1 });
    const out = left <= 0 && !clock.until;
    const text = out ? _("{name}: out of time", { name }) : `${name} ${duration(left)}`;
    return el("span", { class: `seat-clock${clock.until ? " running" : ""}${out ? " out" : ""}${seat === app.seat ? " me" : ""}`, "data-seat": seat }, clock.until ? "▶ " : "", text);
  }).filter(Boolean);
  box.replaceChildren(...parts);
}

// Untimed rooms: once a person to act has held the game up for the room's stated wait, the
// others see a button to expel them (the server checks the wait again).
function expelTarget(room) {
  const speed = room && room.speed;
  if (!speed || speed.mode !== "untimed" || room.status !== "playing" || app.seat === null || !room.turn_started) return null;
  if (room.seats[app.seat].kind !== "human") return null;
  if (serverNow() < room.turn_started + (speed.expel_after || 0)) return null;
  const seat = (room.to_act || []).find((s) => s !== app.seat && room.seats[s].kind === "human");
  return seat === undefined ? null : seat;
}

function renderExpel(room) {
  const button = document.querySelector("#expel");
  if (!button) return;
  const seat = expelTarget(room);
  button.classList.toggle("hidden", seat === null);
  if (seat === null) return;
  button.dataset.seat = String(seat);
  button.textContent = _("Expel {name}", { name: room.seats[seat].name });
}

function expel() {
  const room = app.state && app.state.room;
  const seat = Number(document.querySelector("#expel").dataset.seat);
  if (!room || !Number.isInteger(seat)) return;
  const name = room.seats[seat].name;
  confirmThen(_("Expel {name}?", { name }), _("{name} has not moved for {time}: a bot plays their seat to the end of the game.", { name, time: duration(serverNow() - room.turn_started) }),
    _("Expel"), async () => {
      try { await request({ type: "expel", seat }); } catch (e) { toast(e.message); }
    });
}

// The turn clock: the time left for the players who must act, then the timer's bot plays; the
// speed in words beside it.
setInterval(() => {
  const clock = document.querySelector("#clock");
  const room = app.state && app.state.room;
  if (!clock) return;
  const badge = document.querySelector("#speed-badge");
  if (badge && room && room.speed) badge.textContent = speedText(room.speed);
  renderClocks(room);
  renderExpel(room);
  // The deadline is the room's; a server may also send it beside it (issue 12).
  const deadline = room && (app.state.deadline ?? room.deadline);
  if (!room || !deadline || room.status !== "playing") { clock.classList.add("hidden"); return; }
  const left = Math.max(0, Math.ceil(deadline - serverNow()));
  clock.classList.remove("hidden");
  clock.classList.toggle("low", left <= 10);
  const g = app.state.game;
  const time = duration(left);
  const text = g && app.view ? app.view.clockText(time) : _("{time} left", { time });
  clock.textContent = `⏱ ${text}`;
  clock.title = room.clocks ? _("When a player's clock runs out, a bot plays their seat to the end of the game")
    : _("When the time is up, a bot plays the turn");
  if (left === 10 && app.view && app.view.myTurn(app.state) && clock.dataset.warned !== String(deadline)) {
    clock.dataset.warned = String(deadline);
    announce(_("10 seconds left"));
  }
}, 250);

// The room chat: text only (never markup), limited in length and rate by the server.
function chatPanel() {
  if (!dom.chat) {
    dom.chatLog = el("ol", { class: "chat", id: "chat-log", "aria-label": _("chat messages"), "aria-live": "polite", tabindex: 0 });
    const input = el("input", { id: "chat-input", maxlength: 300, placeholder: _("Say something to the table"), "aria-label": _("Chat message"), autocomplete: "off" });
    // The server answers a chat line with the line itself (to everyone), and an error only when
    // it refuses it: the box is cleared at once, and a refused line comes back into it.
    const form = el("form", { class: "row chat-form", onsubmit: (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      const id = send({ type: "chat", text });
      if (id === null) return;
      chatSent.set(id, text);
      if (chatSent.size > 20) chatSent.delete(chatSent.keys().next().value);
      input.value = "";
    } }, input, el("button", { type: "submit", id: "chat-send" }, _("Send")));
    dom.chat = el("div", { class: "panel chat-panel", id: "chat" }, el("h2", {}, _("Chat")), dom.chatLog, form);
    for (const m of app.chat || []) addChat(m);
  }
  return dom.chat;
}

const chatSent = new Map();

// A chat line the server refused (too long, too fast): back in the box unless something new is there.
function chatRefused(id) {
  const text = chatSent.get(id);
  if (text === undefined) return;
  chatSent.delete(id);
  const input = document.querySelector("#chat-input");
  if (input && !input.value) input.value = text;
}

function addChat(m) {
  app.chat = app.chat || [];
  if (!dom.chatLog) { app.chat.push(m); return; }
  const at = new Date(m.at * 1000);
  const li = el("li", {}, el("span", { class: "muted" }, `${String(at.getHours()).padStart(2, "0")}:${String(at.getMinutes()).padStart(2, "0")} `),
    m.seat !== null && m.seat !== undefined ? legend(m.seat) : "", el("b", {}, m.seat === null && m.name === "Spectator" ? _("Spectator") : m.name), ": ", el("span", { class: "chat-text" }, m.text));
  dom.chatLog.append(li);
  while (dom.chatLog.children.length > 100) dom.chatLog.firstChild.remove();
  scrollToEnd(dom.chatLog);
}

// A rated game's end: the engine names the winners by the score, and the ratings count a seat
// that resigned (or timed out) as last whatever its bot scored; said here so both read the same.
function ratedNote(room) {
  if (!room.rated) return "";
  const gaveUp = room.seats.filter((seat) => seat.kind === "resigned").map((seat) => seat.name);
  return el("p", { id: "end-rated", class: "muted" }, gaveUp.length
    ? _("A rated game: {names} resigned, which counts as the last place for the ratings.", { names: gaveUp.join(_(", ")) })
    : _("A rated game: the result changes the players' ratings."));
}

function renderEnd(s) {
  let overlay = document.querySelector("#end");
  if (!s.game.over) { if (overlay) overlay.remove(); return; }
  if (overlay && overlay.dataset.seq === String(s.seq) && overlay.dataset.rematch === String(s.room.rematch)) return;
  if (app.endClosed) return;
  if (overlay) overlay.remove();
  const title = winnersText(s.game.winners) || _("Game over");
  const buttons = [];
  if (app.seat !== null) buttons.push(el("button", { class: "primary", id: "rematch", onclick: askRematch, disabled: app.rematchAsked != null }, s.room.rematch ? _("Join the rematch") : _("Rematch")));
  else if (s.room.rematch) buttons.push(el("a", { class: "button", href: `/room/${s.room.rematch}` }, _("Watch the rematch")));
  buttons.push(el("a", { class: "button", href: `/replay/${app.roomId}` }, _("Replay")));
  buttons.push(el("a", { class: "button", href: `/api/rooms/${app.roomId}/record?download=1` }, _("Download record")));
  buttons.push(el("a", { class: "button", href: "/" }, _("Lobby")));
  buttons.push(el("button", { id: "end-close", onclick: () => { app.endClosed = true; overlay.close(); } }, _("Close")));
  const reason = app.view.endReason(s);
  overlay = dialog("end", title, [el("p", { id: "end-reason" }, reason), ratedNote(s.room), app.view.breakdown(s)], buttons);
  overlay.cancel = () => { app.endClosed = true; overlay.close(); };
  overlay.dataset.seq = String(s.seq);
  overlay.dataset.rematch = String(s.room.rematch);
  announce(_("Game over. {reason} {title}.", { reason, title }));
}

async function main() {
  layout();
  syncClock();
  [app.meta, app.me] = await Promise.all([meta(), me()]);
  const local = hotseats.get(app.roomId);
  if (local && local.length > 1) startHotseat(local);
  else connect();
}

main();
