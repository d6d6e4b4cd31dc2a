// The ghost piece: choosing one of the server's legal placements with mouse, drag, touch or keys.
// ``forms`` are the server's legal placements grouped by orientation: [{cells, places, rows?}].
// Nothing here decides legality: a ghost can only sit on a place the server listed.
import { cellsAt, key } from "./common.js";

export class Placer {
  constructor(board, { onCommit, onChange, isStaged } = {}) {
    this.board = board;
    this.forms = [];
    this.form = 0;
    this.place = -1;
    this.onCommit = onCommit || (() => {});
    this.onChange = onChange || (() => {});
    // A placement waiting for confirmation takes the next click or tap (confirm or undo).
    this.isStaged = isStaged || (() => false);
    this.enabled = false;
    this._touchGhost = null;
    this._wire();
  }

  setForms(forms) {
    const prev = this.current();
    this.forms = forms || [];
    if (this.form >= this.forms.length || !this.forms[this.form]?.places.length) this.form = this.forms.findIndex((f) => f.places.length);
    if (this.form < 0) { this.form = 0; this.place = -1; return; }
    this.place = -1;
    if (prev) this._nearest(prev.x + 0.5, prev.y + 0.5);
  }

  usable() { return this.enabled && this.forms.some((f) => f.places.length); }

  current() {
    const f = this.forms[this.form];
    if (!f || this.place < 0 || this.place >= f.places.length) return null;
    const [x, y] = f.places[this.place];
    return { form: f, x, y, cells: cellsAt(f, x, y), rows: f.rows ? f.rows[this.place] : 0 };
  }

  ghostSet() {
    const c = this.current();
    return c ? new Set(c.cells.map(([x, y]) => key(x, y))) : new Set();
  }

  legalSet() {
    const f = this.forms[this.form];
    const set = new Set();
    if (!f) return set;
    for (const [x, y] of f.places) for (const [cx, cy] of cellsAt(f, x, y)) set.add(key(cx, cy));
    return set;
  }

  _center(f, x, y) {
    const w = 1 + Math.max(...f.cells.map((c) => c[0]));
    const h = 1 + Math.max(...f.cells.map((c) => c[1]));
    return [x + (w - 1) / 2, y + (h - 1) / 2];
  }

  _nearest(px, py, filter = null) {
    const f = this.forms[this.form];
    if (!f || !f.places.length) return false;
    let best = -1;
    let bestD = Infinity;
    f.places.forEach(([x, y], i) => {
      const [cx, cy] = this._center(f, x, y);
      if (filter && !filter(cx, cy)) return;
      const d = (cx - px) ** 2 + (cy - py) ** 2 * 1.05;
      if (d < bestD) { bestD = d; best = i; }
    });
    if (best < 0) return false;
    const changed = best !== this.place;
    this.place = best;
    if (changed) this.onChange();
    return true;
  }

  hover(px, py) { if (this.usable()) this._nearest(px, py); }

  move(dx, dy) {
    if (!this.usable()) return;
    const c = this.current();
    if (!c) { this._nearest(this.board.width / 2, this.board.height); return; }
    const [cx, cy] = this._center(c.form, c.x, c.y);
    const ok = this._nearest(cx + dx, cy + dy, (x, y) => (dx ? Math.sign(x - cx) === dx : Math.sign(y - cy) === dy));
    if (!ok) this.onChange();
  }

  rotate(step = 1) {
    if (!this.usable()) return;
    const c = this.current();
    const n = this.forms.length;
    for (let i = 1; i <= n; i++) {
      const next = (this.form + step * i + n * 4) % n;
      if (this.forms[next].places.length) {
        this.form = next;
        this.place = -1;
        if (c) { const [cx, cy] = this._center(c.form, c.x, c.y); this._nearest(cx, cy); } else this._nearest(this.board.width / 2, this.board.height);
        this.onChange();
        return;
      }
    }
  }

  commit() {
    const c = this.current();
    if (this.usable() && c) this.onCommit(c);
  }

  key(e) {
    if (!this.usable()) return false;
    const k = e.key;
    if (k === "ArrowLeft") this.move(-1, 0);
    else if (k === "ArrowRight") this.move(1, 0);
    else if (k === "ArrowUp") this.move(0, 1);
    else if (k === "ArrowDown") this.move(0, -1);
    else if (k === "r" || k === "R" || k === "x" || k === "X") this.rotate(1);
    else if (k === "z" || k === "Z") this.rotate(-1);
    else if (k === "Enter" || k === " ") this.commit();
    else return false;
    e.preventDefault();
    return true;
  }

  // Mouse: hover moves the ghost, a click places it. Touch: a drag or tap moves the ghost, a tap
  // on the ghost places it. A drag that starts on the tray's piece places where it is let go.
  _wire() {
    const node = this.board.node;
    node.addEventListener("pointermove", (e) => {
      if (e.pointerType === "mouse" || e.buttons || this._dragging) this._at(e);
    });
    node.addEventListener("pointerdown", (e) => {
      if (!this.usable()) return;
      if (e.pointerType !== "mouse") {
        this._touchGhost = this.ghostSet();
        const [fx, fy] = this.board.cellAt(e.clientX, e.clientY);
        this._touchStart = key(Math.round(fx), Math.round(fy));
      }
    });
    node.addEventListener("pointerup", (e) => {
      if (e.pointerType !== "mouse" || e.button === 0) {
        const [fx, fy] = this.board.cellAt(e.clientX, e.clientY);
        if (this.isStaged(fx, fy)) { this._touchGhost = null; return; }
      }
      if (!this.usable()) return;
      if (e.pointerType === "mouse") {
        if (e.button === 0 && !this._consumed) { this._at(e); this.commit(); }
        this._consumed = false;
        return;
      }
      const before = this._touchGhost;
      const start = this._touchStart;
      this._touchGhost = null;
      if (before && before.has(start)) this.commit();
      else this._at(e);
    });
    node.addEventListener("contextmenu", (e) => { e.preventDefault(); this.rotate(1); });
    node.addEventListener("wheel", (e) => { if (this.usable()) { e.preventDefault(); this.rotate(e.deltaY > 0 ? 1 : -1); } }, { passive: false });
  }

  _at(e) {
    const [fx, fy] = this.board.cellAt(e.clientX, e.clientY);
    this.hover(fx, fy);
  }

  // A piece in the tray that can be dragged onto the board.
  draggable(node) {
    node.addEventListener("pointerdown", (e) => {
      if (!this.usable()) return;
      node.setPointerCapture(e.pointerId);
      this._dragging = true;
    });
    node.addEventListener("pointermove", (e) => { if (this._dragging) this._at(e); });
    node.addEventListener("pointerup", (e) => {
      if (!this._dragging) return;
      this._dragging = false;
      const r = this.board.node.getBoundingClientRect();
      if (e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom) {
        this._at(e);
        this.commit();
      }
    });
  }
}
