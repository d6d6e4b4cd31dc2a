// The account page's mail section: the address (only this account sees it), the your-turn mail on
// or off, and the language the mails are written in. The server checks the address (bad_email);
// a server started without --smtp sends no mail, and the section says so.
import { _, api, el, toast } from "../common.js";
import { lang as pageLang, languages } from "../i18n.js";
import { errorLine, field, onSubmit } from "../forms.js";

export default async function section() {
  const now = await api("/api/me/notifications");
  const error = errorLine("mail-error");
  const email = field("mail-address", _("Mail address"), { type: "email", autocomplete: "email", maxlength: 254, value: now.email || "" },
    _("Only you see it: not your profile, not the tables, not the logs."));
  const on = el("input", { type: "checkbox", id: "turn-mail", name: "turn-mail" });
  on.checked = Boolean(now.turn_mail);
  const language = el("select", { id: "mail-lang", name: "mail-lang" },
    ...Object.entries(languages).map(([code, name]) => el("option", { value: code, lang: code.replace("_", "-") }, name)));
  language.value = now.lang || pageLang;
  const form = el("form", { class: "panel", id: "mail-section", "aria-labelledby": "mail-title", novalidate: true },
    el("h2", { id: "mail-title" }, _("Your-turn mail")),
    el("p", {}, _("A mail when a turn-based game waits for your move and you are away from its table: one mail per turn at most, one for several games, with a link to each and a link to stop them.")),
    now.available ? "" : el("p", { class: "muted", id: "mail-off" }, _("This server sends no mail: its operator has not set it up. Your choice is kept for when it does.")),
    email,
    el("div", { class: "row" }, el("label", { class: "check", for: "turn-mail" }, on, " ", _("Mail me when a turn-based game waits for my move"))),
    el("div", { class: "form-grid" }, el("label", { for: "mail-lang" }, _("Language of the mails")), language),
    error,
    el("div", { class: "row", style: "margin-top:12px" }, el("button", { class: "primary", type: "submit", id: "mail-submit" }, _("Save"))));
  onSubmit(form, error, async () => {
    const address = form.querySelector("#mail-address").value.trim();
    if (on.checked && !address) { error.textContent = _("Give the address the mails should go to."); return; }
    const saved = await api("/api/me/notifications", { method: "PUT", body: { email: address || null, turn_mail: on.checked, lang: language.value } });
    form.querySelector("#mail-address").value = saved.email || "";
    toast(saved.turn_mail ? _("Saved: you get a mail when a game waits for you.") : _("Saved: no your-turn mail."), "info");
  });
  return form;
}
