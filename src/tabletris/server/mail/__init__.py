"""Your-turn mail (issue 26 item 3): when a turn of a turn-based game begins for a person who
asked for mail and is away from the room, a mail with a link to the room, through the
operator's SMTP server (``tabletris serve --smtp URL --mail-from ADDR``; off by default).

- ``config``: the operator's settings, and the check every address passes (email-validator);
- ``store``: the tables (migration 0008) and every query: settings, the queue, the signing key;
- ``compose``: the mails in the player's language, and the signed unsubscribe link;
- ``sender``: the trigger on a room's turn change, and the background task that sends;
- ``routes``: ``/api/me/notifications`` and ``/unsubscribe``.
"""

from tabletris.server.mail.config import MailConfig, MailConfigError, check_address

__all__ = ["MailConfig", "MailConfigError", "check_address"]
