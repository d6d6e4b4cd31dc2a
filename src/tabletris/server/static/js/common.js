// Shared helpers: the API, seat tokens in localStorage, shapes drawn small, toasts, the board grid.
// No game rule lives here: legality always comes from the server's state and error messages.
// Every word a player reads goes through _()/ngettext() (js/i18n.js: the gettext catalogs).
import { _, errorText, languageMenu, N_, tr, valueName } from "./i18n.js";

export { _, ngettext, num, tr, trMessage, errorText, valueName } from "./i18n.js";

export const SHAPES = ["I", "O", "T", "S", "Z", "J", "L", "M"];

// The spawn cells of each shape, only to draw a small icon of it (not for any rule).
const ICON_CELLS = {
  I: [[0, 0], [1, 0], [2, 0], [3, 0]], O: [[0, 0], [1, 0], [0, 1], [1, 1]],
  T: [[0, 0], [1, 0], [2, 0], [1, 1]], S: [[0, 0], [1, 0], [1, 1], [2, 1]],
  Z: [[1, 0], [2, 0], [0, 1], [1, 1]], J: [[0, 0], [1, 0], [2, 0], [0, 1]],
  L: [[0, 0], [1, 0], [2, 0], [2, 1]], M: [[0, 0]],
};

export async function api(path, options = {}) {
  const init = { ...options, headers: { ...(options.headers || {}) } };
  if (options.body !== undefined && typeof options.body !== "string") {
    init.body = JSON.stringify(options.body);
    init.headers["Content-Type"] = "application/json";
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = new Error((data && (errorText(data) || data.detail)) || `HTTP ${res.status}`);
    err.english = data && data.message;
    err.code = data && data.error;
    err.status = res.status;
    // A rate limit's wait (seconds), for "try again in N s".
    const wait = Number(res.headers.get("Retry-After"));
    if (Number.isFinite(wait) && wait > 0) err.retryAfter = wait;
    throw err;
  }
  return data;
}

// The logged-in account ({id, username, created}) or null for a guest, asked once per page. The
// server marks a page requested with a session cookie (<html data-session>): a guest's page asks
// nothing (no 401 in every guest's console), and a cookie that has expired is found out here.
let mePromise = null;
export function me() {
  if (!mePromise) {
    mePromise = document.documentElement.dataset.session === undefined ? Promise.resolve(null)
      : api("/api/me").catch(() => null);
  }
  return mePromise;
}

// Where a login or a register page sends the player back to: this page.
export function here() { return location.pathname + location.search; }

// A path of this site to go to after logging in (``next=``), never another site's address.
export function safeNext(value) {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") ? value : "/";
}

export const profileHref = (username) => `/players/${encodeURIComponent(username)}`;

export async function logout() {
  try { await api("/api/auth/logout", { method: "POST" }); } catch { /* the session is gone either way */ }
  location.href = "/";
}

let metaPromise = null;
let games = {};
export function meta() {
  if (!metaPromise) metaPromise = api("/api/meta").then((m) => { applyColours(m.colours); games = m.games; return m; });
  return metaPromise;
}

// Each game's own module of the web client (js/views/<game>.js: its table, its replay frames,
// its words), loaded once from the URL /api/meta gives; null for a game the web client has no
// view of. The shared pages ask it and name no game themselves.
const views = new Map();
export function gameView(name) {
  if (!views.has(name)) {
    views.set(name, meta().then((m) => {
      const url = m.games[name] && m.games[name].view;
      return url ? import(url) : null;
    }));
  }
  return views.get(name);
}

// The words the shared pages use for a game: its view's ``names`` (the room's title, the lobby's
// menu, the rules page's heading and link), else the game's title from its spec, translated.
export async function gameWords(name) {
  const view = await gameView(name);
  const title = games[name] ? tr(games[name].title) : name;
  return { title, menu: title, heading: title, rulesLink: _("Rules"), ...(view ? view.names : {}) };
}

// A game's seat choice (its view's ``seatChoice``: {field, label, yours, options}) as the
// options of a <select>.
export function choiceOptions(choice) { return choice.options.map(([value, text]) => el("option", { value }, text)); }

// Shape.colour names map to the theme's CSS variables (--cyan, --yellow, ...).
export function applyColours(colours) {
  const style = document.documentElement.style;
  for (const [shape, name] of Object.entries(colours || {})) style.setProperty(`--shape-${shape}`, `var(--${name})`);
  const sheet = document.createElement("style");
  sheet.textContent = Object.keys(colours || {}).map((s) =>
    `.s-${s}{background:var(--shape-${s})}.t-${s}{color:var(--shape-${s})}`).join("");
  document.head.appendChild(sheet);
}

