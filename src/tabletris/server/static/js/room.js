// A room: join a seat (or watch), then play the dice or tower game live over the websocket.
// The server sends the whole state after every change, with this seat's legal placements;
// the page only draws it and sends the player's choice. Errors come back as the engine words them.
import { BoardView, _, announce, api, applyPrefs, el, errorText, gameName, header, key, markdown, meta, mini, myName, ngettext, num, prefs, rememberName, ruleValue, seats, statusName, toast, tr, trBlocks, where } from "./common.js";
import { Placer } from "./placer.js";

const roomId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const app = { ws: null, state: null, seat: null, token: null, nextId: 1, view: null, retry: 0, closed: false, meta: null, hello: null, wasMyTurn: false, mine: new Set(), timerPlayed: new Set() };

// ------------------------------------------------------------------ connection

function connect() {
  const mine = seats.get(roomId);
  app.token = mine ? mine.token : null;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  // The seat token goes in the first message (hello), never in the URL: logs would keep it.
  const url = `${proto}://${location.host}/ws/${encodeURIComponent(roomId)}`;
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
    setConn(false);
    if (e.code === 4403 && app.token) { seats.drop(roomId); toast(_("This browser's seat token is not valid here any more: watching instead.")); }
    if (e.code === 4404) { app.closed = true; return; }
    app.retry = Math.min(app.retry + 1, 6);
    setTimeout(connect, 300 * 2 ** app.retry);
  };
}

export function send(message) {
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) { toast(_("Not connected: reconnecting…")); return null; }
  const id = app.nextId++;
  app.ws.send(JSON.stringify({ ...message, id }));
  return id;
}

const waiters = new Map();
function request(message) {
  return new Promise((resolve, reject) => {
    const id = send(message);
    if (id === null) { reject(new Error("not connected")); return; }
    waiters.set(id, { resolve, reject });
  });
}

