// The account page's export: every game of the account as records (tabletris/1), one download.
import { _, el } from "../common.js";

export default async function section() {
  return el("section", { class: "panel", id: "records-section", "aria-labelledby": "records-title" },
    el("h2", { id: "records-title" }, _("Your games")),
    el("p", { class: "muted" }, _("Download every game you played with this account as records, to keep or to replay (tabletris replay, or the Watch a record page).")),
    el("a", { class: "button", id: "records-download", href: "/api/me/records?download=true", download: "" }, _("Download my games")));
}
