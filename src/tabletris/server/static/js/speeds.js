// A room's speed and its times in words (docs/api.md "Speeds"), shared by the lobby, the room
// and the your-games page; and this browser's games (POST /api/me/games with the seat tokens it
// keeps, and the account's when logged in). The server decides every deadline: the page only
// counts down to the times it was sent.
import { _, api, ngettext, seats } from "./common.js";

// A span of time, as a choice or a speed names it: "90 s", "5 min", "24 h", "3 days".
export function span(seconds) {
  const s = Math.round(seconds);
  if (s % 86400 === 0 && s >= 2 * 86400) return ngettext("{n} day", "{n} days", s / 86400);
  if (s % 3600 === 0) return _("{n} h", { n: s / 3600 });
  if (s % 60 === 0 && s >= 120) return _("{n} min", { n: s / 60 });
  return _("{n} s", { n: s });
}

// Time left on a clock: m:ss under an hour, then hours and minutes, then days and hours.
export function duration(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 3600) return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  const days = Math.floor(s / 86400);
  const hours = Math.floor((s % 86400) / 3600);
  if (days) return _("{days} d {hours} h", { days, hours });
  return _("{hours} h {minutes} min", { hours, minutes: Math.floor((s % 3600) / 60) });
}

// A room's speed in a few words (the lobby's list, the room's head, your games).
export function speedText(speed) {
  if (!speed || speed.mode === "untimed") return _("Untimed");
  if (speed.mode === "turn") return _("Turn-based: {time} per move", { time: span(speed.per_move) });
  if (speed.initial !== undefined && speed.initial !== null) {
    return speed.increment
      ? _("Real-time: {time} + {increment} s per move", { time: span(speed.initial), increment: speed.increment })
      : _("Real-time: {time} each", { time: span(speed.initial) });
  }
  return _("Real-time: {time} per move", { time: span(speed.per_move) });
}

// The server's time: deadlines and clocks are in it, and this browser's clock may be off (or, in
// the tests, the server's moved ahead). ``syncClock`` asks once (GET /api/time, the round trip
// halved); ``serverNow`` is this browser's clock corrected by what it found.
let skew = 0;
export async function syncClock() {
  try {
    const sent = Date.now();
    const answer = await api("/api/time");
    skew = answer.now * 1000 - (sent + Date.now()) / 2;
  } catch { /* an older server: this browser's own clock */ }
}
export function serverNow() { return (Date.now() + skew) / 1000; }

// This browser's live games, those waiting for it first ({games, your_turn}); null when the
// server cannot say (an older server, a network error).
export async function yourGames() {
  try {
    return await api("/api/me/games", { method: "POST", body: { seats: seats.all().slice(-256) } });
  } catch {
    return null;
  }
}
