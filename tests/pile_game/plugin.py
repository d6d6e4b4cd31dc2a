"""Importing this module registers the pile game: what ``TABLETRIS_GAMES=pile_game.plugin`` asks
a fresh process (``tabletris replay`` in a subprocess) to do."""

from pile_game import install

install()