export const seats = {
  get(room) { try { return JSON.parse(localStorage.getItem(`tabletris:seat:${room}`)); } catch { return null; } },
  set(room, value) { localStorage.setItem(`tabletris:seat:${room}`, JSON.stringify(value)); },
  drop(room) { localStorage.removeItem(`tabletris:seat:${room}`); },
  // Every seat token this browser keeps ({room, token}): a guest's games, a seat claim.
  all() {
    const found = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith("tabletris:seat:")) continue;
      try {
        const value = JSON.parse(localStorage.getItem(key));
        if (value && value.token) found.push({ room: key.slice("tabletris:seat:".length), token: value.token });
      } catch { /* not one of ours */ }
    }
    return found;
  },
};

// The words for a game (its spec's label, from /api/meta once loaded), a room's status and a
// rule value, as the pages show them.
const STATUS_NAMES = { waiting: N_("waiting"), playing: N_("playing"), over: N_("over"), abandoned: N_("abandoned"), stopped: N_("stopped"), expired: N_("expired"), broken: N_("broken") };
export const gameName = (g) => (games[g] ? tr(games[g].label) : g);
export const statusName = (s) => (STATUS_NAMES[s] ? _(STATUS_NAMES[s]) : s);
export const ruleValue = (v) => (v === null || v === undefined ? _("default") : typeof v === "boolean" ? (v ? _("on") : _("off")) : Array.isArray(v) ? v.map((x) => valueName(String(x))).join(" ") : valueName(String(v)));

// An engine text of several paragraphs (a rules summary): translated whole when the catalog has
// it so, else paragraph by paragraph.
export function trBlocks(text) {
  const whole = tr(text);
  if (whole !== text) return whole;
  const one = (part) => { const m = part.match(/^(\s*)([\s\S]*?)(\s*)$/); return m[1] + tr(m[2]) + m[3]; };
  return text.split(/(\n\s*\n)/).map((part, i) => (i % 2 ? part : one(part))).join("");
}

// Scrolls a list to its end once the page has been laid out: reading its height while the page
// is still being built would lay the whole page out once more (the longest task of a room's
// first paint, issue 27).
export function scrollToEnd(node) {
  if (node.dataset.scrollPending) return;
  node.dataset.scrollPending = "1";
  requestAnimationFrame(() => { delete node.dataset.scrollPending; node.scrollTop = node.scrollHeight; });
}

// A touch screen (the primary pointer is a finger): key and wheel hints are not shown there.
export function touchScreen() { return Boolean(window.matchMedia && window.matchMedia("(pointer: coarse)").matches); }

export function myName() { return localStorage.getItem("tabletris:name") || ""; }
export function rememberName(name) { localStorage.setItem("tabletris:name", name); }

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "html") node.innerHTML = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  // Children may nest in arrays at any depth (a line built from parts, some of them lists).
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}

export function mini(shape, cells = null) {
  const pts = cells || ICON_CELLS[shape] || [[0, 0]];
  const w = 1 + Math.max(...pts.map((c) => c[0]));
  const h = 1 + Math.max(...pts.map((c) => c[1]));
  const box = el("span", { class: "mini", role: "img", "aria-label": _("{shape} piece", { shape }) });
  box.style.gridTemplateColumns = `repeat(${w}, auto)`;
  const on = new Set(pts.map(([x, y]) => `${x},${y}`));
  for (let y = h - 1; y >= 0; y--) for (let x = 0; x < w; x++) box.append(el("i", { class: on.has(`${x},${y}`) ? `s-${shape}` : "off" }));
  return box;
}

let toastTimer = null;
export function toast(message, kind = "error") {
  let t = document.querySelector(".toast");
  if (!t) { t = el("div", { class: "toast", role: kind === "info" ? "status" : "alert" }); document.body.append(t); }
  t.className = `toast ${kind === "info" ? "info" : ""}`;
  t.textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.remove(), kind === "info" ? 2500 : 5000);
}

export function header() {
  const logo = el("span", { class: "logo" }, ...["T", "T", "T", "", "T", ""].map((s) => el("i", { class: s ? "s-T" : "" })));
  const account = el("span", { class: "account-nav", id: "account-nav" });
  me().then((who) => account.replaceChildren(...accountLinks(who)));
  return el("header", { class: "top" },
    el("h1", {}, el("a", { href: "/" }, logo, "tabletris")),
    el("span", { class: "grow" }),
    el("a", { href: "/rules" }, _("Rules")),
    el("a", { href: "/replay", class: "wide-only" }, _("Watch a record")),
    account,
    languageMenu());
}

