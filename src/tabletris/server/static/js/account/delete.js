// The account page's last section: delete the account. The password is asked again and a dialog
// says what goes and what stays before anything is sent.
import { _, api, el } from "../common.js";
import { errorLine, field, refusal } from "../forms.js";
import { dialog } from "../table.js";

export default async function section(account) {
  const error = errorLine("delete-error");
  const form = el("form", { class: "panel danger", id: "delete-section", "aria-labelledby": "delete-title", novalidate: true },
    el("h2", { id: "delete-title" }, _("Delete the account")),
    el("p", {}, _("Your account, its sessions and its ratings are deleted. Your games stay, with your seats named \"(deleted player)\". The name {name} becomes free for anyone.", { name: account.username })),
    field("delete-password", _("Your password"), { type: "password", autocomplete: "current-password", required: true, maxlength: 256 }),
    error,
    el("div", { class: "row", style: "margin-top:12px" }, el("button", { class: "danger-fill", type: "submit", id: "delete-submit" }, _("Delete the account…"))));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    error.textContent = "";
    const password = form.querySelector("#delete-password").value;
    if (!password) { error.textContent = _("Type your password to delete the account."); return; }
    const d = dialog("confirm-delete", _("Delete the account {name}?", { name: account.username }),
      [el("p", {}, _("This cannot be undone."))], [
        el("button", { class: "danger-fill", id: "confirm-delete-yes", onclick: async () => {
          d.close();
          try {
            await api("/api/me", { method: "DELETE", body: { password } });
            location.href = "/?deleted=1";
          } catch (err) { error.textContent = refusal(err); }
        } }, _("Delete it")),
        el("button", { id: "confirm-delete-no", onclick: () => d.close() }, _("Keep it"))]);
    // The safe choice has the focus: Enter alone does not delete.
    d.querySelector("#confirm-delete-no").focus();
  });
  return form;
}
