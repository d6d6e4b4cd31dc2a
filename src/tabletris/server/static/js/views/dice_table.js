// The dice game's table in a room (``View``) and its replay frames (``Replay``), loaded by
// dice.js's ``table()``. The server sends the legal placements: nothing here decides a rule.
import { BoardView, _, announce, el, key, mini, ngettext, num, scrollToEnd, toast, touchScreen, where } from "../common.js";
import { Placer } from "../placer.js";
import { RESIGNED, app, boardKey, dialog, legend, logItem, nameOf, playerName, request, seatResigned, viewPanel } from "../table.js";

// The die's face as people read it: ★ for the star (records and the API write "*").
const face = (roll) => (roll === "*" ? "★" : roll);

export class View {
  constructor() {
    this.sel = { shape: null, take: null };
    this.board = null;
    this.placer = null;
    this.staged = null;
    this.lastTurn = -1;
    this.status = el("div", { class: "status", id: "status", "aria-live": "off" });
    this.die = el("div", { class: "die", id: "die", role: "img", "aria-label": _("the die") });
    this.tray = el("div", { class: "tray", id: "tray", role: "group", "aria-label": _("pieces you may place") });
    this.stageBoard = el("div", { class: "board-box" });
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
      el("section", { class: "stage", "aria-label": _("the table") }, this.status, el("div", { class: "bar die-bar" }, this.die, this.tray), this.stageBoard, this.controls, this.keys),
      el("aside", {},
        el("div", { class: "panel" }, el("h2", {}, _("Scores")), this.scores),
        el("div", { class: "panel" }, el("h2", {}, _("Supply")), this.supply),
        el("div", { class: "panel" }, el("h2", {}, _("Game log")), this.log),
        viewPanel()),
    ];
  }

  // The state's own seat (``you``) is to move: a page holding several seats asks each one's state.
  myTurn(s) { const g = s.game; return Boolean(!g.over && s.you !== null && s.you !== undefined && g.to_move === s.you && s.private); }

  turnText() { const g = app.state.game; return g.roll === "*" ? _("Your turn: place the piece of your choice") : _("Your turn: place the {shape}", { shape: g.roll }); }

  // The turn clock's words: whose turn the seconds left are for.
  clockText(time) { const g = app.state.game; return g.to_move === app.seat ? _("{time} left for you", { time }) : _("{time} left for {name}", { time, name: nameOf(g.to_move) }); }

  options() { return (app.state.private && app.state.private.options) || []; }

  static placeable(o) { return o.orientations.some((f) => f.places.length); }

  currentOption() {
    const opts = this.options();
    return opts.find((o) => o.shape === this.sel.shape && (o.take ? o.take.number : null) === this.sel.take) || opts.find(View.placeable) || opts[0] || null;
  }

  pick(shape, take) {
    const opts = this.options();
    if (take === undefined) {
      const o = opts.find((x) => x.shape === shape && View.placeable(x)) || opts.find((x) => x.shape === shape);
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
      const first = opts.find(View.placeable) || opts[0];
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
    if (g.stuck !== null) return last ? _("{name} rolled {roll}, which fits nowhere: the game ends.", { name: nameOf(g.stuck), roll: face(last.roll) }) : _("{name} rolled a piece, which fits nowhere: the game ends.", { name: nameOf(g.stuck) });
    if (g.clear_rows) return ngettext("A player reached the target of {n} point.", "A player reached the target of {n} points.", g.target);
    return _("The game is over.");
  }

  renderStatus() {
    const g = app.state.game;
    const myTurn = this.myTurn(app.state);
    if (g.over) this.status.replaceChildren(el("b", {}, _("Game over:")), " ", this.endReason(app.state));
    else if (myTurn && this.staged) {
      const p = { shape: this.staged.shape, where: where(this.staged.cells) };
      this.status.replaceChildren(el("b", {}, _("Confirm?")), " ", touchScreen() ? _("{shape} at {where} — tap it again or ✓ Confirm, or ↶ Undo", p) : _("{shape} at {where} — ✓ Confirm (Enter, or tap it again) or ↶ Undo (Esc)", p));
    }
    else if (myTurn && !this.placer.current()) {
      const o = this.currentOption();
      const tray = this.options().some(View.placeable);
      const text = o && o.take
        ? (tray ? _("no place fits stone #{number}: choose another piece in the tray.", { number: o.take.number }) : _("no place fits stone #{number}: choose another option.", { number: o.take.number }))
        : this.sel.shape
          ? (tray ? _("no place fits the {shape}: choose another piece in the tray.", { shape: this.sel.shape }) : _("no place fits the {shape}: choose another option.", { shape: this.sel.shape }))
          : (tray ? _("no place fits the piece: choose another piece in the tray.") : _("no place fits the piece: choose another option."));
      this.status.replaceChildren(el("b", {}, _("Your turn")), ` — ${text}`);
    } else if (myTurn) this.status.replaceChildren(el("b", {}, _("Your turn")), " — ", g.roll === "*" ? _("place the piece of your choice") : _("place the {shape}", { shape: g.roll }));
    else if (g.to_move === app.seat && seatResigned(app.seat)) this.status.replaceChildren(RESIGNED());
    else if (seatResigned(g.to_move)) this.status.replaceChildren(_("{name} resigned: the timer's bot plays for them…", { name: nameOf(g.to_move) }));
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
        const fits = opts.some((o) => o.shape === shape && View.placeable(o));
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
        el("td", {}, legend(i), el("span", { class: `dot ${seat.connected ? "on" : ""}`, role: "img", "aria-label": seat.connected ? _("online") : _("offline") }), playerName(i), seat.bot ? el("span", { class: "bot" }, _("bot")) : "", i === app.seat ? _(" (you)") : "", i === g.to_move && !g.over ? el("span", { class: "sr-only" }, _(" (to move)")) : "",
        g.tokens && g.tokens[i] && g.tokens[i].length ? el("div", { class: "muted tokens", style: "font-size:12px" }, _("point tokens: {shapes}", { shapes: g.tokens[i].join(" ") })) : ""),
        el("td", { class: "score" }, num(g.scores[i])), el("td", {}, num(g.rows_completed[i]))));
    });
    if (g.clear_rows) rows.push(el("tr", {}, el("td", { colspan: 3, class: "muted" }, ngettext("First to {n} point wins; completed rows are cleared.", "First to {n} points wins; completed rows are cleared.", g.target))));
    this.scores.replaceChildren(...rows);
    this.supply.replaceChildren(...(g.supply ? Object.entries(g.supply).map(([shape, n]) => el("span", { "data-supply": shape }, mini(shape), ` ${num(n)}`)) : [el("span", { class: "muted" }, _("unlimited"))]));
    const items = g.log.map((m, i) => {
      const n = g.log_start + i;
      const what = [el("b", {}, nameOf(m.player))];
      if (!m.place) what.push(" ", _("rolled {roll}, which fits nowhere: game over", { roll: face(m.roll) }));
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
    scrollToEnd(this.log);
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

// A replay of a dice game: one board, a step per move, the scores and the last move beside it.
export class Replay {
  constructor(first, players) {
    this.players = players;
    this.boards = [new BoardView(first.width, first.height, { label: _("dice board") })];
  }

  step(counts) { return _("move {step} / {total}", counts); }

  show(f, info) {
    const players = this.players;
    this.boards[0].render({ stones: f.stones, names: (i) => players[i] });
    const last = f.last;
    info.replaceChildren(el("h2", {}, _("Scores")),
      el("table", { class: "scores" }, ...players.map((p, i) => el("tr", { class: last && last.player === i ? "turn" : "" }, el("td", {}, p), el("td", { class: "score" }, num(f.scores[i]))))),
      el("p", { class: "muted", id: "replay-move" }, last ? [`${players[last.player]}: `, last.place ? [last.roll === "*" ? `★ → ${last.shape}` : mini(last.roll), " ", _("at {where}", { where: where(last.place) })] : _("rolled {roll}, no place: game over", { roll: face(last.roll) })] : _("Start of the game")),
      f.over ? el("p", {}, el("b", {}, _("Winners: {names}", { names: f.winners.map((i) => players[i]).join(", ") }))) : "");
  }
}
