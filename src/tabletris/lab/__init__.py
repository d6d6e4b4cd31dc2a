"""tabletris.lab"""