function onMessage(msg) {
  if (msg.type === "state") {
    const before = app.state;
    app.state = msg;
    app.seat = msg.you;
    noticeTimer(before, msg);
    render();
    return;
  }
  if (msg.type === "chat") { addChat(msg); return; }
  if (msg.type === "presence") {  // someone connected or left: only the dots and the watcher count change
    if (app.state && app.state.room) {
      app.state.room.seats.forEach((seat, i) => { seat.connected = msg.connected[i] ? 1 : 0; });
      app.state.room.spectators = msg.spectators;
      render();
    }
    return;
  }
  const w = msg.id !== undefined && msg.id !== null ? waiters.get(msg.id) : null;
  if (w) waiters.delete(msg.id);
  if (msg.type === "error") {
    const text = errorText(msg);
    if (w) w.reject(Object.assign(new Error(text), { code: msg.error, english: msg.message }));
    else toast(text);
    if (msg.error === "unknown_room") showMissing();
  } else if (msg.type === "rematch") {
    seats.set(msg.room, { seat: msg.seat, token: msg.token, name: seats.get(roomId)?.name });
    location.href = `/room/${msg.room}`;
  } else if (w) {
    w.resolve(msg);
  }
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

// A move of this seat that the player did not send was played by the turn timer's bot (the
// server also marks it "by": "timer" in the log once it knows to).
function noticeTimer(before, now) {
  if (!before || !before.game || !now.game || app.seat === null || !(now.timer ?? now.room.timer)) return;
  const g = now.game;
  const entries = g.log || [];
  entries.forEach((m, i) => {
    const n = g.log_start + i;
    const seat = g.game === "dice" ? m.player : null;
    if (g.game === "dice" && seat === app.seat && m.place && !app.mine.has(`dice:${n}`) && n >= before.game.log_start + before.game.log.length) {
      app.timerPlayed.add(`dice:${n}`);
      toast(_("Time ran out: the timer's bot played your turn."));
    }
    const chose = before.private && !before.private.forced && !before.private.pending && before.game.round === m.round;
    if (g.game === "tower" && chose && m.actions[app.seat] && !app.mine.has(`tower:${m.round}`)) {
      app.timerPlayed.add(`tower:${m.round}`);
      toast(_("Time ran out: the timer's bot played your round."));
    }
  });
}

function byTimer(m, id) { return m.by === "timer" || app.timerPlayed.has(id); }

// ------------------------------------------------------------------ page

const dom = {};

function layout() {
  document.body.append(header());
  applyPrefs();
  dom.main = el("main", {});
  dom.offline = el("div", { id: "offline", class: "offline hidden", role: "status" });
  dom.top = el("div", { class: "row", style: "margin-bottom:10px" },
    el("span", { id: "conn", class: "dot", role: "img", "aria-label": _("connecting") }),
    el("h2", { id: "title", class: "room-title" }, _("Room")),
    el("span", { id: "status-badge", class: "badge" }, "…"),
    el("span", { class: "grow", style: "flex:1" }),
    el("span", { id: "clock", class: "clock hidden", role: "timer", "aria-live": "off" }),
    el("button", { class: "small", id: "invite", onclick: copyInvite }, _("Copy invite link")),
    el("button", { class: "small hidden", id: "resign", onclick: () => confirmThen(_("Resign this game?"), _("Your pieces stay on the board and the game goes on without you."), _("Resign"), () => sendAction("resign")) }, _("Resign")),
    el("button", { class: "small", id: "leave", onclick: leave }, _("Leave")));
  dom.rules = el("details", { class: "panel rules-in-force", id: "rules-in-force" }, el("summary", {}, _("Rules")));
  dom.join = el("div", { class: "panel hidden", id: "join" });
  dom.table = el("div", { class: "table" });
  dom.main.append(dom.offline, dom.top, dom.rules, dom.join, dom.table);
  document.body.append(dom.main);
}

async function sendAction(type) {
  try {
    await request({ type });
    if (type === "leave") { seats.drop(roomId); location.href = "/"; }
  } catch (e) { toast(e.message); }
}

function leave() {
  const s = app.state;
  const seated = app.seat !== null && s && s.room.status !== "over";
  if (!seated) { location.href = "/"; return; }
  const text = s.room.status === "waiting" ? _("Your seat opens again for someone else.") : _("The game goes on without you: a bot plays your seat.");
  confirmThen(_("Leave this table?"), text, _("Leave"), () => sendAction("leave"));
}

// A small modal dialog: focus on its first button, Escape or "Cancel" closes it.
function dialog(id, title, body, buttons, { peek = false } = {}) {
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

function confirmThen(title, text, yes, action) {
  const d = dialog("confirm", title, [el("p", {}, text)], [
    el("button", { class: "primary", id: "confirm-yes", onclick: () => { d.close(); action(); } }, yes),
    el("button", { id: "confirm-no", onclick: () => d.close() }, _("Cancel"))]);
}

async function copyInvite() {
  const link = `${location.origin}/room/${roomId}`;
  try { await navigator.clipboard.writeText(link); toast(_("Invite link copied"), "info"); } catch { prompt(_("Invite link"), link); }
}

function showMissing() {
  dom.table.replaceChildren(el("div", { class: "panel" }, el("h2", {}, _("No such room")), el("p", {}, el("a", { href: "/" }, _("Back to the lobby")))));
}

function renderJoin(room) {
  const open = room.seats.filter((s) => s.open);
  if (app.seat !== null || room.status !== "waiting" || !open.length) { dom.join.classList.add("hidden"); return; }
  if (dom.join.dataset.for === JSON.stringify(open.map((s) => s.seat))) { dom.join.classList.remove("hidden"); return; }
  dom.join.dataset.for = JSON.stringify(open.map((s) => s.seat));
  const name = el("input", { id: "join-name", maxlength: 24, placeholder: _("Your name"), value: myName(), "aria-label": _("Your name") });
  const tower = towerPicker(room);
  const buttons = open.map((s) => el("button", {
    class: "primary", "data-join": s.seat,
    onclick: async () => {
      const n = name.value.trim();
      if (!n) { toast(_("Type your name first.")); return; }
      try {
        const body = { name: n, seat: s.seat };
        if (tower && tower.value) body.tower = tower.value;
        const joined = await api(`/api/rooms/${roomId}/join`, { method: "POST", body });
        rememberName(n);
        seats.set(roomId, { seat: joined.seat, token: joined.token, name: n });
        app.ws.close();
        connect();
      } catch (e) { toast(e.message); }
    },
  }, _("Sit at seat {n}", { n: s.seat + 1 })));
  dom.join.replaceChildren(el("h2", {}, _("Join this game")), el("div", { class: "row join" }, name, tower ? el("label", { for: "join-tower" }, _("Tower and bottom end")) : "", tower || "", ...buttons),
    el("p", { class: "muted" }, _("Or just watch: the game starts when every seat is taken.")));
  dom.join.classList.remove("hidden");
}

// The tower game: the seat's tower and bottom end (the engine checks the choice; "b" is "a"
// turned 180°). The choices other seats made are named beside their towers.
function towerPicker(room) {
  const names = (app.meta.games[room.game] || {}).towers || [];
  if (!names.length) return null;
  const taken = new Map(room.seats.filter((s) => s.tower).map((s) => [s.tower, s.name]));
  return el("select", { id: "join-tower" }, el("option", { value: "" }, _("Any free tower (drawn)")),
    ...names.map((n) => el("option", { value: n }, _("Tower {tower}, end {end}", { tower: n[0], end: n.slice(1) }) + (taken.has(n) ? ` (${taken.get(n)})` : ""))));
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
  const g = app.meta.games[room.game];
  const preset = g.presets[room.preset] || {};
  const changed = new Map(changedRules(room));
  const value = ruleValue;
  const opts = [...g.options].sort((a, b) => Number(changed.has(b.name)) - Number(changed.has(a.name)));
  dom.rules.replaceChildren(
    el("summary", {}, _("Rules in force: {preset} preset", { preset: tr(room.preset) }), changed.size ? ngettext(", {n} house rule changed", ", {n} house rules changed", changed.size) : ""),
    el("div", { class: "rules-body" },
      ...markdown(trBlocks(g.summary)),
      el("table", { class: "scores rules-table" },
        el("tr", {}, el("th", {}, _("Option")), el("th", {}, _("In force")), el("th", {}, _("What it does"))),
        ...opts.map((o) => el("tr", { class: changed.has(o.name) ? "changed" : "", "data-rule": o.name },
          el("td", { title: o.name }, tr(o.label || o.name)), el("td", {}, value(changed.has(o.name) ? changed.get(o.name) : preset[o.name]), changed.has(o.name) ? el("b", { class: "house" }, " ", _("house rule")) : ""), el("td", { class: "muted" }, tr(o.help))))),
      el("p", {}, el("a", { href: `/rules#${room.game}` }, room.game === "dice" ? _("The dice game's rules page") : _("The tower game's rules page")))));
}

function render() {
  const s = app.state;
  const room = s.room;
  const changes = changedRules(room).length;
  const gameTitle = room.game === "dice" ? _("Dice") : _("Tower");
  const house = changes ? ngettext("{n} house rule", "{n} house rules", changes) : "";
  const title = [gameTitle, tr(room.preset) + (house ? " + " + house : ""), room.id].join(" · ");
  document.querySelector("#title").textContent = title;
  const badge = document.querySelector("#status-badge");
  const watching = room.spectators ? ngettext("{n} watching", "{n} watching", room.spectators) : "";
  badge.textContent = statusName(room.status) + (watching ? " · " + watching : "");
  badge.className = `badge ${room.status}`;
  document.querySelector("#resign").classList.toggle("hidden", !(app.seat !== null && room.status === "playing"));
  renderRules(room);
  renderJoin(room);
  if (!s.game) { renderWaiting(room); notifyTurn(false, title); return; }
  const View = s.game.game === "dice" ? DiceView : TowerView;
  if (!(app.view instanceof View) || app.view.seat !== app.seat) {
    if (app.view) app.view.destroy();
    app.view = new View();
    app.view.seat = app.seat;
    dom.table.replaceChildren(...app.view.nodes(), chatPanel());
    dom.table.className = `table ${s.game.game}`;
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
      try { new Notification(_("tabletris: your turn"), { body: title, tag: `tabletris-${roomId}` }); } catch { /* not allowed here */ }
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

function renderWaiting(room) {
  app.view = null;
  dom.table.className = "table";
  const list = el("table", { class: "scores" }, el("tr", {}, el("th", {}, _("Seat")), el("th", {}, _("Player"))),
    ...room.seats.map((seat) => el("tr", { class: seat.seat === app.seat ? "me" : "" },
      el("td", {}, seat.seat + 1),
      el("td", {}, seat.open ? el("span", { class: "muted" }, _("open"))
        : [el("span", { class: `dot ${seat.connected ? "on" : ""}` }), seat.name, seat.bot ? el("span", { class: "bot" }, _("bot")) : ""]))));
  dom.table.replaceChildren(el("div", { class: "panel", style: "min-width:300px" }, el("h2", {}, _("Waiting for players")), list,
    el("p", { class: "muted" }, _("Send the invite link to the other players."))), chatPanel());
}

// The turn clock: seconds left for the players who must act, then the timer's bot plays.
setInterval(() => {
  const clock = document.querySelector("#clock");
  const room = app.state && app.state.room;
  if (!clock) return;
  // The deadline and the timer are the room's; a server may also send them beside it (issue 12).
  const deadline = room && (app.state.deadline ?? room.deadline);
  const timer = room && (app.state.timer ?? room.timer);
  if (!room || !deadline || !timer || room.status !== "playing") { clock.classList.add("hidden"); return; }
  const left = Math.max(0, Math.ceil(deadline - Date.now() / 1000));
  clock.classList.remove("hidden");
  clock.classList.toggle("low", left <= 10);
  const g = app.state.game;
  const time = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  const text = !g ? _("{time} left", { time }) : g.game === "dice" ? (g.to_move === app.seat ? _("{time} left for you", { time }) : _("{time} left for {name}", { time, name: nameOf(g.to_move) })) : _("{time} left for this round", { time });
  clock.textContent = `⏱ ${text}`;
  clock.title = _("When the time is up, a bot plays the turn");
  if (left === 10 && app.view && app.view.myTurn(app.state) && clock.dataset.warned !== String(deadline)) {
    clock.dataset.warned = String(deadline);
    announce(_("10 seconds left"));
  }
}, 250);

function nameOf(seat) {
  const s = app.state.room.seats[seat];
  return s && s.name ? s.name : _("Seat {n}", { n: seat + 1 });
}

// An achievement card's title in the page's language (the engine's name for it, translated);
// where the catalog has no translation (English), its id, as records and the API name it.
function cardName(c) {
  const name = c && c.name ? tr(c.name) : "";
  return name && name !== c.name ? name : c ? c.id : "";
}

function cardById(id) { return (app.state.game.achievements || []).find((c) => c.id === id) || { id }; }

// A tower's hold: the card held, or used, or free.
function holdWord(t) {
  if (!t.hold_used) return _("free");
  return t.held || _("used");
}

// "Ann wins", "Ann and Bob share the win" (empty when nobody won).
function winnersText(winners) {
  const names = winners.map(nameOf);
  if (!names.length) return "";
  if (names.length === 1) return _("{name} wins", { name: names[0] });
  return _("{names} share the win", { names: names.reduce((a, b) => _("{a} and {b}", { a, b })) });
}

function legend(i) { return el("span", { class: `swatch o-${i % 8}`, role: "img", "aria-label": _("colour of {name}", { name: nameOf(i) }) }); }

// Display settings: colour by shape or by player, letters on stones, sound and notifications.
function viewPanel() {
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

// The room chat: text only (never markup), limited in length and rate by the server.
function chatPanel() {
  if (!dom.chat) {
    dom.chatLog = el("ol", { class: "chat", id: "chat-log", "aria-label": _("chat messages"), "aria-live": "polite", tabindex: 0 });
    const input = el("input", { id: "chat-input", maxlength: 300, placeholder: _("Say something to the table"), "aria-label": _("Chat message"), autocomplete: "off" });
    const form = el("form", { class: "row chat-form", onsubmit: async (e) => {
      e.preventDefault();
      const text = input.value.trim();
      if (!text) return;
      try { await request({ type: "chat", text }); input.value = ""; } catch (err) { toast(err.message); }
    } }, input, el("button", { type: "submit", id: "chat-send" }, _("Send")));
    dom.chat = el("div", { class: "panel chat-panel", id: "chat" }, el("h2", {}, _("Chat")), dom.chatLog, form);
    for (const m of app.chat || []) addChat(m);
  }
  return dom.chat;
}

function addChat(m) {
  app.chat = app.chat || [];
  if (!dom.chatLog) { app.chat.push(m); return; }
  const at = new Date(m.at * 1000);
  const li = el("li", {}, el("span", { class: "muted" }, `${String(at.getHours()).padStart(2, "0")}:${String(at.getMinutes()).padStart(2, "0")} `),
    m.seat !== null && m.seat !== undefined ? legend(m.seat) : "", el("b", {}, m.seat === null && m.name === "Spectator" ? _("Spectator") : m.name), ": ", el("span", { class: "chat-text" }, m.text));
  dom.chatLog.append(li);
  while (dom.chatLog.children.length > 100) dom.chatLog.firstChild.remove();
  dom.chatLog.scrollTop = dom.chatLog.scrollHeight;
}

function renderEnd(s) {
  let overlay = document.querySelector("#end");
  if (!s.game.over) { if (overlay) overlay.remove(); return; }
  if (overlay && overlay.dataset.seq === String(s.seq) && overlay.dataset.rematch === String(s.room.rematch)) return;
  if (app.endClosed) return;
  if (overlay) overlay.remove();
  const title = winnersText(s.game.winners) || _("Game over");
  const buttons = [];
  if (app.seat !== null) buttons.push(el("button", { class: "primary", id: "rematch", onclick: () => send({ type: "rematch" }) }, s.room.rematch ? _("Join the rematch") : _("Rematch")));
  else if (s.room.rematch) buttons.push(el("a", { class: "button", href: `/room/${s.room.rematch}` }, _("Watch the rematch")));
  buttons.push(el("a", { class: "button", href: `/replay/${roomId}` }, _("Replay")));
  buttons.push(el("a", { class: "button", href: `/api/rooms/${roomId}/record?download=1` }, _("Download record")));
  buttons.push(el("a", { class: "button", href: "/" }, _("Lobby")));
  buttons.push(el("button", { id: "end-close", onclick: () => { app.endClosed = true; overlay.close(); } }, _("Close")));
  const reason = app.view.endReason(s);
  overlay = dialog("end", title, [el("p", { id: "end-reason" }, reason), app.view.breakdown(s)], buttons);
  overlay.cancel = () => { app.endClosed = true; overlay.close(); };
  overlay.dataset.seq = String(s.seq);
  overlay.dataset.rematch = String(s.room.rematch);
  announce(_("Game over. {reason} {title}.", { reason, title }));
}

// A board key (arrows, Enter, R ...) is for the board unless a control, a dialog or the chat has it.
function boardKey(e) {
  if (document.querySelector(".overlay:not(.peek)")) return false;
  const t = e.target;
  return !(t && t.closest && t.closest("input, select, textarea, button, a, summary, [role=dialog], .chat"));
}

function logItem(n, children, id, m) {
  const item = el("li", { value: n + 1 }, ...children, byTimer(m, id) ? el("span", { class: "tag timer-tag" }, _("timer")) : "");
  if (app.state.game.over) item.append(" ", el("a", { href: `/replay/${roomId}?step=${n + 1}`, "aria-label": _("replay from move {n}", { n: n + 1 }) }, "▶"));
  return item;
}

// ------------------------------------------------------------------ dice

class DiceView {
  constructor() {
    this.sel = { shape: null, take: null };
    this.board = null;
    this.placer = null;
    this.staged = null;
    this.lastTurn = -1;
    this.status = el("div", { class: "status", id: "status", "aria-live": "off" });
    this.die = el("div", { class: "die", id: "die", role: "img", "aria-label": _("the die") });
    this.tray = el("div", { class: "tray", id: "tray", role: "group", "aria-label": _("pieces you may place") });
    this.stageBoard = el("div", {});
    this.controls = el("div", { class: "bar" },
      el("button", { id: "rotate", onclick: () => this.placer && !this.staged && this.placer.rotate(1) }, _("⟳ Turn")),
      el("button", { class: "primary", id: "place", onclick: () => this.placer && this.placer.commit() }, _("Place…")),
      el("button", { class: "primary hidden", id: "confirm", onclick: () => this.confirm() }, _("✓ Confirm")),
      el("button", { class: "hidden", id: "undo", onclick: () => this.unstage() }, _("↶ Undo")));
    this.keys = el("div", { class: "keys" }, _("Click or tap a place, then confirm · drag the piece · wheel or right-click turns · Keys:"), " ",
      el("kbd", {}, "← → ↑ ↓"), " ", _("move"), " ", el("kbd", {}, "R"), " ", _("turn"), " ", el("kbd", {}, "Enter"), " ", _("place, then confirm"), " ", el("kbd", {}, "Esc"), " ", _("undo"), " ", el("kbd", {}, "S"), " ", _("shape"), " ", el("kbd", {}, "T"), " ", _("stone to take"));
    this.scores = el("table", { class: "scores", id: "scores" });
    this.supply = el("div", { class: "supply", id: "supply" });
    this.log = el("ol", { class: "log", id: "log", "aria-label": _("game log") });
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
  }

  destroy() { document.removeEventListener("keydown", this.keyHandler); }

  nodes() {
    return [
      el("section", { class: "stage", "aria-label": _("the table") }, this.status, el("div", { class: "bar" }, this.die, this.tray), this.stageBoard, this.controls, this.keys),
      el("aside", {},
        el("div", { class: "panel" }, el("h2", {}, _("Scores")), this.scores),
        el("div", { class: "panel" }, el("h2", {}, _("Supply")), this.supply),
        el("div", { class: "panel" }, el("h2", {}, _("Game log")), this.log),
        viewPanel()),
    ];
  }

  myTurn(s) { const g = s.game; return Boolean(!g.over && app.seat !== null && g.to_move === app.seat && s.private); }

  turnText() { const g = app.state.game; return g.roll === "*" ? _("Your turn: place the piece of your choice") : _("Your turn: place the {shape}", { shape: g.roll }); }

  options() { return (app.state.private && app.state.private.options) || []; }

  static placeable(o) { return o.orientations.some((f) => f.places.length); }

  currentOption() {
    const opts = this.options();
    return opts.find((o) => o.shape === this.sel.shape && (o.take ? o.take.number : null) === this.sel.take) || opts.find(DiceView.placeable) || opts[0] || null;
  }

  pick(shape, take) {
    const opts = this.options();
    if (take === undefined) {
      const o = opts.find((x) => x.shape === shape && DiceView.placeable(x)) || opts.find((x) => x.shape === shape);
      take = o && o.take ? o.take.number : null;
    }
    this.unstage(false);
    this.sel = { shape, take };
    const o = this.currentOption();
    this.placer.setForms(o ? o.orientations : []);
    if (!this.placer.current()) this.placer.hover(this.board.width / 2, this.board.height);
    this.renderTray(this.myTurn(app.state));
    this.renderStatus();
    this.draw();
  }

  update(s) {
    const g = s.game;
    if (!this.board || this.board.width !== g.width || this.board.height !== g.height) {
      this.board = new BoardView(g.width, g.height, { label: _("dice board") });
      this.placer = new Placer(this.board, { onCommit: (c) => this.stage(c), onChange: () => this.draw(), isStaged: (cx, cy) => this.onStaged(cx, cy) });
      this.stageBoard.replaceChildren(this.board.node);
    }
    const myTurn = this.myTurn(s);
    this.placer.enabled = Boolean(myTurn) && !this.staged;
    if (g.turn !== this.lastTurn) {
      this.lastTurn = g.turn;
      this.staged = null;
      this.placer.enabled = Boolean(myTurn);
      this.die.classList.remove("rolling");
      void this.die.offsetWidth;
      this.die.classList.add("rolling");
      const opts = this.options();
      // Pre-select a shape that fits somewhere (on a ★ roll the first shape may fit nowhere).
      const first = opts.find(DiceView.placeable) || opts[0];
      this.sel = first ? { shape: first.shape, take: first.take ? first.take.number : null } : { shape: null, take: null };
      this.placer.place = -1;
      const o = this.currentOption();
      this.placer.setForms(o ? o.orientations : []);
      if (myTurn) this.placer.hover(g.width / 2, g.height);
      this.prevStones = this.stones || new Set();
      this.stones = new Set(g.stones.map((st) => st.number));
      const last = g.log[g.log.length - 1];
      if (last && last.player !== app.seat && last.place) announce(_("{name} placed {shape} at {where}.", { name: nameOf(last.player), shape: last.shape || last.roll, where: where(last.place) }));
    }
    this.die.replaceChildren(g.roll ? (g.roll === "*" ? "★" : mini(g.roll)) : "–");
    this.die.setAttribute("aria-label", g.roll ? (g.roll === "*" ? _("the die shows a star: any shape") : _("the die shows {shape}", { shape: g.roll })) : _("the die"));
    this.renderTray(myTurn);
    this.renderSide(s);
    this.renderStatus();
    this.draw();
  }

  endReason(s) {
    const g = s.game;
    const last = g.log[g.log.length - 1];
    if (g.stuck !== null) return last ? _("{name} rolled {roll}, which fits nowhere: the game ends.", { name: nameOf(g.stuck), roll: last.roll }) : _("{name} rolled a piece, which fits nowhere: the game ends.", { name: nameOf(g.stuck) });
    if (g.clear_rows) return ngettext("A player reached the target of {n} point.", "A player reached the target of {n} points.", g.target);
    return _("The game is over.");
  }

  renderStatus() {
    const g = app.state.game;
    const myTurn = this.myTurn(app.state);
    if (g.over) this.status.replaceChildren(el("b", {}, _("Game over:")), " ", this.endReason(app.state));
    else if (myTurn && this.staged) this.status.replaceChildren(el("b", {}, _("Confirm?")), " ", _("{shape} at {where} — ✓ Confirm (Enter, or tap it again) or ↶ Undo (Esc)", { shape: this.staged.shape, where: where(this.staged.cells) }));
    else if (myTurn && !this.placer.current()) {
      const o = this.currentOption();
      const tray = this.options().some(DiceView.placeable);
      const text = o && o.take
        ? (tray ? _("no place fits stone #{number}: choose another piece in the tray.", { number: o.take.number }) : _("no place fits stone #{number}: choose another option.", { number: o.take.number }))
        : this.sel.shape
          ? (tray ? _("no place fits the {shape}: choose another piece in the tray.", { shape: this.sel.shape }) : _("no place fits the {shape}: choose another option.", { shape: this.sel.shape }))
          : (tray ? _("no place fits the piece: choose another piece in the tray.") : _("no place fits the piece: choose another option."));
      this.status.replaceChildren(el("b", {}, _("Your turn")), ` — ${text}`);
    } else if (myTurn) this.status.replaceChildren(el("b", {}, _("Your turn")), " — ", g.roll === "*" ? _("place the piece of your choice") : _("place the {shape}", { shape: g.roll }));
    else this.status.replaceChildren(_("{name} is playing…", { name: nameOf(g.to_move) }));
    this.controls.classList.toggle("hidden", !myTurn);
    this.keys.classList.toggle("hidden", !myTurn);
    this.controls.querySelector("#place").classList.toggle("hidden", Boolean(this.staged));
    this.controls.querySelector("#rotate").classList.toggle("hidden", Boolean(this.staged));
    this.controls.querySelector("#confirm").classList.toggle("hidden", !this.staged);
    this.controls.querySelector("#undo").classList.toggle("hidden", !this.staged);
  }

  renderTray(myTurn) {
    const opts = this.options();
    const shapes = [...new Set(opts.map((o) => o.shape))];
    const items = [];
    if (myTurn) {
      for (const shape of shapes) {
        const fits = opts.some((o) => o.shape === shape && DiceView.placeable(o));
        const p = el("button", {
          class: `piece${shape === this.sel.shape ? " sel" : ""}${fits ? "" : " nofit"}`, "data-shape": shape, "aria-pressed": String(shape === this.sel.shape),
          "aria-label": fits ? shape : _("{shape}: fits nowhere", { shape }), title: fits ? _("place a {shape}", { shape }) : _("no place fits a {shape}", { shape }), onclick: () => this.pick(shape),
        }, mini(shape));
        this.placer.draggable(p);
        items.push(p);
      }
      const takes = opts.filter((o) => o.shape === this.sel.shape && o.take);
      if (takes.length) {
        items.push(el("span", { class: "muted" }, _("supply empty: take")));
        for (const o of takes) items.push(el("button", { class: `small${o.take.number === this.sel.take ? " primary" : ""}`, "data-take": o.take.number, "aria-pressed": String(o.take.number === this.sel.take), onclick: () => this.pick(o.shape, o.take.number) }, _("stone #{number} ({where})", { number: o.take.number, where: where(o.take.cells) })));
      }
    }
    this.tray.replaceChildren(...items);
  }

  renderSide(s) {
    const g = s.game;
    const rows = [el("tr", {}, el("th", {}, _("Player")), el("th", {}, _("Points")), el("th", {}, _("Rows")))];
    s.room.seats.forEach((seat, i) => {
      rows.push(el("tr", { class: `${i === g.to_move && !g.over ? "turn" : ""} ${i === app.seat ? "me" : ""}`, "data-seat": i },
        el("td", {}, legend(i), el("span", { class: `dot ${seat.connected ? "on" : ""}`, role: "img", "aria-label": seat.connected ? _("online") : _("offline") }), nameOf(i), seat.bot ? el("span", { class: "bot" }, _("bot")) : "", i === app.seat ? _(" (you)") : "", i === g.to_move && !g.over ? el("span", { class: "sr-only" }, _(" (to move)")) : "",
        g.tokens && g.tokens[i] && g.tokens[i].length ? el("div", { class: "muted tokens", style: "font-size:12px" }, _("point tokens: {shapes}", { shapes: g.tokens[i].join(" ") })) : ""),
        el("td", { class: "score" }, num(g.scores[i])), el("td", {}, num(g.rows_completed[i]))));
    });
    if (g.clear_rows) rows.push(el("tr", {}, el("td", { colspan: 3, class: "muted" }, ngettext("First to {n} point wins; completed rows are cleared.", "First to {n} points wins; completed rows are cleared.", g.target))));
    this.scores.replaceChildren(...rows);
    this.supply.replaceChildren(...(g.supply ? Object.entries(g.supply).map(([shape, n]) => el("span", { "data-supply": shape }, mini(shape), ` ${num(n)}`)) : [el("span", { class: "muted" }, _("unlimited"))]));
    const items = g.log.map((m, i) => {
      const n = g.log_start + i;
      const what = [el("b", {}, nameOf(m.player))];
      if (!m.place) what.push(" ", _("rolled {roll}, which fits nowhere: game over", { roll: m.roll }));
      else {
        const p = { roll: m.roll, shape: m.shape || m.roll, where: where(m.place) };
        if (m.take) what.push(" ", m.roll === "*" ? _("rolled ★, chose {shape}, took the {shape} at {take} (supply empty) and placed it at {where}", { ...p, take: where(m.take) }) : _("rolled {roll}, took the {shape} at {take} (supply empty) and placed it at {where}", { ...p, take: where(m.take) }));
        else what.push(" ", m.roll === "*" ? _("rolled ★, chose {shape}, placed it at {where}", p) : _("rolled {roll}, placed it at {where}", p));
        const reward = (r) => {
          if (r === "point") return _("took a point");
          return _("removed the stone at {where}", { where: where(r.remove) });
        };
        if (m.rewards) what.push(" · " + m.rewards.map(reward).join(", "));
        const tokens = m.tokens && m.tokens.length ? ngettext("point token {shapes}", "point tokens {shapes}", m.tokens.length, { shapes: m.tokens.join(" ") }) : "";
        if (tokens) what.push(" · " + tokens);
      }
      return logItem(n, what, `dice:${n}`, m);
    });
    this.log.replaceChildren(...items);
    this.log.scrollTop = this.log.scrollHeight;
  }

  draw() {
    if (!this.board) return;
    const g = app.state.game;
    const o = this.currentOption();
    const overlays = {};
    const stones = [...g.stones];
    if (this.staged) {
      overlays.staged = new Set(this.staged.cells.map(([x, y]) => key(x, y)));
      if (this.staged.take) overlays.take = new Set(this.staged.take.cells.map(([x, y]) => key(x, y)));
    } else if (this.placer.enabled) {
      overlays.legal = this.placer.legalSet();
      overlays.ghost = this.placer.ghostSet();
      if (o && o.take) overlays.take = new Set(o.take.cells.map(([x, y]) => key(x, y)));
    }
    if (this.picks) overlays.pick = this.picks;
    overlays.complete = new Set();
    for (const y of g.complete_rows) for (let x = 0; x < g.width; x++) overlays.complete.add(key(x, y));
    const prev = this.prevStones;
    const taking = this.staged ? this.staged.take : o && o.take && this.placer.current() ? o.take : null;
    const shown = stones.filter((st) => !(taking && st.number === taking.number));
    if (this.staged) shown.push({ n: -1, shape: this.staged.shape, owner: app.seat, cells: this.staged.cells });
    this.board.render({ stones: shown, overlays, fresh: prev && prev.size ? (st) => !prev.has(st.number) : null, names: nameOf, numbers: this.numbers || null });
    const c = this.placer.enabled && !this.staged ? this.placer.current() : null;
    if (c && o) for (const [x, y] of c.cells) this.board.cells.get(key(x, y)).classList.add(`s-${o.shape}`);
  }

  onKey(e) {
    if (!boardKey(e)) return;
    if (!this.placer || !this.myTurn(app.state)) return;
    if (this.staged) {
      if (e.key === "Enter" || e.key === " ") { this.confirm(); e.preventDefault(); }
      else if (e.key === "Escape" || e.key === "Backspace" || e.key === "u" || e.key === "U") { this.unstage(); e.preventDefault(); }
      return;
    }
    const opts = this.options();
    if (e.key === "s" || e.key === "S") {
      const shapes = [...new Set(opts.map((o) => o.shape))];
      this.pick(shapes[(shapes.indexOf(this.sel.shape) + 1) % shapes.length]);
      e.preventDefault();
      return;
    }
    if (e.key === "t" || e.key === "T") {
      const takes = opts.filter((o) => o.shape === this.sel.shape && o.take);
      if (takes.length) {
        const i = takes.findIndex((o) => o.take.number === this.sel.take);
        this.pick(this.sel.shape, takes[(i + 1) % takes.length].take.number);
      }
      e.preventDefault();
      return;
    }
    this.placer.key(e);
  }

  // A placement is staged first: shown on the board, sent only on Confirm. Nothing is sent
  // before that, so "undo" costs nothing and can never come after the next roll is seen (the
  // server rolls for the next player the moment a move is stored).
  stage(c) {
    const o = this.currentOption();
    if (!o) return;
    this.staged = { shape: o.shape, take: o.take, cells: c.cells, rows: c.rows };
    this.placer.enabled = false;
    this.renderStatus();
    this.draw();
    announce(_("{shape} at {where}: press Enter to confirm or Escape to undo", { shape: o.shape, where: where(c.cells) }));
    const confirm = this.controls.querySelector("#confirm");
    if (document.activeElement && document.activeElement.closest && document.activeElement.closest("#controls, .bar")) confirm.focus();
  }

  unstage(redraw = true) {
    if (!this.staged) return;
    this.staged = null;
    this.placer.enabled = this.myTurn(app.state);
    if (redraw) { this.renderStatus(); this.draw(); }
  }

  // A tap or click while a placement is staged: on it, confirm; elsewhere, undo and move there.
  onStaged(cx, cy) {
    if (!this.staged) return false;
    const hit = this.staged.cells.some(([x, y]) => Math.round(cx) === x && Math.round(cy) === y);
    if (hit) this.confirm();
    else { this.unstage(); this.placer.hover(cx, cy); }
    return true;
  }

  async confirm() {
    const st = this.staged;
    if (!st || this.confirming) return;
    this.confirming = true;
    try { await this.send(st); } finally { this.confirming = false; }
  }

  async send(st) {
    const move = { type: "move", place: st.cells, shape: st.shape, turn: app.state.game.turn };
    if (st.take) move.take = st.take.cells;
    if (app.state.game.row_reward === "choose" && st.rows > 0) {
      const rewards = await this.askRewards(st.rows);
      if (!rewards) return;
      move.rewards = rewards;
    }
    if (app.state.private && app.state.private.tokens) {
      const tokens = await this.askTokens(move);
      if (tokens === null) return;
      if (tokens !== undefined) move.tokens = tokens;
    }
    const g = app.state.game;
    app.mine.add(`dice:${g.log_start + g.log.length}`);
    this.placer.enabled = false;
    try {
      await request(move);
    } catch (e) {
      this.unstage();
      toast(e.message);
    }
  }

  // Point tokens (tokens_from_supply): the server says which stones the points would take by
  // default; they are pre-selected, so one click (or Enter) accepts them. Resolves undefined for
  // the default, the named shapes, or null when the player goes back.
  async askTokens(move) {
    let answer;
    try {
      const { type, turn, ...probe } = move;
      answer = await request({ type: "query", ...probe });
    } catch (e) { toast(e.message); return null; }
    if (!answer.tokens.length) return undefined;
    return new Promise((resolve) => {
      const selects = answer.tokens.map((t, i) => {
        const sel = el("select", { id: `token-${i}` }, ...answer.choices.map((c) => el("option", { value: c }, c === t ? _("{shape} (default)", { shape: c }) : c)));
        sel.value = t;
        return sel;
      });
      const done = (value) => { d.close(); resolve(value); };
      const d = dialog("tokens", ngettext("{n} point: the token you take from the supply", "{n} points: the tokens you take from the supply", answer.tokens.length), [
        el("p", { class: "muted" }, _("Each point takes a stone out of the supply. The default is the shape with the most stones left.")),
        ...selects.map((s, i) => el("div", { class: "rule" }, el("label", { for: `token-${i}` }, _("Point {n}", { n: i + 1 })), s))],
      [el("button", { class: "primary", id: "tokens-ok", onclick: () => {
        const chosen = selects.map((s) => s.value);
        done(chosen.every((c, i) => c === answer.tokens[i]) ? undefined : chosen);
      } }, _("Take these")),
      el("button", { id: "tokens-cancel", onclick: () => done(null) }, _("Back"))], { peek: true });
      d.cancel = () => done(null);
      d.querySelector("#tokens-ok").focus();
    });
  }

  askRewards(count) {
    const g = app.state.game;
    const candidates = (app.state.private.rewardable || []).map((n) => g.stones.find((st) => st.number === n)).filter(Boolean);
    this.numbers = new Set(candidates.map((st) => st.number));
    this.draw();
    return new Promise((resolve) => {
      const selects = [];
      const mark = () => {
        this.picks = new Set();
        for (const s of selects) { const st = candidates.find((c) => String(c.number) === s.value); if (st) for (const [x, y] of st.cells) this.picks.add(key(x, y)); }
        this.draw();
      };
      for (let i = 0; i < count; i++) {
        const sel = el("select", { "data-reward": i, id: `reward-${i}` }, el("option", { value: "point" }, _("Take the point")),
          ...candidates.map((st) => el("option", { value: st.number }, _("Remove {name}'s {shape} (#{number}, {where})", { name: nameOf(st.owner), shape: st.shape, number: st.number, where: where(st.cells) }))));
        sel.addEventListener("change", mark);
        selects.push(sel);
      }
      const done = (value) => { this.numbers = null; this.picks = null; d.close(); this.draw(); resolve(value); };
      const d = dialog("rewards", ngettext("{n} row completed: choose each reward", "{n} rows completed: choose each reward", count), [
        el("p", { class: "muted" }, _("The stones you may remove show their numbers on the board.")),
        ...selects.map((s, i) => el("div", { class: "rule" }, el("label", { for: `reward-${i}` }, _("Row {n}", { n: i + 1 })), s))],
      [el("button", { class: "primary", id: "rewards-ok", onclick: () => done(selects.map((s) => (s.value === "point" ? "point" : { remove: candidates.find((st) => String(st.number) === s.value).cells }))) }, _("Place")),
        el("button", { id: "rewards-cancel", onclick: () => done(null) }, _("Cancel"))], { peek: true });
      d.cancel = () => done(null);
    });
  }

  breakdown(s) {
    const g = s.game;
    const rows = [el("tr", {}, el("th", {}, _("Player")), el("th", {}, _("Rows")), el("th", {}, _("Points")))];
    s.room.seats.forEach((_s, i) => rows.push(el("tr", { class: g.winners.includes(i) ? "turn" : "" }, el("td", {}, legend(i), nameOf(i), g.stuck === i ? _(" (stuck)") : ""), el("td", {}, num(g.rows_completed[i])), el("td", {}, el("b", {}, num(g.scores[i]))))));
    return el("table", { class: "scores", id: "final" }, ...rows);
  }
}

// ------------------------------------------------------------------ tower

class TowerView {
  constructor() {
    this.minos = [];
    this.minoCells = [];
    this.forms = null;
    this.round = -1;
    this.board = null;
    this.others = new Map();
    this.status = el("div", { class: "status", id: "status" });
    this.cards = el("div", { class: "playcards", id: "cards" });
    this.cols = el("div", { class: "cols", id: "cols", role: "group", "aria-label": _("drop a mino in a column") });
    this.mine = el("div", {});
    this.actions = el("div", { class: "bar", id: "actions" });
    this.othersBox = el("div", { class: "others", id: "others" });
    this.scores = el("table", { class: "scores", id: "scores" });
    this.achievements = el("div", { class: "cards", id: "achievements" });
    this.log = el("ol", { class: "log", id: "log", "aria-label": _("game log") });
    this.keys = el("div", { class: "keys" }, _("Press a column's ▼ to drop a mino first · point and click or drag to drop ·"), " ",
      el("kbd", {}, "← → ↑ ↓"), " ", _("move"), " ", el("kbd", {}, "R"), " ", _("turn"), " ", el("kbd", {}, "Enter"), " ", _("drop"), " ", el("kbd", {}, "H"), " ", _("hold"));
    this.keyHandler = (e) => {
      if (!boardKey(e) || !this.placer) return;
      if ((e.key === "h" || e.key === "H") && app.state.private && app.state.private.can_hold) { this.submit({ hold: true }); e.preventDefault(); return; }
      this.placer.key(e);
    };
    document.addEventListener("keydown", this.keyHandler);
  }

  destroy() { document.removeEventListener("keydown", this.keyHandler); }

  nodes() {
    const spectator = app.seat === null;
    return [
      el("section", { class: "stage", "aria-label": _("the table") }, this.status,
        el("div", { class: "tower-main" }, el("div", { class: "tower-side" }, this.cards, this.actions), el("div", { class: "tower-board" }, this.cols, this.mine)),
        this.keys, spectator ? this.othersBox : ""),
      el("aside", {},
        spectator ? "" : el("div", { class: "panel" }, el("h2", {}, _("Other towers")), this.othersBox),
        el("div", { class: "panel" }, el("h2", {}, _("Scores")), this.scores),
        el("div", { class: "panel" }, el("h2", {}, _("Game log")), this.log),
        el("div", { class: "panel" }, el("h2", {}, _("Achievements")), this.achievements),
        viewPanel()),
    ];
  }

  myTurn(s) { const p = s.private; return Boolean(p && !p.forced && !p.pending && !s.game.over); }

  turnText() { return _("Round {round}: drop the {shape}, or hold", { round: app.state.game.round, shape: app.state.game.play }); }

  endReason(s) {
    const g = s.game;
    return g.end === "out" ? _("Every tower is out: nobody can place a piece.") : _("The last card of the deck was played.");
  }

  update(s) {
    const g = s.game;
    const me = app.seat;
    const mySeat = me !== null && me < g.towers.length ? me : null;
    if (!this.board && mySeat !== null) {
      this.board = new BoardView(g.width, g.height, { label: _("your tower") });
      this.placer = new Placer(this.board, { onCommit: (c) => this.submit({ place: c.cells, minos: this.minos }), onChange: () => this.draw() });
      this.mine.replaceChildren(this.board.node);
      this.cols.style.setProperty("--w", g.width);
      this.cols.replaceChildren(...Array.from({ length: g.width }, (_c, x) => el("button", { class: "small", "data-col": x, "aria-label": _("drop a mino in column {n}", { n: x + 1 }), title: _("drop a mino in column {n}", { n: x + 1 }), onclick: () => this.addMino(x) }, "▼")));
      this.placer.draggable(this.cards);
    }
    if (g.round !== this.round) {
      if (this.round !== -1 && g.rounds_played > 0) {
        const last = g.log[g.log.length - 1];
        const revealed = _("Round {round} revealed.", { round: last ? last.round : 0 });
        if (last) announce(revealed + " " + this.roundText(last).map((x) => (typeof x === "string" ? x : x.textContent)).join(""));
      }
      this.prev = this.stoneSets || null;
      this.stoneSets = g.towers.map((t) => new Set(t.stones.map((st) => st.number)));
      this.round = g.round;
      this.minos = [];
      this.minoCells = [];
      this.forms = null;
    }
    const priv = s.private;
    this.placer && (this.placer.enabled = Boolean(priv && !priv.forced && !g.over));
    if (this.placer) {
      this.placer.setForms(this.forms || (priv ? priv.drops : []));
      if (!this.placer.current()) this.placer.hover(g.width / 2, g.height);
    }
    const held = priv && priv.pending && priv.pending.hold;
    this.cards.replaceChildren(
      el("div", { class: `playcard${held ? " held" : ""}`, id: "play-card", role: "img", "aria-label": g.play ? (held ? _("PLAY card: {shape}, held by you", { shape: g.play }) : _("PLAY card: {shape}", { shape: g.play })) : _("no PLAY card") }, g.play ? mini(g.play) : "–", held ? _("HELD") : _("PLAY")),
      el("div", { class: "playcard next", id: "next-card", role: "img", "aria-label": g.next ? _("NEXT card: {shape}", { shape: g.next }) : _("no NEXT card") }, g.next ? mini(g.next) : "–", _("NEXT")),
      el("div", { class: "muted deckinfo" }, _("Round {round}", { round: g.round }), " · ", ngettext("{n} card left", "{n} cards left", g.deck_left), el("br"), ngettext("{n} mino in the box", "{n} minos in the box", g.supply)));
    this.renderActions(g, priv, mySeat);
    this.renderOthers(g, mySeat);
    this.renderSide(s);
    this.draw();
  }

  async addMino(x) {
    const priv = app.state.private;
    if (!priv || this.minos.length >= priv.minos) { toast(ngettext("You have {n} mino.", "You have {n} minos.", priv ? priv.minos : 0)); return; }
    await this.query([...this.minos, x]);
  }

  async query(minos) {
    try {
      const answer = await request({ type: "query", minos });
      this.minos = answer.minos;
      this.minoCells = answer.mino_cells;
      this.forms = answer.drops;
      this.placer.setForms(this.forms);
      if (!this.placer.current()) this.placer.hover(this.board.width / 2, this.board.height);
      this.renderActions(app.state.game, app.state.private, app.seat);
      this.draw();
    } catch (e) { toast(e.message); }
  }

  async submit(action) {
    try {
      app.mine.add(`tower:${app.state.game.round}`);
      await request({ type: "move", ...action, round: app.state.game.round });
      const text = action.hold ? _("You hold the {shape}: waiting for the others", { shape: app.state.game.play }) : _("Drop submitted: waiting for the others");
      toast(text, "info");
      announce(text);
    } catch (e) { toast(e.message); }
  }

  renderActions(g, priv, mySeat) {
    const items = [];
    const winners = winnersText(g.winners);
    const over = () => [el("b", {}, _("Game over:")), " ", `${this.endReason(app.state)} `, winners ? `${winners}.` : ""];
    if (g.over) {
      this.status.replaceChildren(...over());
    } else if (mySeat === null) {
      const choosing = ngettext("{n} player choosing…", "{n} players choosing…", g.waiting_for.length);
      this.status.replaceChildren(_("Round {round}: {choosing}", { round: g.round, choosing }));
    } else if (g.towers[mySeat].out) {
      this.status.replaceChildren(_("You are out: your tower is frozen and keeps its score."));
    } else if (priv && priv.forced) {
      this.status.replaceChildren(_("No legal drop for {shape}: the hold is used for you.", { shape: g.play }));
    } else if (priv && priv.pending) {
      const waiting = g.waiting_for.map(nameOf).join(", ");
      const what = priv.pending.hold ? _("You hold the {shape}", { shape: g.play }) : _("Your {shape} is dropped", { shape: g.play });
      this.status.replaceChildren(el("b", {}, what), " — ", waiting ? _("waiting for {names}. You may still change your mind.", { names: waiting }) : _("waiting for the reveal. You may still change your mind."));
    } else {
      this.status.replaceChildren(el("b", {}, _("Your move")), " — ", _("drop the {shape}, or hold", { shape: g.play }));
    }
    if (priv && !priv.forced && !g.over) {
      items.push(el("span", { class: "muted" }, _("Minos: {n} left", { n: priv.minos - this.minos.length })));
      if (this.minos.length) items.push(el("button", { class: "small", id: "clear-minos", onclick: () => { this.minos = []; this.minoCells = []; this.forms = null; this.update(app.state); } }, ngettext("Undo {n} mino", "Undo {n} minos", this.minos.length)));
      items.push(el("button", { id: "rotate", onclick: () => this.placer.rotate(1) }, _("⟳ Turn")));
      items.push(el("button", { class: "primary", id: "place", onclick: () => this.placer.commit() }, _("Drop")));
      if (priv.can_hold) items.push(el("button", { id: "hold", onclick: () => this.submit({ hold: true }) }, _("Hold (once)")));
    }
    this.actions.replaceChildren(...items);
    this.cols.classList.toggle("hidden", !(priv && priv.minos > 0 && !priv.forced && !g.over));
    this.keys.classList.toggle("hidden", !(priv && !g.over));
  }

  renderOthers(g, mySeat) {
    const figs = [];
    g.towers.forEach((t, i) => {
      if (i === mySeat) return;
      let view = this.others.get(i);
      if (!view) { view = new BoardView(g.width, g.height, { small: mySeat !== null, label: _("{name}'s tower", { name: nameOf(i) }) }); this.others.set(i, view); }
      const prev = this.prev && this.prev[i];
      view.render({ stones: t.stones, icons: t.icons, fresh: prev ? (st) => !prev.has(st.number) : null, names: nameOf });
      const tag = t.out ? el("span", { class: "tag" }, _("out")) : g.over ? null : g.submitted[i] ? el("span", { class: "tag done" }, _("ready")) : el("span", { class: "tag" }, _("choosing"));
      figs.push(el("figure", { "data-tower": i }, view.node, el("figcaption", {}, legend(i), `${nameOf(i)} · ${num(t.score.total)} `, tag)));
    });
    this.othersBox.replaceChildren(...figs);
  }

  roundText(r) {
    const parts = [];
    r.actions.forEach((a, i) => {
      const who = el("b", {}, nameOf(i));
      let what;
      if (a === null) what = _("is out");
      else if (a.hold) what = _("held the {shape}", { shape: r.card });
      else if (a.minos && a.minos.length) {
        const columns = a.minos.map((c) => c + 1).join(", ");
        what = ngettext("dropped {n} mino (column {columns}), then dropped the {shape} at {where}", "dropped {n} minos (columns {columns}), then dropped the {shape} at {where}", a.minos.length, { columns, shape: r.card, where: where(a.place) });
      } else what = _("dropped the {shape} at {where}", { shape: r.card, where: where(a.place) });
      parts.push(...(parts.length ? ["; "] : []), who, " ", what);
    });
    for (const won of r.achievements) {
      const names = won.seats.map(nameOf).reduce((a, b) => _("{a} and {b}", { a, b }));
      parts.push(" · " + _("{names} won achievement {card} ({points} points)", { names, card: cardName(cardById(won.id)), points: won.points.join(", ") }));
    }
    return parts;
  }

  renderSide(s) {
    const g = s.game;
    const rows = [el("tr", {}, el("th", {}, _("Player")), el("th", {}, _("Rows")), el("th", {}, _("Bonus")), el("th", {}, _("Cards")), el("th", {}, _("Total")))];
    g.towers.forEach((t, i) => {
      const ach = Object.values(t.score.achievements).reduce((a, b) => a + b, 0);
      rows.push(el("tr", { class: `${i === app.seat ? "me" : ""}`, "data-seat": i },
        el("td", {}, legend(i), el("span", { class: `dot ${s.room.seats[i].connected ? "on" : ""}`, role: "img", "aria-label": s.room.seats[i].connected ? _("online") : _("offline") }), nameOf(i), s.room.seats[i].bot ? el("span", { class: "bot" }, _("bot")) : "", t.out ? _(" (out)") : "",
          el("div", { class: "muted", style: "font-size:12px" }, _("minos {n} · hold {hold}", { n: t.minos, hold: holdWord(t) }))),
        el("td", {}, `${num(t.score.lines)}×2`), el("td", {}, num(t.score.bonus)), el("td", {}, num(ach)), el("td", { class: "score" }, el("b", {}, num(t.score.total)))));
    });
    this.scores.replaceChildren(...rows);
    this.log.replaceChildren(...g.log.map((r) => logItem(r.round - 1, [el("b", {}, _("Round {round}", { round: r.round }), " "), mini(r.card), ": ", ...this.roundText(r)], `tower:${r.round}`, r.actions[app.seat] || {})));
    this.log.scrollTop = this.log.scrollHeight;
    this.achievements.replaceChildren(...g.achievements.map((c) => el("div", { class: "card", "data-card": c.id },
      el("b", { title: c.id }, cardName(c)), el("div", { class: "muted" }, tr(c.text)),
      el("div", { class: "spaces" }, ...c.points.map((p, k) => {
        const holders = c.holders[k];
        const dead = g.towers.length === 2 && k === 0;
        return el("div", { class: `space${holders.length ? " taken" : ""}${dead ? " dead" : ""}` }, el("b", {}, p), el("div", { style: "font-size:11px" }, holders.map(nameOf).join(", ") || (dead ? _("unused") : "·")));
      })))));
  }

  draw() {
    if (!this.board) return;
    const g = app.state.game;
    const t = g.towers[app.seat];
    const overlays = {};
    const priv = app.state.private;
    const stones = [...t.stones];
    if (this.placer.enabled) {
      overlays.legal = this.placer.legalSet();
      overlays.ghost = this.placer.ghostSet();
      this.minoCells.forEach(([x, y], i) => stones.push({ n: -1 - i, shape: "M", cells: [[x, y]] }));
      overlays.pending = new Set(this.minoCells.map(([x, y]) => key(x, y)));
    }
    if (priv && priv.pending && priv.pending.place) {
      const p = new Set(priv.pending.place.map(([x, y]) => key(x, y)));
      overlays.pending = new Set([...(overlays.pending || []), ...p]);
      stones.push({ n: -100, shape: g.play, cells: priv.pending.place });
    }
    const prev = this.prev && this.prev[app.seat];
    this.board.render({ stones, icons: t.icons, overlays, fresh: prev ? (st) => st.number > 0 && !prev.has(st.number) : null, names: nameOf });
    const c = this.placer.enabled ? this.placer.current() : null;
    if (c) for (const [x, y] of c.cells) this.board.cells.get(key(x, y)).classList.add(`s-${g.play}`);
  }

  breakdown(s) {
    const g = s.game;
    const ids = g.achievements.map((c) => c.id);
    const titles = new Map(g.achievements.map((c) => [c.id, cardName(c)]));
    const rows = [el("tr", {}, el("th", {}, _("Player")), el("th", {}, _("Rows (points)")), el("th", {}, _("Bonus")), ...ids.map((id) => el("th", { title: id }, titles.get(id))), el("th", {}, _("Total")))];
    g.towers.forEach((t, i) => rows.push(el("tr", { class: g.winners.includes(i) ? "turn" : "", "data-seat": i },
      el("td", {}, legend(i), nameOf(i), t.out ? _(" (out)") : ""), el("td", {}, `${num(t.score.lines)} (${num(t.score.line_points)})`), el("td", {}, num(t.score.bonus)),
      ...ids.map((id) => el("td", {}, t.score.achievements[id] !== undefined ? num(t.score.achievements[id]) : "–")), el("td", {}, el("b", {}, num(t.score.total))))));
    return el("div", { class: "breakdown" }, el("table", { class: "scores", id: "final" }, ...rows),
      el("p", { class: "muted" }, _("Rows score 2 points each; a bonus icon covered by its shape scores 1; each achievement card scores the space won. Ties go to more complete rows.")));
  }
}

async function main() {
  layout();
  app.meta = await meta();
  connect();
}

main();
