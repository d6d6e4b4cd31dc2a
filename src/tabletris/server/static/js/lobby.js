// The lobby: Play now (js/playnow.js), the open tables with their filters, games in play and
// recent games (js/lobby_lists.js), and the create-room form built from /api/meta (every game,
// every rule option with the engine's help text, the bots each game offers). A game's own module
// (its view) gives its words and any choice a seat makes on sitting down; nothing here names a game.
import { _, api, choiceOptions, el, footer, gameView, gameWords, header, me, meta, myName, ngettext, num, rememberName, seats, toast, tr, valueName } from "./common.js";
import { formRow, otherPeople, seatEveryone } from "./hotseat.js";
import { lobbyLists } from "./lobby_lists.js";
import { playNowPanel } from "./playnow.js";
import { span, yourGames } from "./speeds.js";

// This server's speeds: the bounds of each time and what a blank field gets (the server writes
// them on the page: <html data-timer-min ...>).
function speedLimits() {
  const d = document.documentElement.dataset;
  const n = (v, fallback) => (v !== undefined && v !== "" && Number.isFinite(Number(v)) ? Number(v) : fallback);
  return {
    min: n(d.timerMin, 10), max: n(d.timerMax, 600), fallback: n(d.timerDefault, 60),
    clockMin: n(d.clockMin, 30), clockMax: n(d.clockMax, 10800), incrementMax: n(d.incrementMax, 300),
    turnMin: n(d.turnMin, 3600), turnMax: n(d.turnMax, 1209600), expelAfter: n(d.expelAfter, 604800),
  };
}

// What a blank clock field gets: 5 minutes each, 5 seconds more per move.
const CLOCK_MINUTES = 5;
const CLOCK_INCREMENT = 5;
const TURN_TIMES = [12 * 3600, 86400, 2 * 86400, 3 * 86400, 7 * 86400];

// The speed part of the create form: a mode, then that mode's times. Every field says what a
// blank one gets, and a blank one gets exactly that (the per-move field left at its placeholder
// "60" gives 60 s; "Untimed" is its own choice).
function speedFields(limits) {
  const turns = TURN_TIMES.filter((t) => t >= limits.turnMin && t <= limits.turnMax);
  const mode = el("select", { id: "speed", "aria-describedby": "speed-help" },
    el("option", { value: "move" }, _("Real-time: a time per move")),
    el("option", { value: "clock" }, _("Real-time: a clock per player")),
    el("option", { value: "turn" }, _("Turn-based: hours or days per move")),
    el("option", { value: "untimed" }, _("Untimed")));
  const help = el("span", { class: "muted", id: "speed-help", style: "font-size:12px" });
  const part = (name, ...children) => el("span", { class: "row speed-part", "data-speed": name }, ...children);
  const parts = [
    part("move",
      el("label", { for: "timer" }, _("Seconds per move")),
      el("input", { id: "timer", type: "number", min: limits.min, max: limits.max, step: "any", placeholder: num(limits.fallback), style: "width:90px" })),
    part("clock",
      el("label", { for: "clock-minutes" }, _("Minutes each")),
      el("input", { id: "clock-minutes", type: "number", min: limits.clockMin / 60, max: limits.clockMax / 60, step: "any", placeholder: num(CLOCK_MINUTES), style: "width:80px" }),
      el("label", { for: "clock-increment" }, _("Seconds added per move")),
      el("input", { id: "clock-increment", type: "number", min: 0, max: limits.incrementMax, step: "any", placeholder: num(CLOCK_INCREMENT), style: "width:80px" })),
    part("turn",
      el("label", { for: "turn-time" }, _("Time per move")),
      el("select", { id: "turn-time" }, ...turns.map((t) => el("option", { value: t }, span(t))))),
  ];
  const turnSelect = parts[2].querySelector("select");
  if (turns.includes(86400)) turnSelect.value = "86400";
  const show = () => {
    for (const p of parts) {
      const hidden = p.dataset.speed !== mode.value;
      p.classList.toggle("hidden", hidden);
      for (const input of p.querySelectorAll("input, select")) input.disabled = hidden;  // not checked, not sent
    }
    help.textContent = {
      move: _("{min} to {max} s for each turn, then a bot plays it; blank: {fallback} s", { min: limits.min, max: limits.max, fallback: limits.fallback }),
      clock: _("each player's clock runs on their turns only; out of time, a bot plays the seat; blank: {minutes} min + {seconds} s", { minutes: CLOCK_MINUTES, seconds: CLOCK_INCREMENT }),
      turn: _("come back when it is your turn; when the time is up, a bot plays the turn"),
      untimed: _("nothing runs out; the others may expel a player who has not moved for {time}", { time: span(limits.expelAfter) }),
    }[mode.value];
  };
  mode.addEventListener("change", show);
  show();
  // The speed the form says, blank fields as their placeholders.
  const value = () => {
    const number = (id, fallback) => {
      const v = row.querySelector(`#${id}`).value.trim();
      return v === "" ? fallback : Number(v);
    };
    if (mode.value === "untimed") return { mode: "untimed" };
    if (mode.value === "turn") return { mode: "turn", per_move: Number(turnSelect.value) };
    if (mode.value === "clock") return { mode: "realtime", initial: number("clock-minutes", CLOCK_MINUTES) * 60, increment: number("clock-increment", CLOCK_INCREMENT) };
    return { mode: "realtime", per_move: number("timer", limits.fallback) };
  };
  const row = el("div", { class: "row", id: "speed-row" }, el("label", { for: "speed" }, _("Speed")), mode, ...parts, help);
  return { row, value };
}

