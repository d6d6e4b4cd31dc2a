// Replays: a finished game (/replay/<room>) or an uploaded record (/replay), step by step.
// The server replays the record through the engine and sends the position after each step;
// an invalid record comes back with the engine's reason, shown as is. The game's own module (its
// view's ``Replay``) draws each frame; nothing here names a game.
import { _, api, applyPrefs, el, gameName, gameView, header, meta, toast } from "./common.js";

const parts = location.pathname.split("/").filter(Boolean);
const roomId = parts.length > 1 ? decodeURIComponent(parts[1]) : null;
const view = { data: null, step: 0, timer: null, replay: null };
const dom = {};

function layout() {
  document.body.append(header());
  applyPrefs();
  dom.title = el("h2", { id: "replay-title" }, roomId ? _("Replay of room {room}", { room: roomId }) : _("Watch a record"));
  dom.upload = el("div", { class: "panel", id: "upload" },
    el("h2", {}, _("Upload a record")),
    el("p", { class: "muted" }, _("A tabletris/1 JSON record (from tabletris play --save, a download, or anywhere). It is checked by replaying it through the engine.")),
    el("div", { class: "row" },
      el("input", { type: "file", id: "file", accept: ".json,application/json", "aria-label": _("record file") }),
      el("button", { class: "primary", id: "load", onclick: loadFile }, _("Load"))),
    el("textarea", { id: "paste", "aria-label": _("record text"), rows: 5, style: "width:100%;margin-top:8px", placeholder: _("…or paste the record here") }),
    el("div", { class: "row" }, el("button", { id: "load-paste", onclick: loadPaste }, _("Load pasted record"))),
    el("pre", { id: "record-error", class: "hidden", style: "color:var(--bad);white-space:pre-wrap" }));
  dom.stage = el("div", { class: "hidden", id: "viewer" });
  document.body.append(el("main", {}, dom.title, roomId ? "" : dom.upload, dom.stage));
}

async function loadFile() {
  const file = document.querySelector("#file").files[0];
  if (!file) { toast(_("Choose a file first.")); return; }
  await upload(await file.text());
}

async function loadPaste() { await upload(document.querySelector("#paste").value); }

async function upload(text) {
  const box = document.querySelector("#record-error");
  box.classList.add("hidden");
  let doc;
  try { doc = JSON.parse(text); } catch (e) { showError(_("not a JSON document: {error}", { error: e.message })); return; }
  try {
    await show(await api("/api/replay", { method: "POST", body: doc }));
  } catch (e) { showError(e.message); }
}

function showError(message) {
  const box = document.querySelector("#record-error");
  dom.stage.classList.add("hidden");
  if (!box) return;
  box.textContent = _("error: {message}", { message });
  box.classList.remove("hidden");
}

// A room's game that cannot be replayed (yet): the server's reason, and for a running game the
// way to watch it live.
function showRoomError(e) {
  const note = el("div", { class: "panel", id: "replay-error", role: "alert" }, el("p", {}, e.message));
  if (e.code === "not_over") note.append(el("p", {}, el("a", { class: "button", id: "watch-live", href: `/room/${encodeURIComponent(roomId)}` }, _("Watch it live"))));
  dom.title.after(note);
}

async function show(data) {
  const game = await gameView(data.game);
  if (!game) {
    const message = _("This web client cannot show the {game} game: use the terminal (tabletris play, tabletris replay) or the API.", { game: gameName(data.game) });
    showError(message);
    if (roomId) showRoomError({ message });
    return;
  }
  view.data = data;
  const asked = Number(new URLSearchParams(location.search).get("step"));
  view.step = Number.isInteger(asked) && asked > 0 ? Math.min(asked, data.frames.length - 1) : data.frames.length - 1;
  const first = data.frames[0];
  const download = roomId
    ? el("a", { class: "button", id: "download", href: `/api/rooms/${roomId}/record?download=1` }, _("Download record"))
    : el("a", { class: "button", id: "download", href: URL.createObjectURL(new Blob([JSON.stringify(data.record, null, 1)], { type: "application/json" })), download: "tabletris-record.json" }, _("Download record"));
  const slider = el("input", { type: "range", id: "slider", "aria-label": _("step"), min: 0, max: data.frames.length - 1, value: view.step, oninput: (e) => go(Number(e.target.value)) });
  dom.controls = el("div", { class: "replay-controls" },
    el("button", { id: "first", onclick: () => go(0), title: _("first"), "aria-label": _("first") }, "|◀"),
    el("button", { id: "back", onclick: () => go(view.step - 1), title: _("back (←)"), "aria-label": _("back") }, "◀"),
    el("button", { id: "playpause", onclick: toggle, title: _("play (space)") }, _("▶ Play")),
    el("button", { id: "forward", onclick: () => go(view.step + 1), title: _("forward (→)"), "aria-label": _("forward") }, "▶"),
    el("button", { id: "last", onclick: () => go(data.frames.length - 1), title: _("last"), "aria-label": _("last") }, "▶|"),
    slider, el("span", { id: "step", class: "muted" }), download);
  dom.boards = el("div", { class: "towers-row", id: "boards" });
  dom.info = el("div", { class: "panel", id: "info" });
  const { Replay } = await game.table();
  view.replay = new Replay(first, data.players);
  dom.boards.replaceChildren(...view.replay.boards.map((b, i) => el("figure", { style: "margin:0;text-align:center" }, b.node, el("figcaption", { "data-caption": i }))));
  dom.stage.replaceChildren(dom.controls, el("div", { class: "table", style: "margin-top:12px" }, dom.boards, dom.info));
  dom.stage.classList.remove("hidden");
  go(view.step);
}

function go(step) {
  const frames = view.data.frames;
  view.step = Math.max(0, Math.min(frames.length - 1, step));
  document.querySelector("#slider").value = view.step;
  document.querySelector("#step").textContent = view.replay.step({ step: view.step, total: frames.length - 1 });
  view.replay.show(frames[view.step], dom.info);
}

function toggle() {
  const button = document.querySelector("#playpause");
  if (view.timer) { clearInterval(view.timer); view.timer = null; button.textContent = _("▶ Play"); return; }
  if (view.step >= view.data.frames.length - 1) go(0);
  button.textContent = _("❚❚ Pause");
  view.timer = setInterval(() => {
    if (view.step >= view.data.frames.length - 1) { toggle(); return; }
    go(view.step + 1);
  }, 600);
}

document.addEventListener("keydown", (e) => {
  if (!view.data || e.target.closest("input[type=text], textarea")) return;
  if (e.key === "ArrowLeft") go(view.step - 1);
  else if (e.key === "ArrowRight") go(view.step + 1);
  else if (e.key === " ") toggle();
  else return;
  e.preventDefault();
});

async function main() {
  layout();
  await meta();
  if (roomId) {
    let data;
    try { data = await api(`/api/rooms/${encodeURIComponent(roomId)}/replay`); } catch (e) { showError(e.message); showRoomError(e); return; }
    await show(data);
  }
}

main();
