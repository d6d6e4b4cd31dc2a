"""tabletris.bots"""
