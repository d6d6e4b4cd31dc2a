// The login and register pages (/login, /register): a username and a password, sent as JSON;
// the server's refusals shown in the page's language (a taken name, a wrong login, a rate limit
// with its wait). Right after logging in, this browser's guest seats (their tokens in
// localStorage) are handed to the account, so a guest who registers keeps their games.
import { _, api, el, footer, header, me, profileHref, safeNext, seats } from "./common.js";
import { errorLine, field, onSubmit } from "./forms.js";

const registering = location.pathname.startsWith("/register");
const next = safeNext(new URLSearchParams(location.search).get("next"));
const withNext = (path) => (next === "/" ? path : `${path}?next=${encodeURIComponent(next)}`);

// The guest seats become the account's. A server without the endpoint (404) or a refusal leaves
// them as they were: they still work by their tokens, and logging in must not fail for it.
// A claim names at most CLAIM_MOST seats (the server's bound): more go in several.
const CLAIM_MOST = 256;

export async function claimSeats() {
  const kept = seats.all();  // every seat token this browser keeps
  const answers = [];
  for (let i = 0; i < kept.length; i += CLAIM_MOST) {
    try { answers.push(await api("/api/me/seats", { method: "POST", body: { seats: kept.slice(i, i + CLAIM_MOST) } })); } catch { return answers; }
  }
  return answers;
}

async function logIn(username, password) {
  await api("/api/auth/login", { method: "POST", body: { username, password } });
  await claimSeats();
  location.href = next;
}

function loginForm() {
  const error = errorLine("auth-error");
  const form = el("form", { class: "panel narrow", id: "login", "aria-labelledby": "auth-title", novalidate: true },
    el("h2", { id: "auth-title" }, _("Log in")),
    field("username", _("Username"), { autocomplete: "username", required: true, maxlength: 64, autocapitalize: "none", spellcheck: "false" }),
    field("password", _("Password"), { type: "password", autocomplete: "current-password", required: true, maxlength: 256 }),
    error,
    el("div", { class: "row", style: "margin-top:12px" },
      el("button", { class: "primary", type: "submit", id: "auth-submit" }, _("Log in")),
      el("span", { class: "muted" }, _("No account yet?"), " ", el("a", { href: withNext("/register"), id: "to-register" }, _("Register")))));
  onSubmit(form, error, async () => {
    const username = form.querySelector("#username").value.trim();
    const password = form.querySelector("#password").value;
    if (!username || !password) { error.textContent = _("Type your username and password."); return; }
    await logIn(username, password);
  });
  return form;
}

function registerForm() {
  const error = errorLine("auth-error");
  const form = el("form", { class: "panel narrow", id: "register", "aria-labelledby": "auth-title", novalidate: true },
    el("h2", { id: "auth-title" }, _("Register")),
    el("p", { class: "muted" }, _("An account gives you a profile with your games, a rating per game, and Play now. The seats you hold in this browser become your account's.")),
    field("username", _("Username"), { autocomplete: "username", required: true, maxlength: 24, autocapitalize: "none", spellcheck: "false" },
      _("Others see it at the table and in the ranking.")),
    field("password", _("Password"), { type: "password", autocomplete: "new-password", required: true, minlength: 8, maxlength: 256 },
      _("At least 8 characters.")),
    field("password2", _("Password again"), { type: "password", autocomplete: "new-password", required: true, maxlength: 256 }),
    error,
    el("div", { class: "row", style: "margin-top:12px" },
      el("button", { class: "primary", type: "submit", id: "auth-submit" }, _("Register")),
      el("span", { class: "muted" }, _("Have an account?"), " ", el("a", { href: withNext("/login"), id: "to-login" }, _("Log in")))));
  onSubmit(form, error, async () => {
    const username = form.querySelector("#username").value.trim();
    const password = form.querySelector("#password").value;
    if (!username) { error.textContent = _("Type a username."); return; }
    if (password.length < 8) { error.textContent = _("The password needs at least 8 characters."); return; }
    if (password !== form.querySelector("#password2").value) { error.textContent = _("The two passwords differ."); return; }
    await api("/api/auth/register", { method: "POST", body: { username, password } });
    await logIn(username, password);
  });
  return form;
}

async function main() {
  document.body.append(header());
  const who = await me();
  const body = who
    ? el("div", { class: "panel narrow", id: "logged-in" }, el("h2", {}, _("You are logged in")),
      el("p", {}, _("Logged in as {name}.", { name: who.username }), " ", el("a", { href: profileHref(who.username) }, _("Your profile")), " · ",
        el("a", { href: "/account" }, _("Your account")), " · ", el("a", { href: next }, _("Continue"))))
    : registering ? registerForm() : loginForm();
  document.title = `${registering ? _("Register") : _("Log in")} · tabletris`;
  document.body.append(el("main", {}, body), footer());
  const first = body.querySelector("input");
  if (first) first.focus();
}

main();
