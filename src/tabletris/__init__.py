"""tabletris: the digital table for tabletop Tetris games."""

__version__ = "0.1.0"
