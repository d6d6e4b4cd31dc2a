// The account page (/account): one section per module of js/account/, each in its own panel.
// A section module exports ``default async function section(account)`` and returns its panel
// (an element with an id, a heading and its form); a new section is a new module and one line in
// SECTIONS. Logged out, the page says so and links to the login page.
import { _, el, footer, header, here, me, profileHref } from "./common.js";

const SECTIONS = [
  "./account/password.js",
  "./account/notifications.js",
  "./account/records.js",
  "./account/delete.js",
];

async function main() {
  document.body.append(header());
  document.title = `${_("Your account")} · tabletris`;
  const who = await me();
  const page = el("main", { class: "narrow", id: "account" });
  if (!who) {
    page.append(el("div", { class: "panel", id: "need-login" }, el("h2", {}, _("Your account")),
      el("p", {}, _("Log in to see your account."), " ", el("a", { href: `/login?next=${encodeURIComponent(here())}` }, _("Log in")))));
    document.body.append(page, footer());
    return;
  }
  const created = new Date(who.created * 1000).toLocaleDateString(document.documentElement.lang);
  page.append(el("h2", {}, _("Your account")),
    el("p", {}, _("Logged in as {name}, since {date}.", { name: who.username, date: created }), " ",
      el("a", { href: profileHref(who.username), id: "my-profile" }, _("Your profile"))));
  const sections = await Promise.all(SECTIONS.map(async (url) => (await import(url)).default(who)));
  page.append(...sections);
  document.body.append(page, footer());
}

main();
