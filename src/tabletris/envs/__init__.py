"""tabletris.envs"""