// The header's account part: Log in and Register for a guest; for an account its name (the
// profile), Your account and Log out. A phone has no room for them in a row: there they are one
// menu behind the name (or "Log in").
function accountLinks(who) {
  const next = `?next=${encodeURIComponent(here())}`;
  const items = who
    ? [el("a", { href: profileHref(who.username), id: "nav-profile", title: _("Your profile") }, who.username),
      el("a", { href: "/account", id: "nav-account" }, _("Your account")),
      el("button", { type: "button", class: "link", id: "nav-logout", onclick: logout }, _("Log out"))]
    : [el("a", { href: `/login${next}`, id: "nav-login" }, _("Log in")),
      el("a", { href: `/register${next}`, id: "nav-register" }, _("Register"))];
  const phone = who
    ? [el("a", { href: profileHref(who.username) }, _("Your profile")), el("a", { href: "/account" }, _("Your account")),
      el("a", { href: "/games" }, _("Your games")),
      el("a", { href: "/replay" }, _("Watch a record")), el("button", { type: "button", class: "link", onclick: logout }, _("Log out"))]
    : [el("a", { href: `/login${next}` }, _("Log in")), el("a", { href: `/register${next}` }, _("Register")),
      el("a", { href: "/games" }, _("Your games")), el("a", { href: "/replay" }, _("Watch a record"))];
  const menu = el("details", { class: "nav-menu phone-only", id: "nav-menu" },
    el("summary", { "aria-label": who ? _("Menu of {name}", { name: who.username }) : null }, who ? who.username : _("Log in")),
    el("div", { class: "nav-items" }, ...phone));
  return [el("span", { class: "nav-links wide-only" }, ...items), menu];
}

// The lobby's footer: what a developer looks for (the API), out of every player's header.
export function footer() {
  return el("footer", { class: "foot" }, el("a", { href: "/openapi.json" }, _("API docs")), " · ",
    el("a", { href: "/rules" }, _("Rules")));
}

// Display preferences of this browser (colour mode, letters, sound, notifications).
const PREFS = { colour: "shape", letters: false, sound: false, notify: false };
export const prefs = {
  get(name) {
    const raw = localStorage.getItem(`tabletris:pref:${name}`);
    if (raw === null) return PREFS[name];
    try { return JSON.parse(raw); } catch { return PREFS[name]; }
  },
  set(name, value) { localStorage.setItem(`tabletris:pref:${name}`, JSON.stringify(value)); applyPrefs(); },
};

// The page-wide classes that the display preferences switch (CSS does the rest).
export function applyPrefs() {
  const b = document.body;
  b.classList.toggle("by-player", prefs.get("colour") === "player");
  b.classList.toggle("letters", Boolean(prefs.get("letters")));
}

// One polite live region per page: turn changes, moves and results for screen readers.
export function announce(text) {
  let region = document.querySelector("#announce");
  if (!region) { region = el("div", { id: "announce", class: "sr-only", "aria-live": "polite", role: "status" }); document.body.append(region); }
  region.textContent = "";
  setTimeout(() => { region.textContent = text; }, 50);
}

// Where cells are, for people: columns and rows counted from 1 (row 1 at the bottom).
export function where(cells) {
  if (!cells || !cells.length) return "";
  const xs = cells.map((c) => c[0] + 1);
  const ys = cells.map((c) => c[1] + 1);
  const span = (v) => { const lo = Math.min(...v); const hi = Math.max(...v); return lo === hi ? `${lo}` : `${lo}–${hi}`; };
  const cols = span(xs);
  const rows = span(ys);
  const many = (v) => v.includes("–");
  if (many(cols)) return many(rows) ? _("columns {cols}, rows {rows}", { cols, rows }) : _("columns {cols}, row {rows}", { cols, rows });
  return many(rows) ? _("column {cols}, rows {rows}", { cols, rows }) : _("column {cols}, row {rows}", { cols, rows });
}

// The short Markdown of a rules summary as DOM nodes (paragraphs, **bold**, *italic*): text only,
// never markup from the server.
export function markdown(text) {
  const out = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split("\n").filter((l) => !l.startsWith("#"));
    if (!lines.length) continue;
    const p = el("p", { class: "md" });
    for (const [i, part] of lines.join(" ").split(/(\*\*[^*]+\*\*|\*[^*]+\*)/).entries()) {
      if (i % 2 === 0) p.append(part);
      else if (part.startsWith("**")) p.append(el("b", {}, part.slice(2, -2)));
      else p.append(el("i", {}, part.slice(1, -1)));
    }
    out.push(p);
  }
  return out;
}

// A board of width x height cells, y = 0 at the bottom. ``render`` repaints from a plain model:
// stones [{n, shape, cells, owner}], plus optional overlays each a Set of "x,y" keys. Every cell
// has an accessible name (column, row, what is on it); stones carry their owner's colour (an
// outline, or the fill in player-colour mode) and, in letter mode, their shape's letter.
export class BoardView {
  constructor(width, height, { small = false, label = "board" } = {}) {
    this.width = width;
    this.height = height;
    this.node = el("div", { class: `board${small ? " small" : ""}`, role: "grid", "aria-label": label, tabindex: small ? null : 0 });
    this.node.style.setProperty("--w", width);
    this.node.style.setProperty("--h", height);
    this.cells = new Map();
    for (let y = height - 1; y >= 0; y--) {
      const row = el("div", { role: "row", class: "board-row" });
      for (let x = 0; x < width; x++) {
        const c = el("div", { class: "cell", role: "gridcell", "data-x": x, "data-y": y });
        this.cells.set(`${x},${y}`, c);
        row.append(c);
      }
      this.node.append(row);
    }
  }

