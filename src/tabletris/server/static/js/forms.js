// The account pages' forms: a labelled field, the form's error line, and the words of a refusal
// (the server's sentence translated; a rate limit with its wait). Shared by the login and register
// pages and each section of the account page.
import { _, el, ngettext } from "./common.js";

// A labelled input; ``hint`` is a line under it that the input names as its description.
export function field(id, label, attrs = {}, hint = null) {
  const input = el("input", { id, name: id, ...attrs, "aria-describedby": hint ? `${id}-hint` : null });
  return el("div", { class: "form-grid" }, el("label", { for: id }, label), input,
    hint ? el("span", { class: "muted hint", id: `${id}-hint` }, hint) : "");
}

// The line where a form says what went wrong (read out at once: role=alert).
export function errorLine(id) { return el("p", { class: "form-error", id, role: "alert" }); }

// What a refused request says to a person: the server's own sentence in the page's language
// (api() translates it), and for a rate limit when to try again.
export function refusal(err) {
  if (err.code === "rate_limited" && err.retryAfter) {
    const n = Math.ceil(err.retryAfter);
    return err.message + " " + ngettext("Try again in {n} second.", "Try again in {n} seconds.", n);
  }
  return err.message;
}

// Runs ``action`` for a form's submit with its button disabled meanwhile; an error goes to ``line``.
export function onSubmit(form, line, action) {
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const button = form.querySelector("button[type=submit]");
    line.textContent = "";
    if (button) button.disabled = true;
    try { await action(); } catch (err) { line.textContent = refusal(err); } finally { if (button) button.disabled = false; }
  });
}
