// The account page's export: every game of the account as records (tabletris/1), one download.
import { _, el } from "../common.js";

export default async function section() {
  return el("section", { class: "panel", id: "records-section", "aria-labelledby": "records-title" },
    el("h2", { id: "records-title" }, _("Your games")),
    el("p", { class: "muted" }, _("Download every finished game you played with this account: one JSON file with each game's record (tabletris/1).")),
    el("a", { class: "button", id: "records-download", href: "/api/me/records?download=true", download: "" }, _("Download my games")));
}
