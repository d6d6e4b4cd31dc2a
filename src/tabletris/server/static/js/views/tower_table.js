// The tower game's table in a room (``View``) and its replay frames (``Replay``), loaded by
// tower.js's ``table()``. The server sends the legal drops and answers where minos land:
// nothing here decides a rule.
import { BoardView, _, announce, el, key, mini, ngettext, num, scrollToEnd, toast, tr, where } from "../common.js";
import { Placer } from "../placer.js";
import { RESIGNED, app, boardKey, legend, logItem, nameOf, playerName, request, seatResigned, viewPanel, winnersText } from "../table.js";

// An achievement card's title in the page's language (the engine's name for it, translated;
// in English the name itself); its id (as records and the API name it) only for a card without one.
function cardName(c) {
  if (!c) return "";
  return c.name ? tr(c.name) : c.id;
}

function cardById(id, g = app.state.game) { return (g.achievements || []).find((c) => c.id === id) || { id }; }

// What happened in round ``r`` of the log (each seat's action, the cards won), as nodes: the
// live log, the reveal announcement and the replay say it the same way. ``name(seat)`` names a seat.
function roundText(r, name, g) {
  const parts = [];
  r.actions.forEach((a, i) => {
    const who = el("b", {}, name(i));
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
    const names = won.seats.map(name).reduce((a, b) => _("{a} and {b}", { a, b }));
    parts.push(" · " + _("{names} won achievement {card} ({points} points)", { names, card: cardName(cardById(won.id, g)), points: won.points.join(", ") }));
  }
  return parts;
}

// A tower's hold: the card held, or used, or free.
function holdWord(t) {
  if (!t.hold_used) return _("free");
  return t.held || _("used");
}


export class View {
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
    this.mine = el("div", { class: "board-box" });
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

  // The turn clock's words: the seconds left are the round's, for everyone still choosing.
  clockText(time) { return _("{time} left for this round", { time }); }

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
      this.cols.style.setProperty("--h", g.height);
      this.cols.replaceChildren(...Array.from({ length: g.width }, (_c, x) => el("button", { class: "small", "data-col": x, "aria-label": _("drop a mino in column {n}", { n: x + 1 }), title: _("drop a mino in column {n}", { n: x + 1 }), onclick: () => this.addMino(x) }, "▼")));
      this.placer.draggable(this.cards);
    }
    if (g.round !== this.round) {
      if (this.round !== -1 && g.rounds_played > 0) {
        const last = g.log[g.log.length - 1];
        const revealed = _("Round {round} revealed.", { round: last ? last.round : 0 });
        if (last) announce(revealed + " " + roundText(last, nameOf, g).map((x) => (typeof x === "string" ? x : x.textContent)).join(""));
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
    // A card that is not there (the end of the deck) is not drawn as an empty card.
    this.cards.replaceChildren(
      g.play ? el("div", { class: `playcard${held ? " held" : ""}`, id: "play-card", role: "img", "aria-label": held ? _("PLAY card: {shape}, held by you", { shape: g.play }) : _("PLAY card: {shape}", { shape: g.play }) }, mini(g.play), held ? _("HELD") : _("PLAY")) : "",
      g.next ? el("div", { class: "playcard next", id: "next-card", role: "img", "aria-label": _("NEXT card: {shape}", { shape: g.next }) }, mini(g.next), _("NEXT")) : "",
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

  // The status line says the move is in (and whom the round waits for); nothing is said once the
  // round it was for is over (the reveal may come before the server's answer).
  async submit(action) {
    const round = app.state.game.round;
    const shape = app.state.game.play;
    try {
      app.mine.add(`tower:${round}`);
      await request({ type: "move", ...action, round });
      if (app.state.game.round === round && !app.state.game.over) announce(action.hold ? _("You hold the {shape}: waiting for the others", { shape }) : _("Drop submitted: waiting for the others"));
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
    } else if (seatResigned(mySeat)) {
      this.status.replaceChildren(RESIGNED());
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
    // The buttons are built anew with every state (another player's drop sends one): the one a
    // keyboard player had reached keeps the focus, which would fall to the page otherwise.
    const focused = this.actions.contains(document.activeElement) ? document.activeElement.id : "";
    this.actions.replaceChildren(...items);
    if (focused) { const again = document.getElementById(focused); if (again) again.focus(); }
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

  renderSide(s) {
    const g = s.game;
    const rows = [el("tr", {}, el("th", {}, _("Player")), el("th", {}, _("Rows")), el("th", {}, _("Bonus")), el("th", {}, _("Cards")), el("th", {}, _("Total")))];
    g.towers.forEach((t, i) => {
      const ach = Object.values(t.score.achievements).reduce((a, b) => a + b, 0);
      rows.push(el("tr", { class: `${i === app.seat ? "me" : ""}`, "data-seat": i },
        el("td", {}, legend(i), el("span", { class: `dot ${s.room.seats[i].connected ? "on" : ""}`, role: "img", "aria-label": s.room.seats[i].connected ? _("online") : _("offline") }), playerName(i), s.room.seats[i].bot ? el("span", { class: "bot" }, _("bot")) : "", t.out ? _(" (out)") : "",
          el("div", { class: "muted", style: "font-size:12px" }, _("minos {n} · hold {hold}", { n: t.minos, hold: holdWord(t) }))),
        el("td", {}, `${num(t.score.lines)}×2`), el("td", {}, num(t.score.bonus)), el("td", {}, num(ach)), el("td", { class: "score" }, el("b", {}, num(t.score.total)))));
    });
    this.scores.replaceChildren(...rows);
    this.log.replaceChildren(...g.log.map((r) => logItem(r.round - 1, [el("b", {}, _("Round {round}", { round: r.round }), " "), mini(r.card), ": ", ...roundText(r, nameOf, g)], `tower:${r.round}`, r.actions[app.seat] || {})));
    scrollToEnd(this.log);
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

// A replay of a tower game: every seat's tower, a step per round, the cards and the scores.
export class Replay {
  constructor(first, players) {
    this.players = players;
    this.boards = first.towers.map((_t, i) => new BoardView(first.width, first.height, { label: _("{name}'s tower", { name: players[i] }), small: first.towers.length > 2 }));
  }

  // Step k shows the towers after k rounds: "round k / n" above, "After round k" and what
  // happened in it beside them.
  step(counts) { return _("round {step} / {total}", counts); }

  show(f, info) {
    const players = this.players;
    const name = (k) => players[k];
    f.towers.forEach((t, i) => {
      this.boards[i].render({ stones: t.stones, icons: t.icons, names: name });
      document.querySelector(`[data-caption="${i}"]`).textContent = `${players[i]} · ${num(t.score.total)}${t.out ? _(" (out)") : ""}`;
    });
    const played = f.rounds_played;
    const last = played && f.log && f.log.length ? f.log[f.log.length - 1] : null;
    const title = played ? _("After round {round}", { round: played }) : _("Start of the game");
    info.replaceChildren(el("h2", {}, f.over ? [_("Final"), " · ", title] : title),
      el("p", { class: "muted", id: "replay-move" }, last && last.round === played ? [last.card ? mini(last.card) : "", " ", ...roundText(last, name, f)] : ""),
      el("p", {}, f.play ? [_("PLAY"), " ", mini(f.play)] : "", f.next ? [" · ", _("NEXT"), " ", mini(f.next)] : ""),
      el("table", { class: "scores" }, el("tr", {}, el("th", {}, _("Player")), el("th", {}, _("Rows")), el("th", {}, _("Bonus")), el("th", {}, _("Total"))),
        ...f.towers.map((t, i) => el("tr", { class: f.winners.includes(i) ? "turn" : "" }, el("td", {}, players[i]), el("td", {}, t.score.lines), el("td", {}, t.score.bonus), el("td", {}, el("b", {}, t.score.total))))));
  }
}
