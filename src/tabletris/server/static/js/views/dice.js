// The dice game in the web client: the words the shared pages use for it (``names``), the moves
// the turn timer's bot played, and ``table()``, which loads its table in a room (``View``) and its
// replay frames (``Replay``) from dice_table.js. The room, the lobby, the rules and the replay
// pages load this module by the URL /api/meta gives for the game; the lobby and the rules page
// need only its words, so the table's code comes only where a table or a replay is drawn. Every
// game's module exports the same interface (see js/room.js).
import { _ } from "../common.js";
import { app } from "../table.js";

// The table (View) and the replay (Replay) of the game: loaded once, on first need.
export function table() { return import("./dice_table.js"); }

export const names = {
  title: _("Dice"),
  menu: _("Dice (shared board)"),
  heading: _("The dice game"),
  rulesLink: _("The dice game's rules page"),
};

// Each step of the guided first game (/tutorial/dice, by the step's name), as this page's controls
// do it: the step's own words (the engine's, shared with the terminal) name no control.
export const tutorialHints = {
  place: _("Click or tap a place on the board (⟳ Turn turns the piece), then ✓ Confirm. Keys: the arrows, R and Enter."),
  row: _("⟳ Turn lays the I flat. After ✓ Confirm, take the token the page suggests."),
  take: _("The stone to take is marked on the board; the tray lists any other you may take."),
};

// The moves of this seat that the turn timer's bot played: new log entries by this seat that
// the page did not send.
export function timerMoves(before, now) {
  const g = now.game;
  const found = [];
  (g.log || []).forEach((m, i) => {
    const n = g.log_start + i;
    if (m.player === app.seat && m.place && !app.mine.has(`dice:${n}`) && n >= before.game.log_start + before.game.log.length) {
      found.push({ id: `dice:${n}`, text: _("Time ran out: the timer's bot played your turn.") });
    }
  });
  return found;
}
