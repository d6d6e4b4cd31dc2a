"""The your-turn mails, in the player's language, and the signed one-click unsubscribe link.

Every sentence is a gettext message (the ``web`` catalogs: Czech and Chinese beside English),
put in the language the player chose when they asked for mail. One turn waiting makes a mail
about that game; several make one digest listing each. Every mail carries RFC 8058's
``List-Unsubscribe`` (the signed link) and ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``,
so a mail program's "unsubscribe" button turns the mail off with one POST, and the same link
opened in a browser shows a page with a button (a GET never unsubscribes: link scanners follow
links).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from urllib.parse import quote

from tabletris.engine.games import GAMES
from tabletris.i18n import _ as gettext
from tabletris.i18n import language, ngettext, translate
from tabletris.server.mail.store import Notice

SIGNATURE_BYTES = 16


def sign(key: bytes, account_id: str) -> str:
    """The unsubscribe token of an account: its id and an HMAC-SHA256 of it under the server's
    key (``store.signing_key``). It holds no address, and opens nothing but the unsubscribe."""
    mac = hmac.new(key, b"unsubscribe:" + account_id.encode("utf-8"), hashlib.sha256).digest()[:SIGNATURE_BYTES]
    return account_id + "." + base64.urlsafe_b64encode(mac).decode("ascii").rstrip("=")


def verify(key: bytes, token: str) -> str | None:
    """The account a token names, when its signature is this server's (None otherwise)."""
    account_id, dot, _sig = token.rpartition(".")
    if not dot or not account_id or len(token) > 120:
        return None
    return account_id if hmac.compare_digest(sign(key, account_id), token) else None


def unsubscribe_url(base_url: str, token: str) -> str:
    """The link, with the token in the query (``token=``), which the server's log redaction masks."""
    return f"{base_url.rstrip('/')}/unsubscribe?token={quote(token, safe='')}"


def room_url(base_url: str, room_id: str) -> str:
    return f"{base_url.rstrip('/')}/room/{quote(room_id, safe='')}"


def _game_title(game: str, lang: str) -> str:
    """The game's full name ("Dice Tetris"), which reads as a name in every sentence."""
    spec = GAMES.get(game)
    return translate(spec.title if spec is not None else game, lang, "web")


def _with(players: Sequence[str]) -> str:
    return ", ".join(players) if players else "-"


def compose(
    sender: str, to: str, lang: str, username: str | None, base_url: str, notices: Sequence[Notice], token: str,
) -> EmailMessage:
    """The mail for ``notices`` (one: that game; several: a digest), in ``lang``."""
    link_off = unsubscribe_url(base_url, token)
    with language(lang):
        name = username or ""
        lines = [gettext("Hello {name},").format(name=name), ""]
        if len(notices) == 1:
            n = notices[0]
            game = _game_title(n.game, lang)
            subject = gettext("Your turn in {game} with {players}").format(game=game, players=_with(n.players))
            lines += [
                gettext("It is your turn in {game} with {players}.").format(game=game, players=_with(n.players)),
                gettext("Play your move: {link}").format(link=room_url(base_url, n.room_id)),
            ]
        else:
            count = len(notices)
            subject = ngettext("{n} game waits for your move", "{n} games wait for your move", count).format(n=count)
            lines.append(ngettext("{n} game waits for your move:", "{n} games wait for your move:", count).format(n=count))
            lines.append("")
            for n in notices:
                game = _game_title(n.game, lang)
                lines.append(gettext("- {game} with {players}: {link}").format(
                    game=game, players=_with(n.players), link=room_url(base_url, n.room_id)))
        lines += [
            "",
            "-- ",
            gettext("You get this mail because you asked tabletris to tell you when it is your turn and you are away."),
            gettext("Stop these mails with one click: {link}").format(link=link_off),
        ]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "tabletris: " + subject
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    message["List-Unsubscribe"] = f"<{link_off}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message["Auto-Submitted"] = "auto-generated"
    message.set_content("\n".join(lines) + "\n")
    message["Content-Language"] = lang.replace("_", "-")  # after set_content, which clears Content-*
    return message


__all__ = ["compose", "room_url", "sign", "unsubscribe_url", "verify"]
