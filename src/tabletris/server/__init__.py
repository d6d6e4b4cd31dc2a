"""tabletris.server"""