const state = { meta: null, game: null, views: {}, words: {} };

function ruleInput(opt, preset) {
  const value = preset[opt.name];
  const id = `rule-${opt.name}`;
  let input;
  if (typeof opt.default === "boolean" || (opt.default === null && typeof value === "boolean")) {
    input = el("select", { id, "data-rule": opt.name, "data-kind": "json" },
      el("option", { value: "null" }, _("default")), el("option", { value: "true" }, _("on")), el("option", { value: "false" }, _("off")));
    input.value = value === null || value === undefined ? "null" : String(value);
  } else if (opt.choices && opt.choices.length) {
    // The engine's values stay the record's; the list shows each by its name in the page's language.
    input = el("select", { id, "data-rule": opt.name, "data-kind": "json" },
      ...opt.choices.map((c) => el("option", { value: JSON.stringify(c) }, valueName(c))));
    input.value = JSON.stringify(value ?? opt.default);
  } else if (typeof opt.default === "number") {
    input = el("input", { id, type: "number", "data-rule": opt.name, "data-kind": "json", value: value ?? "" });
  } else {
    input = el("input", { id, type: "text", "data-rule": opt.name, "data-kind": "json", value: JSON.stringify(value) });
  }
  input.dataset.initial = input.value;
  return el("div", { class: "rule" }, el("label", { for: id, title: opt.name }, tr(opt.label || opt.name)), input, el("div", { class: "help" }, tr(opt.help)));
}

function renderRules(box) {
  const g = state.meta.games[state.game];
  const presetSel = box.querySelector("#preset");
  const preset = g.presets[presetSel.value] || {};
  const opts = box.querySelector("#options");
  opts.replaceChildren(...g.options.map((o) => ruleInput(o, preset)));
}

// A seat of the new room: open for a person, or one of the bots the chosen game offers.
function seatRow(i, kind = "open") {
  const bots = state.meta.games[state.game].bots;
  const sel = el("select", { "data-seat": i, "aria-label": _("seat {n}", { n: i + 1 }) },
    el("option", { value: "open" }, _("Open seat (a person)")),
    ...bots.map((b) => el("option", { value: b }, _("Bot: {name}", { name: tr(b) }))));
  sel.value = kind;
  const strength = el("input", { type: "number", min: 0, max: 1, step: 0.1, placeholder: _("strength"), "aria-label": _("bot strength (0 to 1)"), "data-strength": i, style: "width:100px" });
  return el("div", { class: "seat-edit" }, el("span", { class: "muted" }, _("Seat {n}", { n: i + 1 })), sel, strength);
}

// The seats' rows, keeping each seat's choice where the game offers it (a game chosen after the
// seats were set may not offer every bot).
function renderSeats(box, count) {
  const list = box.querySelector("#seats");
  const old = [...list.querySelectorAll("select")].map((s) => s.value);
  const offered = new Set(["open", ...state.meta.games[state.game].bots]);
  const fresh = (i) => (i < 2 || !offered.has("random") ? "open" : "random");
  const rows = [];
  for (let i = 0; i < count; i++) rows.push(seatRow(i, offered.has(old[i]) ? old[i] : fresh(i)));
  list.replaceChildren(...rows);
}

// What the game asks of a seat on sitting down (the tower game: a tower and its end); null for none.
function seatChoice() {
  const view = state.views[state.game];
  return view && view.seatChoice ? view.seatChoice(state.meta.games[state.game]) : null;
}