  cellAt(clientX, clientY) {
    const first = this.cells.get(`0,${this.height - 1}`).getBoundingClientRect();
    const last = this.cells.get(`${this.width - 1},0`).getBoundingClientRect();
    const fx = (clientX - first.left) / (last.right - first.left);
    const fy = (last.bottom - clientY) / (last.bottom - first.top);
    return [fx * this.width - 0.5, fy * this.height - 0.5];
  }

  // ``names(seat)`` names a stone's owner; ``numbers`` (a Set of stone numbers) shows those
  // stones' numbers on the board (the reward dialog names stones by number).
  render({ stones = [], icons = null, overlays = {}, fresh = null, names = null, numbers = null }) {
    const owner = new Map();
    const anchor = new Map();
    for (const s of stones) {
      for (const [x, y] of s.cells) owner.set(`${x},${y}`, s);
      const top = [...s.cells].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
      if (top) anchor.set(`${top[0]},${top[1]}`, s);
    }
    const bonus = new Map();
    const diamonds = new Set();
    if (icons) {
      for (const b of icons.bonus || []) bonus.set(`${b.cell[0]},${b.cell[1]}`, b.shape);
      for (const d of icons.diamonds || []) diamonds.add(`${d[0]},${d[1]}`);
    }
    for (const [key, cell] of this.cells) {
      const stone = owner.get(key);
      let cls = "cell";
      if (stone) cls += ` filled s-${stone.shape}`;
      if (stone && stone.owner !== null && stone.owner !== undefined && stone.number >= 0) cls += ` o-${stone.owner % 8}`;
      const states = [];
      for (const [name, set] of Object.entries(overlays)) if (set && set.has(key)) { cls += ` ${name}`; states.push(STATE_WORDS[name] ? _(STATE_WORDS[name]) : name); }
      if (stone && fresh && fresh(stone)) cls += " fresh";
      if (cell.className !== cls) cell.className = cls;
      cell.dataset.stone = stone ? stone.number : "";
      const top = anchor.get(key);
      const num = top && top.number >= 0 && numbers && numbers.has(top.number) ? `${top.number}` : "";
      const letter = stone ? `${stone.shape}${num}` : "";
      if ((cell.dataset.letter || "") !== letter) cell.dataset.letter = letter;
      cell.classList.toggle("num", Boolean(num));
      const want = bonus.has(key) ? `b${bonus.get(key)}` : diamonds.has(key) ? "d" : "";
      if ((cell.dataset.icon || "") !== want) {
        cell.replaceChildren();
        if (want.startsWith("b")) cell.append(el("span", { class: `icon t-${want.slice(1)}`, "aria-hidden": "true" }, want.slice(1)));
        else if (want === "d") cell.append(el("span", { class: "diamond", "aria-hidden": "true" }));
        cell.dataset.icon = want;
      }
      const [x, y] = key.split(",").map(Number);
      let what = _("empty");
      if (stone && stone.number >= 0) {
        const p = { shape: stone.shape, number: stone.number };
        what = names && stone.owner !== null && stone.owner !== undefined
          ? _("{shape} stone #{number}, {name}'s", { ...p, name: names(stone.owner) }) : _("{shape} stone #{number}", p);
      } else if (stone) what = stone.shape === "M" ? _("mino (planned)") : _("{shape} (submitted)", { shape: stone.shape });
      if (want.startsWith("b")) what = _("{what}, bonus icon {shape}", { what, shape: want.slice(1) });
      else if (want === "d") what = _("{what}, diamond", { what });
      const comma = _(", ");
      if (states.length) what = _("{what}, {states}", { what, states: states.join(comma) });
      const label = _("column {x}, row {y}: {what}", { x: x + 1, y: y + 1, what });
      if (cell.getAttribute("aria-label") !== label) cell.setAttribute("aria-label", label);
    }
  }
}

const STATE_WORDS = { legal: N_("you can place here"), ghost: N_("your piece"), staged: N_("your piece, not yet confirmed"), take: N_("stone to take"), pick: N_("stone to remove"), pending: N_("submitted"), complete: N_("complete row"), reward: N_("can be removed") };

export const key = (x, y) => `${x},${y}`;
export const cellsAt = (form, x, y) => form.cells.map(([dx, dy]) => [x + dx, y + dy]);
