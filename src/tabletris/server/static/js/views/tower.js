// The tower game in the web client: the words the shared pages use for it (``names``), a seat's
// tower choice on sitting down (``seatChoice``), the rounds the turn timer's bot played, and
// ``table()``, which loads its table in a room (``View``) and its replay frames (``Replay``) from
// tower_table.js. Loaded by the URL /api/meta gives for the game; the lobby and the rules page
// need only its words. Every game's module exports the same interface (see js/room.js).
import { _ } from "../common.js";
import { app } from "../table.js";

// The table (View) and the replay (Replay) of the game: loaded once, on first need.
export function table() { return import("./tower_table.js"); }

export const names = {
  title: _("Tower"),
  menu: _("Tower (private towers)"),
  heading: _("The tower game"),
  rulesLink: _("The tower game's rules page"),
};

// Each step of the guided first game (/tutorial/tower, by the step's name), as this page's controls
// do it: the step's own words (the engine's, shared with the terminal) name no control.
export const tutorialHints = {
  icons: _("Point at the left wall of your tower and click or tap there, or use the arrows and Drop."),
  card: _("Point beside the first O and click or tap there, or use the arrows and Drop."),
  minos: _("Press a column's ▼ to drop a mino there, then drop the T."),
  hold: _("Press Hold (once)."),
};

// The seat's tower and bottom end, chosen on sitting down (the engine checks the choice; "b" is
// "a" turned 180°): the join request's field, the choice's labels (``yours`` where the player
// creates the room) and its options. In a room, a tower another seat chose (either end) is not offered: each player has a
// tower of their own. Null when the game offers no towers to choose.
const towerNumber = (choice) => String(choice).replace(/[^0-9]/g, "");
export function seatChoice(game, room = null) {
  const towers = game.towers || [];
  if (!towers.length) return null;
  const taken = new Set(room ? room.seats.filter((s) => s.tower).map((s) => towerNumber(s.tower)) : []);
  return {
    field: "tower",
    label: _("Tower and bottom end"),
    yours: _("Your tower and bottom end"),
    options: [["", _("Any free tower (drawn)")],
      ...towers.filter((n) => !taken.has(towerNumber(n))).map((n) => [n, _("Tower {tower}, end {end}", { tower: towerNumber(n), end: n.replace(/[0-9]/g, "") })])],
  };
}

// The rounds the turn timer's bot played for this seat: revealed rounds with an action of this
// seat that the page did not send, while the seat had still to choose.
export function timerMoves(before, now) {
  const found = [];
  for (const m of now.game.log || []) {
    const chose = before.private && !before.private.forced && !before.private.pending && before.game.round === m.round;
    if (chose && m.actions[app.seat] && !app.mine.has(`tower:${m.round}`)) {
      found.push({ id: `tower:${m.round}`, text: _("Time ran out: the timer's bot played your round.") });
    }
  }
  return found;
}
