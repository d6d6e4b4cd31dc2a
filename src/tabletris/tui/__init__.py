"""tabletris.tui"""
