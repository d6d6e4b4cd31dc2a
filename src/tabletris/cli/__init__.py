"""tabletris.cli"""
