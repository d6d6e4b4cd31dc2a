"""tabletris.engine"""
