// A game's guided first game (/tutorial/<game>, issue 26 item 4): the room's own table (the game's
// view, js/views/*) on a one-seat game that the server rebuilds for every step from the moves
// kept so far (POST /api/tutorials/<game>: stateless, no room). Each answer says the step to show
// and whether the move was kept; the engine refuses a move in its own words. The step's words are
// the engine's (shared with the terminal); this page adds how its own controls do each step (the
// view's ``tutorialHints``). Nothing here decides a rule or a step.
import { _, announce, api, el, gameView, gameWords, header, meta, myName, tr } from "./common.js";
import { app } from "./table.js";

const game = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const STORE = `tabletris:tutorial:${game}`;
const lesson = { moves: [], answer: null };
const dom = {};

// The moves kept so far stay with this tab, so a reload goes on where the player was.
function remember() { try { sessionStorage.setItem(STORE, JSON.stringify(lesson.moves)); } catch { /* private mode */ } }
function remembered() { try { const m = JSON.parse(sessionStorage.getItem(STORE)); return Array.isArray(m) ? m : []; } catch { return []; } }

async function post(body) {
  return api(`/api/tutorials/${encodeURIComponent(game)}`, { method: "POST", body: { moves: lesson.moves, ...body } });
}

// The views' requests: a move goes to the server with the moves so far; a move the step takes
// back is refused like a move the engine refuses (the view takes its piece back and says why),
// and a query is answered as a room answers it.
async function local(message) {
  const { type, id, turn, round, ...rest } = message;
  if (type === "query") return (await post({ query: rest })).answer;
  if (type !== "move") throw new Error(_("Not in a tutorial."));
  const answer = await post({ move: rest });
  show(answer);
  if (!answer.kept) throw Object.assign(new Error(tr(answer.note)), { code: "taken_back" });
  return { type: "ack" };
}

function layout() {
  document.body.append(header());
  dom.main = el("main", { class: "room in-game tutorial" });
  dom.head = el("h2", { id: "tutorial-title", class: "room-title" }, _("Tutorial"));
  dom.step = el("p", { id: "tutorial-step" });
  dom.hint = el("p", { id: "tutorial-hint", class: "muted" });
  dom.note = el("p", { id: "tutorial-note", class: "hidden" });
  dom.end = el("div", { id: "tutorial-end", class: "hidden" });
  dom.panel = el("section", { class: "panel tutorial-panel", id: "tutorial", "aria-labelledby": "tutorial-title" },
    el("div", { class: "row" }, dom.head, el("span", { class: "grow" }),
      el("button", { class: "small", id: "tutorial-restart", onclick: () => restart() }, _("Start again")),
      el("a", { class: "button small", id: "tutorial-leave", href: "/" }, _("Leave the tutorial"))),
    dom.step, dom.hint, dom.note, dom.end);
  dom.table = el("div", { class: "table" });
  dom.main.append(dom.panel, dom.table);
  document.body.append(dom.main);
}

function show(answer) {
  lesson.answer = answer;
  lesson.moves = answer.moves;
  remember();
  const state = answer.state;
  // The seat is the player's: their name in this browser, else a word of the page's language.
  state.room.seats[0].name = myName() || _("Player");
  app.state = state;
  app.seat = state.you;
  const View = app.table.View;
  if (!(app.view instanceof View)) {
    app.view = new View();
    app.view.seat = app.seat;
    dom.table.replaceChildren(...app.view.nodes());
    dom.table.className = `table ${game}`;
  }
  app.view.update(state);
  showStep(answer);
}

function showStep(answer) {
  const { step, finished } = answer;
  const before = dom.step.dataset.step;
  dom.head.textContent = finished ? _("Tutorial: done") : _("Tutorial: step {k} of {n}", { k: step.index + 1, n: step.count });
  dom.step.classList.toggle("hidden", finished);
  dom.step.textContent = tr(step.text);
  dom.step.dataset.step = finished ? "done" : step.name;
  const hint = !finished && app.game && app.game.tutorialHints ? app.game.tutorialHints[step.name] : "";
  dom.hint.textContent = hint || "";
  dom.hint.classList.toggle("hidden", !hint);
  dom.note.className = answer.note ? (answer.kept ? "good" : "bad") : "hidden";
  dom.note.textContent = answer.note ? tr(answer.note) : "";
  if (finished) showEnd(answer);
  else dom.end.classList.add("hidden");
  if (before !== dom.step.dataset.step) {
    const said = finished ? dom.end.querySelector("#tutorial-ending").textContent : `${dom.head.textContent}. ${dom.step.textContent}`;
    announce([answer.kept && answer.note ? tr(answer.note) : "", said].filter(Boolean).join(" "));
  }
}

function showEnd(answer) {
  const result = app.view.endReason(app.state);
  dom.end.replaceChildren(
    el("p", { id: "tutorial-ending" }, el("b", {}, _(answer.ending, { result }).trim())),
    app.view.breakdown(app.state),
    el("div", { class: "row", style: "margin-top:12px" },
      el("a", { class: "button primary", id: "tutorial-play", href: "/" }, _("Play a game of your own")),
      el("a", { class: "button", href: `/rules#${encodeURIComponent(game)}` }, _("Read the rules")),
      el("button", { id: "tutorial-again", onclick: () => restart() }, _("Start again"))));
  dom.end.classList.remove("hidden");
}

async function restart() {
  lesson.moves = [];
  try { show(await post({})); } catch (e) { fail(e); }
}

// The game has no guided first game here (or the server cannot answer): said where the table would be.
function fail(e) {
  dom.step.textContent = e.message;
  dom.step.setAttribute("role", "alert");
  dom.hint.classList.add("hidden");
}

async function main() {
  layout();
  app.meta = await meta();
  app.local = local;
  const view = await gameView(game);
  if (!view) { fail(new Error(_("This game has no guided first game."))); return; }
  const [words, table] = await Promise.all([gameWords(game), view.table()]);
  [app.game, app.words, app.table] = [view, words, table];
  document.title = `${_("Tutorial")} · ${words.title} · tabletris`;
  lesson.moves = remembered();
  try {
    show(await post({}));
  } catch (e) {
    if (e.code !== "bad_tutorial") { fail(e); return; }
    // The moves kept in this tab are not this tutorial's any more (a new version): start again.
    lesson.moves = [];
    try { show(await post({})); } catch (again) { fail(again); }
  }
}

main().catch(fail);
