"""The games the server serves: every registered game with a server front end, found at use.

``ADAPTERS`` is no registry of its own: it reads ``engine.games.GAMES`` each time it is asked, and
a game's adapter is the ``ADAPTER`` of the module its spec names (``front_ends["server"]``), so a
game registered after start-up (a plug-in, a test's game) is served like the built-in ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from tabletris.engine.games import GAMES
from tabletris.server.adapter import GameAdapter
from tabletris.server.errors import ActionError, engine_text


class _Adapters(Mapping[str, GameAdapter]):
    """Each registered game's server adapter, by name, in ``GAMES``'s order."""

    def __getitem__(self, name: str) -> GameAdapter:
        game = GAMES.get(name)
        if game is None or not game.has_front_end("server"):
            raise KeyError(name)
        adapter: GameAdapter = game.front_end("server").ADAPTER
        return adapter

    def __iter__(self) -> Iterator[str]:
        return iter([name for name, game in GAMES.items() if game.has_front_end("server")])

    def __len__(self) -> int:
        return sum(1 for _ in self)


ADAPTERS: Mapping[str, GameAdapter] = _Adapters()


def adapter_for(game: str) -> GameAdapter:
    try:
        return ADAPTERS[game]
    except (KeyError, TypeError):
        raise ActionError("unknown_game", f"unknown game {game!r}: expected one of {', '.join(ADAPTERS)}") from None


__all__ = ["ADAPTERS", "ActionError", "adapter_for", "engine_text"]
