// A room: join a seat (or watch), then play the dice or tower game live over the websocket.
// The server sends the whole state after every change, with this seat's legal placements;
// the page only draws it and sends the player's choice. Errors come back as the engine words them.
import { BoardView, api, el, header, key, meta, mini, myName, rememberName, seats, toast } from "./common.js";
import { Placer } from "./placer.js";

const roomId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const app = { ws: null, state: null, seat: null, token: null, nextId: 1, view: null, retry: 0, closed: false };

// ------------------------------------------------------------------ connection

function connect() {
  const mine = seats.get(roomId);
  app.token = mine ? mine.token : null;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const url = `${proto}://${location.host}/ws/${encodeURIComponent(roomId)}`;
  const ws = new WebSocket(url);
  app.ws = ws;
  // The seat token goes in the first message, never in the URL (logs would keep it).
  ws.onopen = () => { ws.send(JSON.stringify(app.token ? { type: "hello", token: app.token } : { type: "hello" })); app.retry = 0; setConn(true); };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = (e) => {
    setConn(false);
    if (app.ws !== ws || app.closed) return;
    if (e.code === 4403 && app.token) { seats.drop(roomId); toast("This browser's seat token is not valid here any more: watching instead."); }
    if (e.code === 4404) { app.closed = true; return; }
    app.retry = Math.min(app.retry + 1, 6);
    setTimeout(connect, 300 * 2 ** app.retry);
  };
}

export function send(message) {
  if (!app.ws || app.ws.readyState !== WebSocket.OPEN) { toast("Not connected: reconnecting…"); return null; }
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
    app.state = msg;
    app.seat = msg.you;
    render();
    return;
  }
  const w = msg.id !== undefined && msg.id !== null ? waiters.get(msg.id) : null;
  if (w) waiters.delete(msg.id);
  if (msg.type === "error") {
    if (w) w.reject(Object.assign(new Error(msg.message), { code: msg.error }));
    else toast(msg.message);
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
  if (dot) { dot.className = `dot ${on ? "on" : ""}`; dot.title = on ? "connected" : "reconnecting"; }
}

// ------------------------------------------------------------------ page

const dom = {};

function layout() {
  document.body.append(header());
  dom.main = el("main", {});
  dom.top = el("div", { class: "row", style: "margin-bottom:10px" },
    el("span", { id: "conn", class: "dot" }),
    el("b", { id: "title" }, "Room"),
    el("span", { id: "status-badge", class: "badge" }, "…"),
    el("span", { class: "grow", style: "flex:1" }),
    el("button", { class: "small", id: "invite", onclick: copyInvite }, "Copy invite link"));
  dom.join = el("div", { class: "panel hidden", id: "join" });
  dom.table = el("div", { class: "table" });
  dom.main.append(dom.top, dom.join, dom.table);
  document.body.append(dom.main);
}

async function copyInvite() {
  const link = `${location.origin}/room/${roomId}`;
  try { await navigator.clipboard.writeText(link); toast("Invite link copied", "info"); } catch { prompt("Invite link", link); }
}

function showMissing() {
  dom.table.replaceChildren(el("div", { class: "panel" }, el("h2", {}, "No such room"), el("p", {}, el("a", { href: "/" }, "Back to the lobby"))));
}

function renderJoin(room) {
  const open = room.seats.filter((s) => s.open);
  if (app.seat !== null || room.status !== "waiting" || !open.length) { dom.join.classList.add("hidden"); return; }
  if (dom.join.dataset.for === JSON.stringify(open.map((s) => s.seat))) { dom.join.classList.remove("hidden"); return; }
  dom.join.dataset.for = JSON.stringify(open.map((s) => s.seat));
  const name = el("input", { id: "join-name", maxlength: 24, placeholder: "Your name", value: myName() });
  const buttons = open.map((s) => el("button", {
    class: "primary", "data-join": s.seat,
    onclick: async () => {
      const n = name.value.trim();
      if (!n) { toast("Type your name first."); return; }
      try {
        const joined = await api(`/api/rooms/${roomId}/join`, { method: "POST", body: { name: n, seat: s.seat } });
        rememberName(n);
        seats.set(roomId, { seat: joined.seat, token: joined.token, name: n });
        app.ws.close();
        connect();
      } catch (e) { toast(e.message); }
    },
  }, `Sit at seat ${s.seat + 1}`));
  dom.join.replaceChildren(el("h2", {}, "Join this game"), el("div", { class: "row join" }, name, ...buttons),
    el("p", { class: "muted" }, "Or just watch: the game starts when every seat is taken."));
  dom.join.classList.remove("hidden");
}

