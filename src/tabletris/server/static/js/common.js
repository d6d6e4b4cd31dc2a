// Shared helpers: the API, seat tokens in localStorage, shapes drawn small, toasts, the board grid.
// No game rule lives here: legality always comes from the server's state and error messages.

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
    const err = new Error((data && (data.message || data.detail)) || `HTTP ${res.status}`);
    err.code = data && data.error;
    err.status = res.status;
    throw err;
  }
  return data;
}

let metaPromise = null;
export function meta() {
  if (!metaPromise) metaPromise = api("/api/meta").then((m) => { applyColours(m.colours); return m; });
  return metaPromise;
}

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
};

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
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}

export function mini(shape, cells = null) {
  const pts = cells || ICON_CELLS[shape] || [[0, 0]];
  const w = 1 + Math.max(...pts.map((c) => c[0]));
  const h = 1 + Math.max(...pts.map((c) => c[1]));
  const box = el("span", { class: "mini", "aria-label": shape });
  box.style.gridTemplateColumns = `repeat(${w}, auto)`;
  const on = new Set(pts.map(([x, y]) => `${x},${y}`));
  for (let y = h - 1; y >= 0; y--) for (let x = 0; x < w; x++) box.append(el("i", { class: on.has(`${x},${y}`) ? `s-${shape}` : "off" }));
  return box;
}

let toastTimer = null;
export function toast(message, kind = "error") {
  let t = document.querySelector(".toast");
  if (!t) { t = el("div", { class: "toast", role: "alert" }); document.body.append(t); }
  t.className = `toast ${kind === "info" ? "info" : ""}`;
  t.textContent = message;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.remove(), kind === "info" ? 2500 : 5000);
}

export function header() {
  const logo = el("span", { class: "logo" }, ...["T", "T", "T", "", "T", ""].map((s) => el("i", { class: s ? "s-T" : "" })));
  return el("header", { class: "top" },
    el("h1", {}, el("a", { href: "/" }, logo, "tabletris")),
    el("span", { class: "grow" }),
    el("a", { href: "/replay" }, "Watch a record"),
    el("a", { href: "/docs" }, "API"));
}

// A board of width x height cells, y = 0 at the bottom. ``render`` repaints from a plain model:
// stones [{n, shape, cells, owner}], plus optional overlays each a Set of "x,y" keys.
export class BoardView {
  constructor(width, height, { small = false, label = "board" } = {}) {
    this.width = width;
    this.height = height;
    this.node = el("div", { class: `board${small ? " small" : ""}`, role: "grid", "aria-label": label });
    this.node.style.setProperty("--w", width);
    this.node.style.setProperty("--h", height);
    this.cells = new Map();
    for (let y = height - 1; y >= 0; y--) {
      for (let x = 0; x < width; x++) {
        const c = el("div", { class: "cell", "data-x": x, "data-y": y });
        this.cells.set(`${x},${y}`, c);
        this.node.append(c);
      }
    }
  }

  cellAt(clientX, clientY) {
    const first = this.cells.get(`0,${this.height - 1}`).getBoundingClientRect();
    const last = this.cells.get(`${this.width - 1},0`).getBoundingClientRect();
    const fx = (clientX - first.left) / (last.right - first.left);
    const fy = (last.bottom - clientY) / (last.bottom - first.top);
    return [fx * this.width - 0.5, fy * this.height - 0.5];
  }

  render({ stones = [], icons = null, overlays = {}, fresh = null }) {
    const owner = new Map();
    for (const s of stones) for (const [x, y] of s.cells) owner.set(`${x},${y}`, s);
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
      for (const [name, set] of Object.entries(overlays)) if (set && set.has(key)) cls += ` ${name}`;
      if (stone && fresh && fresh(stone)) cls += " fresh";
      if (cell.className !== cls) cell.className = cls;
      cell.dataset.stone = stone ? stone.n : "";
      const want = bonus.has(key) ? `b${bonus.get(key)}` : diamonds.has(key) ? "d" : "";
      if ((cell.dataset.icon || "") !== want) {
        cell.replaceChildren();
        if (want.startsWith("b")) cell.append(el("span", { class: `icon t-${want.slice(1)}`, title: `bonus ${want.slice(1)}` }, want.slice(1)));
        else if (want === "d") cell.append(el("span", { class: "diamond", title: "diamond" }));
        cell.dataset.icon = want;
      }
    }
  }
}

export const key = (x, y) => `${x},${y}`;
export const cellsAt = (form, x, y) => form.cells.map(([dx, dy]) => [x + dx, y + dy]);