function createForm(who) {
  const g = () => state.meta.games[state.game];
  const speed = speedFields(speedLimits());
  const box = el("form", { class: "panel", id: "create" },
    el("h2", {}, _("New room")),
    el("div", { class: "row" },
      el("label", { for: "game" }, _("Game")),
      el("select", { id: "game" }, ...Object.keys(state.meta.games).map((name) => el("option", { value: name }, state.words[name].menu))),
      el("label", { for: "preset" }, _("Preset")),
      el("select", { id: "preset" }),
      el("label", { for: "count" }, _("Seats")),
      el("input", { id: "count", type: "number", min: 1, max: 8, value: 2, style: "width:64px" })),
    el("div", { id: "seats" }),
    speed.row,
    el("details", {}, el("summary", {}, _("House rules (every option, with the rule text)")), el("div", { id: "options" })),
    el("div", { class: "row hidden", id: "seat-choice" }),
    // Logged in: the seat is the account's (named by its username), and the room may be rated.
    who ? el("div", { class: "row" },
      el("label", { class: "check", for: "rated" }, el("input", { type: "checkbox", id: "rated", "aria-describedby": "rated-help" }), " ", _("Rated game")),
      el("span", { class: "muted", id: "rated-help", style: "font-size:12px" }, _("standard rules, a timed speed, accounts and full-strength bots only; the result changes the ratings"))) : "",
    el("div", { class: "row" },
      who ? el("span", { id: "create-as" }, _("You sit down as {name}.", { name: who.username }))
        : [el("label", { for: "myname" }, _("Your name")), el("input", { id: "myname", maxlength: 24, value: myName(), placeholder: _("Ann"), required: true })],
      el("button", { class: "primary", type: "submit", id: "create-btn" }, _("Create and sit down"))));
  // Pass and play: every person at this device sits here (js/hotseat.js).
  box.insertBefore(formRow(box), box.querySelector("#create-btn").closest(".row"));
  const presetSel = box.querySelector("#preset");
  const fillPresets = () => {
    presetSel.replaceChildren(...Object.keys(g().presets).map((p) => el("option", { value: p, title: g().preset_help && g().preset_help[p] ? tr(g().preset_help[p]) : null }, valueName(p))));
    box.querySelector("#count").min = g().min_seats;
    box.querySelector("#count").max = g().max_seats;
    const choice = seatChoice();
    const row = box.querySelector("#seat-choice");
    row.classList.toggle("hidden", !choice);
    row.replaceChildren(...(choice ? [el("label", { for: `my${choice.field}` }, choice.yours), el("select", { id: `my${choice.field}` }, ...choiceOptions(choice))] : []));
    renderRules(box);
  };
  const seatCount = () => Math.max(g().min_seats, Math.min(g().max_seats, Number(box.querySelector("#count").value) || 1));
  box.querySelector("#game").addEventListener("change", (e) => { state.game = e.target.value; fillPresets(); renderSeats(box, seatCount()); });
  presetSel.addEventListener("change", () => renderRules(box));
  box.querySelector("#count").addEventListener("input", () => renderSeats(box, seatCount()));
  box.addEventListener("submit", async (e) => {
    e.preventDefault();
    const nameInput = box.querySelector("#myname");
    const name = who ? who.username : nameInput.value.trim();
    const rules = { preset: presetSel.value };
    // A room with an open seat seats its creator: a name is asked before the room exists (a
    // name of spaces is no name), so no room is made that nobody sits in.
    if (!name && [...box.querySelectorAll("#seats .seat-edit select")].some((s) => s.value === "open")) {
      nameInput.value = "";
      nameInput.focus();
      toast(_("Type your name to take a seat."));
      return;
    }
    const here = otherPeople(box, name);
    if (here && here.error) { toast(here.error); return; }
    if (here && who && box.querySelector("#rated").checked) { toast(_("A rated game is played by accounts, each on their own device: not by pass and play.")); return; }
    try {
      for (const input of box.querySelectorAll("[data-rule]")) {
        if (input.value === input.dataset.initial) continue;
        const raw = input.value.trim();
        if (raw === "" || raw === "null") continue;
        try { rules[input.dataset.rule] = JSON.parse(raw); } catch { rules[input.dataset.rule] = raw; }
      }
      const seatSpecs = [...box.querySelectorAll("#seats .seat-edit")].map((row) => {
        const kind = row.querySelector("select").value;
        const s = row.querySelector("[data-strength]").value;
        return kind === "open" ? { kind } : { kind, strength: s === "" ? null : Number(s) };
      });
      const body = { game: state.game, rules, seats: seatSpecs, speed: speed.value() };
      if (who && box.querySelector("#rated").checked) body.rated = true;
      const room = await api("/api/rooms", { method: "POST", body });
      if (room.seats.some((s) => s.open)) {
        if (!name) { toast(_("Type your name to take a seat.")); return; }
        if (!who) rememberName(name);
        const body = { name };
        const choice = seatChoice();
        const chosen = choice && box.querySelector(`#my${choice.field}`).value;
        if (chosen) body[choice.field] = chosen;
        const joined = await api(`/api/rooms/${room.id}/join`, { method: "POST", body });
        seats.set(room.id, { seat: joined.seat, token: joined.token, name });
        if (here) await seatEveryone(room.id, { seat: joined.seat, token: joined.token, name }, here.people);
      }
      location.href = `/room/${room.id}`;
    } catch (err) {
      toast(err.message);
    }
  });
  fillPresets();
  renderSeats(box, 2);
  return box;
}