function render() {
  const s = app.state;
  const room = s.room;
  document.querySelector("#title").textContent = `${room.game === "dice" ? "Dice" : "Tower"} · ${room.preset} · ${room.id}`;
  const badge = document.querySelector("#status-badge");
  badge.textContent = room.status + (room.spectators ? ` · ${room.spectators} watching` : "");
  badge.className = `badge ${room.status}`;
  renderJoin(room);
  if (!s.game) { renderWaiting(room); return; }
  const View = s.game.game === "dice" ? DiceView : TowerView;
  if (!(app.view instanceof View) || app.view.seat !== app.seat) {
    if (app.view) app.view.destroy();
    app.view = new View();
    app.view.seat = app.seat;
    dom.table.replaceChildren(...app.view.nodes());
    dom.table.className = `table ${s.game.game}`;
  }
  app.view.update(s);
  renderEnd(s);
}

function renderWaiting(room) {
  app.view = null;
  dom.table.className = "table";
  const list = el("table", { class: "scores" }, el("tr", {}, el("th", {}, "Seat"), el("th", {}, "Player")),
    ...room.seats.map((seat) => el("tr", { class: seat.seat === app.seat ? "me" : "" },
      el("td", {}, seat.seat + 1), el("td", {}, seat.open ? el("span", { class: "muted" }, "open") : [el("span", { class: `dot ${seat.connected ? "on" : ""}` }), seat.name + (seat.bot ? el("span", { class: "bot" }, "bot") : "")]))));
  dom.table.replaceChildren(el("div", { class: "panel", style: "min-width:300px" }, el("h2", {}, "Waiting for players"), list,
    el("p", { class: "muted" }, "Send the invite link to the other players.")));
}

function timerBar() {
  const bar = el("div", { class: "timer hidden", id: "timer" }, el("i", {}));
  setInterval(() => {
    const room = app.state && app.state.room;
    if (!room || !room.deadline || !room.timer || room.status !== "playing") { bar.classList.add("hidden"); return; }
    const left = Math.max(0, room.deadline - Date.now() / 1000);
    bar.classList.remove("hidden");
    bar.firstChild.style.width = `${Math.min(100, (100 * left) / room.timer)}%`;
    bar.title = `${Math.ceil(left)} s left, then a bot plays the turn`;
  }, 500);
  return bar;
}

function nameOf(seat) {
  const s = app.state.room.seats[seat];
  return s ? s.name || `Seat ${seat + 1}` : `Seat ${seat + 1}`;
}

function renderEnd(s) {
  let overlay = document.querySelector("#end");
  if (!s.game.over) { if (overlay) overlay.remove(); return; }
  if (overlay && overlay.dataset.seq === String(s.seq) && overlay.dataset.rematch === String(s.room.rematch)) return;
  if (overlay && overlay.dataset.closed === "1") return;
  if (overlay) overlay.remove();
  const winners = s.game.winners.map(nameOf).join(" and ");
  const table = app.view.breakdown(s);
  const buttons = [];
  if (app.seat !== null) buttons.push(el("button", { class: "primary", id: "rematch", onclick: () => send({ type: "rematch" }) }, s.room.rematch ? "Join the rematch" : "Rematch"));
  else if (s.room.rematch) buttons.push(el("a", { class: "button", href: `/room/${s.room.rematch}` }, "Watch the rematch"));
  buttons.push(el("a", { class: "button", href: `/replay/${roomId}` }, "Replay"));
  buttons.push(el("a", { class: "button", href: `/api/rooms/${roomId}/record?download=1` }, "Download record"));
  buttons.push(el("a", { class: "button", href: "/" }, "Lobby"));
  buttons.push(el("button", { onclick: () => { overlay.dataset.closed = "1"; overlay.classList.add("hidden"); } }, "Close"));
  overlay = el("div", { class: "overlay", id: "end" },
    el("div", { class: "panel" }, el("h2", {}, winners ? `${winners} ${s.game.winners.length > 1 ? "share the win" : "wins"}` : "Game over"),
      table, el("div", { class: "row", style: "margin-top:12px" }, ...buttons)));
  overlay.dataset.seq = String(s.seq);
  overlay.dataset.rematch = String(s.room.rematch);
  document.body.append(overlay);
}

