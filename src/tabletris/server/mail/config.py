"""The operator's mail settings (``tabletris serve --smtp URL --mail-from ADDR``) and the one
check every mail address passes before it is stored or used."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from email_validator import EmailNotValidError, validate_email

from tabletris.i18n import _
from tabletris.server.errors import ActionError

SCHEMES = {"smtp": 25, "smtps": 465}
"""``smtp://`` (plain, upgraded with STARTTLS when the server offers it) and ``smtps://``
(TLS from the first byte), with their default ports."""
ADDRESS_CHARS = 254
"""RFC 5321's limit on a forward path: longer cannot be delivered."""


class MailConfigError(ValueError):
    """A ``--smtp`` or ``--mail-from`` the server cannot use; the message is one line, password masked."""


def check_address(value: object) -> str:
    """A mail address in its normal form, or ``bad_email`` saying why (email-validator's reason:
    the syntax only; no DNS look-up, so a server without the internet still accepts a real one)."""
    if not isinstance(value, str) or not value.strip():
        raise ActionError("bad_email", _("give a mail address, like ann@example.org"))
    if len(value) > ADDRESS_CHARS:
        raise ActionError("bad_email", _("a mail address has at most {most} characters").format(most=ADDRESS_CHARS))
    try:
        checked = validate_email(value.strip(), check_deliverability=False)
    except EmailNotValidError as e:
        raise ActionError("bad_email", _("{address!r} is not a mail address: {reason}").format(address=value[:80], reason=str(e))) from None
    return str(checked.normalized)


@dataclass(frozen=True)
class MailConfig:
    """Where the server sends its mail, and the pace of the queue (``sender.Mailer``).

    The defaults are the production pace; tests shorten them. ``gather``: a notice waits this
    long before it is sent, so the turns that begin for one person meanwhile go in one mail (a
    digest), and a player who comes back within it gets none. ``spacing``: after a mail, the
    next to the same person waits at least this long (a burst of games makes one digest, not a
    mail each). A mail that cannot be sent is tried again after ``retry_first`` seconds,
    doubling up to ``retry_max``, until ``give_up`` seconds after its turn began; a refusal
    (5xx) is given up at once."""

    host: str
    port: int
    sender: str
    tls: bool = False
    username: str | None = None
    password: str | None = None
    timeout: float = 30.0
    gather: float = 120.0
    spacing: float = 900.0
    poll: float = 15.0
    retry_first: float = 60.0
    retry_max: float = 3600.0
    give_up: float = 86400.0

    @property
    def shown(self) -> str:
        """The server as it may be printed (no password)."""
        scheme = "smtps" if self.tls else "smtp"
        user = f"{self.username}:***@" if self.username else ""
        return f"{scheme}://{user}{self.host}:{self.port}"

    @classmethod
    def parse(cls, url: str, sender: str | None, **pace: float) -> MailConfig:
        """``smtp://[user:password@]host[:port]`` (or ``smtps://``) and the From address."""
        text = url.strip()
        try:
            parts = urlsplit(text)
            port = parts.port
        except ValueError as e:
            raise MailConfigError(f"--smtp: {e}") from None
        if parts.scheme not in SCHEMES or not parts.hostname:
            raise MailConfigError("--smtp: expected smtp://host:port or smtps://host:port")
        if parts.path not in ("", "/") or parts.query:
            raise MailConfigError("--smtp: give only smtp://[user:password@]host:port")
        if not sender:
            raise MailConfigError("--smtp needs --mail-from ADDR: the address the mails come from")
        try:
            from_address = check_address(sender)
        except ActionError as e:
            raise MailConfigError(f"--mail-from: {e.message}") from None
        return cls(
            host=parts.hostname, port=port or SCHEMES[parts.scheme], sender=from_address, tls=parts.scheme == "smtps",
            username=unquote(parts.username) if parts.username else None,
            password=unquote(parts.password) if parts.password else None, **pace,
        )


__all__ = ["ADDRESS_CHARS", "MailConfig", "MailConfigError", "check_address"]