// The guided first games, offered on this browser's first visit to the lobby: once (remembered
// here), beside the page rather than over it, and dismissed with one click. The rules page
// offers them always. The server names the games that have one (/api/meta's ``tutorial``).
const OFFERED = "tabletris:tutorial-offered";
function tutorialOffer() {
  const games = Object.entries(state.meta.games).filter(([, g]) => g.tutorial);
  let seen = true;
  try { seen = Boolean(localStorage.getItem(OFFERED)); localStorage.setItem(OFFERED, "1"); } catch { /* private mode: no offer */ }
  if (seen || !games.length) return "";
  const box = el("section", { class: "panel tutorial-offer", id: "tutorial-offer", "aria-labelledby": "tutorial-offer-title" },
    el("div", { class: "row" },
      el("h2", { id: "tutorial-offer-title", style: "flex:1" }, _("New here? Learn a game by playing it")),
      el("button", { class: "small", id: "tutorial-offer-close", "aria-label": _("No, thanks: hide this"), title: _("No, thanks"), onclick: () => box.remove() }, "×")),
    el("p", {}, _("A guided first game takes a few minutes: each step says what to do, and the game checks it.")),
    el("div", { class: "row" }, ...games.map(([name, g]) => el("a", { class: "button", href: g.tutorial }, _("Guided first game: {game}", { game: state.words[name].title })))));
  return box;
}

// The header's link to your games, saying how many wait for your move (this browser's seats and,
// logged in, the account's).
// A phone's header has no room for the words: there it shows only the count, when a game waits
// (the menu holds the link).
function yourGamesLink() {
  const wide = el("span", { class: "wide-only" }, _("Your games"));
  const phone = el("span", { class: "phone-only", "aria-hidden": "true" });
  const link = el("a", { href: "/games", id: "your-games", class: "your-games none-waiting" }, wide, phone);
  const count = async () => {
    const found = await yourGames();
    if (!found) return;
    const n = found.your_turn;
    const words = n ? ngettext("Your games: {n} waits for you", "Your games: {n} wait for you", n) : _("Your games");
    wide.textContent = words;
    phone.textContent = `▶ ${n}`;
    link.setAttribute("aria-label", words);
    link.classList.toggle("waiting", n > 0);
    link.classList.toggle("none-waiting", n === 0);
    link.dataset.yourTurn = String(n);
  };
  return { link, count };
}

async function main() {
  const top = header();
  const yours = yourGamesLink();
  top.querySelector(".grow").after(yours.link);
  document.body.append(top);
  yours.count();
  let who;
  [state.meta, who] = await Promise.all([meta(), me()]);
  const games = Object.keys(state.meta.games);
  await Promise.all(games.map(async (name) => { state.views[name] = await gameView(name); state.words[name] = await gameWords(name); }));
  state.game = games[0];
  const lists = lobbyLists(state.meta);
  const mainEl = el("main", {}, tutorialOffer(),
    el("div", { class: "lobby" },
      lists.panel,
      el("div", { class: "lobby-side" }, playNowPanel(state.meta, who, state.words), createForm(who))));
  // The page shows once the room lists are in: a list that filled in later pushed the form below
  // it down on a phone (a layout shift, and a moving target for whoever was typing).
  await lists.refresh();
  document.body.append(mainEl, footer());
  if (new URLSearchParams(location.search).get("deleted")) toast(_("Your account is deleted."), "info");
  setInterval(lists.refresh, 5000);
  setInterval(yours.count, 15000);
}

main();