// ------------------------------------------------------------------ dice

class DiceView {
  constructor() {
    this.sel = { shape: null, take: null };
    this.board = null;
    this.placer = null;
    this.lastTurn = -1;
    this.status = el("div", { class: "status", id: "status" });
    this.die = el("div", { class: "die", id: "die", title: "the die" });
    this.tray = el("div", { class: "tray", id: "tray" });
    this.stageBoard = el("div", {});
    this.controls = el("div", { class: "bar" },
      el("button", { id: "rotate", onclick: () => this.placer && this.placer.rotate(1) }, "⟳ Turn"),
      el("button", { class: "primary", id: "place", onclick: () => this.placer && this.placer.commit() }, "Place"));
    this.keys = el("div", { class: "keys" }, "Mouse: point and click · drag the piece · wheel or right-click turns · Keys: ",
      el("kbd", {}, "← → ↑ ↓"), " move ", el("kbd", {}, "R"), " turn ", el("kbd", {}, "Enter"), " place ", el("kbd", {}, "S"), " shape ", el("kbd", {}, "T"), " stone to take");
    this.scores = el("table", { class: "scores", id: "scores" });
    this.supply = el("div", { class: "supply", id: "supply" });
    this.log = el("ol", { class: "log", id: "log" });
    this.timer = timerBar();
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keyHandler);
  }

  destroy() { document.removeEventListener("keydown", this.keyHandler); }

  nodes() {
    return [
      el("section", { class: "stage" }, this.status, this.timer, el("div", { class: "bar" }, this.die, this.tray), this.stageBoard, this.controls, this.keys),
      el("aside", {},
        el("div", { class: "panel" }, el("h2", {}, "Scores"), this.scores),
        el("div", { class: "panel" }, el("h2", {}, "Supply"), this.supply),
        el("div", { class: "panel" }, el("h2", {}, "Moves"), this.log)),
    ];
  }

  options() { return (app.state.private && app.state.private.options) || []; }

  currentOption() {
    const opts = this.options();
    return opts.find((o) => o.shape === this.sel.shape && (o.take ? o.take.n : null) === this.sel.take) || opts[0] || null;
  }

  pick(shape, take) {
    this.sel = { shape, take };
    const o = this.currentOption();
    this.placer.setForms(o ? o.orientations : []);
    if (!this.placer.current()) this.placer.hover(this.board.width / 2, this.board.height);
    this.draw();
  }

  update(s) {
    const g = s.game;
    if (!this.board || this.board.width !== g.width || this.board.height !== g.height) {
      this.board = new BoardView(g.width, g.height, { label: "dice board" });
      this.placer = new Placer(this.board, { onCommit: (c) => this.commit(c), onChange: () => this.draw() });
      this.stageBoard.replaceChildren(this.board.node);
    }
    const myTurn = !g.over && app.seat !== null && g.to_move === app.seat && s.private;
    this.placer.enabled = Boolean(myTurn);
    if (g.turn !== this.lastTurn) {
      this.lastTurn = g.turn;
      this.die.classList.remove("rolling");
      void this.die.offsetWidth;
      this.die.classList.add("rolling");
      const opts = this.options();
      const first = opts[0];
      this.sel = first ? { shape: first.shape, take: first.take ? first.take.n : null } : { shape: null, take: null };
      this.placer.place = -1;
      const o = this.currentOption();
      this.placer.setForms(o ? o.orientations : []);
      if (myTurn) this.placer.hover(g.width / 2, g.height);
      this.prevStones = this.stones || new Set();
      this.stones = new Set(g.stones.map((st) => st.n));
    }
    this.die.replaceChildren(g.roll ? (g.roll === "*" ? "★" : mini(g.roll)) : "–");
    this.die.title = g.roll ? `the die shows ${g.roll}` : "the die";
    this.renderTray(myTurn);
    this.renderSide(s);
    const who = nameOf(g.to_move);
    if (g.over) this.status.replaceChildren(g.stuck !== null ? `${nameOf(g.stuck)} could not place the piece: game over` : "Game over");
    else if (myTurn) this.status.replaceChildren(el("b", {}, "Your turn"), ` — place the ${g.roll === "*" ? "piece of your choice" : g.roll}`);
    else this.status.replaceChildren(`${who} is playing…`);
    this.controls.classList.toggle("hidden", !myTurn);
    this.keys.classList.toggle("hidden", !myTurn);
    this.draw();
  }

  renderTray(myTurn) {
    const opts = this.options();
    const shapes = [...new Set(opts.map((o) => o.shape))];
    const items = [];
    if (myTurn) {
      for (const shape of shapes) {
        const p = el("span", { class: `piece${shape === this.sel.shape ? " sel" : ""}`, "data-shape": shape, title: `place a ${shape}`, onclick: () => this.pick(shape, (opts.find((o) => o.shape === shape).take || { n: null }).n) }, mini(shape));
        this.placer.draggable(p);
        items.push(p);
      }
      const takes = opts.filter((o) => o.shape === this.sel.shape && o.take);
      if (takes.length) {
        items.push(el("span", { class: "muted" }, "supply empty: take"));
        for (const o of takes) items.push(el("button", { class: `small${o.take.n === this.sel.take ? " primary" : ""}`, "data-take": o.take.n, onclick: () => this.pick(o.shape, o.take.n) }, `stone #${o.take.n}`));
      }
    }
    this.tray.replaceChildren(...items);
  }

  renderSide(s) {
    const g = s.game;
    const rows = [el("tr", {}, el("th", {}, "Player"), el("th", {}, "Points"), el("th", {}, "Rows"))];
    s.room.seats.forEach((seat, i) => {
      rows.push(el("tr", { class: `${i === g.to_move && !g.over ? "turn" : ""} ${i === app.seat ? "me" : ""}`, "data-seat": i },
        el("td", {}, el("span", { class: `dot ${seat.connected ? "on" : ""}` }), nameOf(i), seat.bot ? el("span", { class: "bot" }, "bot") : "", i === app.seat ? " (you)" : ""),
        el("td", { class: "score" }, g.scores[i]), el("td", {}, g.rows_completed[i])));
    });
    if (g.clear_rows) rows.push(el("tr", {}, el("td", { colspan: 3, class: "muted" }, `First to ${g.target} points wins; completed rows are cleared.`)));
    this.scores.replaceChildren(...rows);
    this.supply.replaceChildren(...(g.supply ? Object.entries(g.supply).map(([shape, n]) => el("span", { "data-supply": shape }, mini(shape), ` ${n}`)) : [el("span", { class: "muted" }, "unlimited")]));
    const items = g.log.map((m, i) => {
      const who = el("b", {}, nameOf(m.player));
      const what = m.place ? [` ${m.roll === "*" ? `★→${m.shape}` : m.roll}`, m.take ? " (took a stone)" : "", m.rewards ? ` · ${m.rewards.map((r) => (r === "point" ? "+1" : "removed a stone")).join(", ")}` : ""]
        : [` rolled ${m.roll}: no place — game over`];
      return el("li", { value: g.log_start + i + 1 }, who, ...what);
    });
    this.log.replaceChildren(...items);
    this.log.scrollTop = this.log.scrollHeight;
  }

  draw() {
    if (!this.board) return;
    const g = app.state.game;
    const o = this.currentOption();
    const overlays = {};
    if (this.placer.enabled) {
      overlays.legal = this.placer.legalSet();
      overlays.ghost = this.placer.ghostSet();
      if (o && o.take) overlays.take = new Set(o.take.cells.map(([x, y]) => key(x, y)));
    }
    overlays.complete = new Set();
    for (const y of g.complete_rows) for (let x = 0; x < g.width; x++) overlays.complete.add(key(x, y));
    const prev = this.prevStones;
    const stones = g.stones.filter((st) => !(overlays.take && o && o.take && st.n === o.take.n && this.placer.current()));
    this.board.render({ stones, overlays, fresh: prev && prev.size ? (st) => !prev.has(st.n) : null });
    const c = this.placer.enabled ? this.placer.current() : null;
    if (c && o) for (const [x, y] of c.cells) this.board.cells.get(key(x, y)).classList.add(`s-${o.shape}`);
  }

  onKey(e) {
    if (e.target.closest("input, select, textarea")) return;
    if (!this.placer || !this.placer.enabled) return;
    const opts = this.options();
    if (e.key === "s" || e.key === "S") {
      const shapes = [...new Set(opts.map((o) => o.shape))];
      const next = shapes[(shapes.indexOf(this.sel.shape) + 1) % shapes.length];
      const o = opts.find((x) => x.shape === next);
      this.pick(next, o.take ? o.take.n : null);
      this.renderTray(true);
      e.preventDefault();
      return;
    }
    if (e.key === "t" || e.key === "T") {
      const takes = opts.filter((o) => o.shape === this.sel.shape && o.take);
      if (takes.length) {
        const i = takes.findIndex((o) => o.take.n === this.sel.take);
        this.pick(this.sel.shape, takes[(i + 1) % takes.length].take.n);
        this.renderTray(true);
      }
      e.preventDefault();
      return;
    }
    this.placer.key(e);
  }

  async commit(c) {
    const o = this.currentOption();
    if (!o) return;
    const move = { type: "move", place: c.cells, shape: o.shape, turn: app.state.game.turn };
    if (o.take) move.take = o.take.cells;
    if (app.state.game.row_reward === "choose" && c.rows > 0) {
      const rewards = await this.askRewards(c.rows);
      if (!rewards) return;
      move.rewards = rewards;
    }
    this.placer.enabled = false;
    try {
      await request(move);
    } catch (e) {
      this.placer.enabled = true;
      toast(e.message);
      this.draw();
    }
  }

  askRewards(count) {
    const g = app.state.game;
    const candidates = (app.state.private.rewardable || []).map((n) => g.stones.find((st) => st.n === n)).filter(Boolean);
    return new Promise((resolve) => {
      const selects = [];
      for (let i = 0; i < count; i++) {
        selects.push(el("select", { "data-reward": i }, el("option", { value: "point" }, "Take the point"),
          ...candidates.map((st) => el("option", { value: st.n }, `Remove ${nameOf(st.owner)}'s ${st.shape} (#${st.n})`))));
      }
      const done = (value) => { overlay.remove(); resolve(value); };
      const overlay = el("div", { class: "overlay", id: "rewards" }, el("div", { class: "panel" },
        el("h2", {}, `${count} row${count > 1 ? "s" : ""} completed: choose each reward`),
        ...selects.map((s, i) => el("div", { class: "rule" }, el("label", {}, `Row ${i + 1}`), s)),
        el("div", { class: "row" },
          el("button", { class: "primary", onclick: () => done(selects.map((s) => (s.value === "point" ? "point" : { remove: candidates.find((st) => String(st.n) === s.value).cells }))) }, "Place"),
          el("button", { onclick: () => done(null) }, "Cancel"))));
      document.body.append(overlay);
    });
  }

  breakdown(s) {
    const g = s.game;
    const rows = [el("tr", {}, el("th", {}, "Player"), el("th", {}, "Rows"), el("th", {}, "Points"))];
    s.room.seats.forEach((_, i) => rows.push(el("tr", { class: g.winners.includes(i) ? "turn" : "" }, el("td", {}, nameOf(i), g.stuck === i ? " (stuck)" : ""), el("td", {}, g.rows_completed[i]), el("td", {}, el("b", {}, g.scores[i])))));
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
    this.cols = el("div", { class: "cols", id: "cols" });
    this.mine = el("div", {});
    this.actions = el("div", { class: "bar", id: "actions" });
    this.othersBox = el("div", { class: "others", id: "others" });
    this.scores = el("table", { class: "scores", id: "scores" });
    this.achievements = el("div", { class: "cards", id: "achievements" });
    this.reveal = el("ol", { class: "log", id: "reveal" });
    this.timer = timerBar();
    this.keys = el("div", { class: "keys" }, "Click a column's ▼ to drop a mino first · point and click or drag to drop · ",
      el("kbd", {}, "← → ↑ ↓"), " move ", el("kbd", {}, "R"), " turn ", el("kbd", {}, "Enter"), " drop ", el("kbd", {}, "H"), " hold");
    this.keyHandler = (e) => {
      if (e.target.closest("input, select, textarea") || !this.placer) return;
      if ((e.key === "h" || e.key === "H") && app.state.private && app.state.private.can_hold) { this.submit({ hold: true }); e.preventDefault(); return; }
      this.placer.key(e);
    };
    document.addEventListener("keydown", this.keyHandler);
  }

  destroy() { document.removeEventListener("keydown", this.keyHandler); }

  nodes() {
    const spectator = app.seat === null;
    return [
      el("section", { class: "stage" }, this.status, this.timer,
        el("div", { class: "tower-main" }, el("div", { class: "tower-side" }, this.cards, this.actions), el("div", {}, this.cols, this.mine)),
        this.keys, spectator ? this.othersBox : ""),
      el("aside", {},
        spectator ? "" : el("div", { class: "panel" }, el("h2", {}, "Other towers"), this.othersBox),
        el("div", { class: "panel" }, el("h2", {}, "Scores"), this.scores),
        el("div", { class: "panel" }, el("h2", {}, "Achievements"), this.achievements),
        el("div", { class: "panel" }, el("h2", {}, "Last round"), this.reveal)),
    ];
  }

  update(s) {
    const g = s.game;
    const me = app.seat;
    const mySeat = me !== null && me < g.towers.length ? me : null;
    if (!this.board && mySeat !== null) {
      this.board = new BoardView(g.width, g.height, { label: "your tower" });
      this.placer = new Placer(this.board, { onCommit: (c) => this.submit({ place: c.cells, minos: this.minos }), onChange: () => this.draw() });
      this.mine.replaceChildren(this.board.node);
      this.cols.style.setProperty("--w", g.width);
      this.cols.replaceChildren(...Array.from({ length: g.width }, (_, x) => el("button", { class: "small", "data-col": x, title: `drop a mino in column ${x}`, onclick: () => this.addMino(x) }, "▼")));
      this.placer.draggable(this.cards);
    }
    if (g.round !== this.round) {
      if (this.round !== -1 && g.rounds_played > 0) this.showReveal(g);
      this.prev = this.stoneSets || null;
      this.stoneSets = g.towers.map((t) => new Set(t.stones.map((st) => st.n)));
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
    this.cards.replaceChildren(
      el("div", { class: "playcard", id: "play-card", title: "PLAY: everybody drops this piece" }, g.play ? mini(g.play) : "–", "PLAY"),
      el("div", { class: "playcard next", id: "next-card", title: "NEXT" }, g.next ? mini(g.next) : "–", "NEXT"),
      el("div", { class: "muted deckinfo" }, `Round ${g.round} · ${g.deck_left} cards left`, el("br"), `${g.supply} minos in the box`));
    this.renderActions(g, priv, mySeat);
    this.renderOthers(g, mySeat);
    this.renderSide(s);
    this.draw();
  }

  async addMino(x) {
    const priv = app.state.private;
    if (!priv || this.minos.length >= priv.minos) { toast(`You have ${priv ? priv.minos : 0} mino${priv && priv.minos === 1 ? "" : "s"}.`); return; }
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
      await request({ type: "move", ...action, round: app.state.game.round });
      toast(action.hold ? "Hold submitted: waiting for the others" : "Drop submitted: waiting for the others", "info");
    } catch (e) { toast(e.message); }
  }

  renderActions(g, priv, mySeat) {
    const items = [];
    if (mySeat === null) {
      this.status.replaceChildren(g.over ? "Game over" : `Round ${g.round}: ${g.waiting_for.length} player(s) choosing…`);
    } else if (g.over) {
      this.status.replaceChildren("Game over");
    } else if (g.towers[mySeat].out) {
      this.status.replaceChildren("You are out: your tower is frozen and keeps its score.");
    } else if (priv && priv.forced) {
      this.status.replaceChildren(`No legal drop for ${g.play}: the hold is used for you.`);
    } else if (priv && priv.pending) {
      const waiting = g.waiting_for.map(nameOf).join(", ");
      this.status.replaceChildren(el("b", {}, "Submitted"), ` — waiting for ${waiting || "the reveal"}. You may still change your mind.`);
    } else {
      this.status.replaceChildren(el("b", {}, "Your move"), ` — drop the ${g.play}, or hold`);
    }
    if (priv && !priv.forced && !g.over) {
      items.push(el("span", { class: "muted" }, `Minos: ${priv.minos - this.minos.length} left`));
      if (this.minos.length) items.push(el("button", { class: "small", id: "clear-minos", onclick: () => { this.minos = []; this.minoCells = []; this.forms = null; this.update(app.state); } }, `Undo ${this.minos.length} mino${this.minos.length > 1 ? "s" : ""}`));
      items.push(el("button", { id: "rotate", onclick: () => this.placer.rotate(1) }, "⟳ Turn"));
      items.push(el("button", { class: "primary", id: "place", onclick: () => this.placer.commit() }, "Drop"));
      if (priv.can_hold) items.push(el("button", { id: "hold", onclick: () => this.submit({ hold: true }) }, "Hold (once)"));
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
      if (!view) { view = new BoardView(g.width, g.height, { small: mySeat !== null, label: `${nameOf(i)}'s tower` }); this.others.set(i, view); }
      const prev = this.prev && this.prev[i];
      view.render({ stones: t.stones, icons: t.icons, fresh: prev ? (st) => !prev.has(st.n) : null });
      const tag = t.out ? el("span", { class: "tag" }, "out") : g.over ? null : g.submitted[i] ? el("span", { class: "tag done" }, "ready") : el("span", { class: "tag" }, "choosing");
      figs.push(el("figure", { "data-tower": i }, view.node, el("figcaption", {}, `${nameOf(i)} · ${t.score.total} `, tag)));
    });
    this.othersBox.replaceChildren(...figs);
  }

  renderSide(s) {
    const g = s.game;
    const rows = [el("tr", {}, el("th", {}, "Player"), el("th", {}, "Rows"), el("th", {}, "Bonus"), el("th", {}, "Cards"), el("th", {}, "Total"))];
    g.towers.forEach((t, i) => {
      const ach = Object.values(t.score.achievements).reduce((a, b) => a + b, 0);
      rows.push(el("tr", { class: `${i === app.seat ? "me" : ""}`, "data-seat": i },
        el("td", {}, el("span", { class: `dot ${s.room.seats[i].connected ? "on" : ""}` }), nameOf(i), s.room.seats[i].bot ? el("span", { class: "bot" }, "bot") : "", t.out ? " (out)" : "",
          el("div", { class: "muted", style: "font-size:12px" }, `minos ${t.minos} · hold ${t.hold_used ? (t.held || "used") : "free"}`)),
        el("td", {}, `${t.score.lines}×2`), el("td", {}, t.score.bonus), el("td", {}, ach), el("td", { class: "score" }, el("b", {}, t.score.total))));
    });
    this.scores.replaceChildren(...rows);
    this.achievements.replaceChildren(...g.achievements.map((c) => el("div", { class: "card", "data-card": c.id },
      el("b", {}, c.id), el("div", { class: "muted" }, c.text),
      el("div", { class: "spaces" }, ...c.points.map((p, k) => {
        const holders = c.holders[k];
        const dead = g.towers.length === 2 && k === 0;
        return el("div", { class: `space${holders.length ? " taken" : ""}${dead ? " dead" : ""}` }, el("b", {}, p), el("div", { style: "font-size:11px" }, holders.map(nameOf).join(", ") || (dead ? "unused" : "·")));
      })))));
  }

  showReveal(g) {
    const actions = g.last_round || [];
    const lines = actions.map((a, i) => el("li", {}, el("b", {}, nameOf(i)), ": ", a === null ? "out" : a.hold ? "held" : `dropped${a.minos && a.minos.length ? ` ${a.minos.length} mino(s) and` : ""} the piece`));
    this.reveal.replaceChildren(...lines);
    this.reveal.setAttribute("start", 1);
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
    this.board.render({ stones, icons: t.icons, overlays, fresh: prev ? (st) => st.n > 0 && !prev.has(st.n) : null });
    const c = this.placer.enabled ? this.placer.current() : null;
    if (c) for (const [x, y] of c.cells) this.board.cells.get(key(x, y)).classList.add(`s-${g.play}`);
  }

  breakdown(s) {
    const g = s.game;
    const ids = g.achievements.map((c) => c.id);
    const rows = [el("tr", {}, el("th", {}, "Player"), el("th", {}, "Rows"), el("th", {}, "Bonus"), ...ids.map((id) => el("th", {}, id)), el("th", {}, "Total"))];
    g.towers.forEach((t, i) => rows.push(el("tr", { class: g.winners.includes(i) ? "turn" : "" },
      el("td", {}, nameOf(i)), el("td", {}, `${t.score.lines} (${t.score.line_points})`), el("td", {}, t.score.bonus),
      ...ids.map((id) => el("td", {}, t.score.achievements[id] ?? "–")), el("td", {}, el("b", {}, t.score.total)))));
    return el("table", { class: "scores", id: "final" }, ...rows);
  }
}

async function main() {
  layout();
  await meta();
  connect();
}

main();
