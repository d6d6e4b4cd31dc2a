// The account page's password section: the current password asked again, the new one twice.
// Every other session of the account ends on the server.
import { _, api, el, toast } from "../common.js";
import { errorLine, field, onSubmit } from "../forms.js";

export default async function section() {
  const error = errorLine("password-error");
  const form = el("form", { class: "panel", id: "password-section", "aria-labelledby": "password-title", novalidate: true },
    el("h2", { id: "password-title" }, _("Change password")),
    field("current-password", _("Current password"), { type: "password", autocomplete: "current-password", required: true, maxlength: 256 }),
    field("new-password", _("New password"), { type: "password", autocomplete: "new-password", required: true, minlength: 8, maxlength: 256 },
      _("At least 8 characters. You stay logged in here; everywhere else you are logged out.")),
    field("new-password2", _("New password again"), { type: "password", autocomplete: "new-password", required: true, maxlength: 256 }),
    error,
    el("div", { class: "row", style: "margin-top:12px" }, el("button", { class: "primary", type: "submit", id: "password-submit" }, _("Change password"))));
  onSubmit(form, error, async () => {
    const current = form.querySelector("#current-password").value;
    const fresh = form.querySelector("#new-password").value;
    if (!current) { error.textContent = _("Type your current password."); return; }
    if (fresh.length < 8) { error.textContent = _("The password needs at least 8 characters."); return; }
    if (fresh !== form.querySelector("#new-password2").value) { error.textContent = _("The two passwords differ."); return; }
    await api("/api/me/password", { method: "POST", body: { current, new: fresh } });
    form.reset();
    toast(_("Password changed."), "info");
  });
  return form;
}
