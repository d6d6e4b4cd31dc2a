"""What both game screens' side panels share: the message line, and the "fits / why not" line.

Each game's own panels are in its widgets module (``widgets.dice``, ``widgets.tower``): a
``Static`` with ``update_from(...)``; the screen hands it the game (and the ghost when there is
one) and the panel lays the engine's numbers out."""

from __future__ import annotations

from rich.text import Text
from textual.content import Content
from textual.widgets import Static

from tabletris.tui import palette
from tabletris.tui.texts import _, engine_text, ngettext


class MessageLine(Static):
    """The last thing the app had to tell the player (an error in the theme's error colour)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        self.error = False

    def say(self, text: str, error: bool = False) -> None:
        self.text, self.error = text, error
        style = "b $text-error" if error else "$text-accent"
        self.update(Content.styled(text, style) if text else "")

    def clear(self) -> None:
        self.say("")

    def __str__(self) -> str:
        return self.text


def fits_line(reason: str | None, rows: int = 0, key: str = "place") -> Text:
    """"✔ fits" (with the rows it completes) or "✘ why not", the reason being the engine's."""
    text = Text()
    if reason is None:
        text.append("✔ " + _("fits"), f"bold {palette.GHOST_OK}")
        if rows:
            completes = ngettext("completes {n} row", "completes {n} rows", rows).format(n=rows)
            text.append(" · " + completes, f"bold {palette.HIGHLIGHT}")
        text.append("  ⏎ " + (_("place") if key == "place" else _("drop")), "dim")
    else:
        text.append("✘ " + engine_text(reason), f"bold {palette.GHOST_BAD}")
    return text
