"""The table: what sits between the engine (with its bots) and every front end.

Seats (who plays, people or bots), the one turn driver that asks the engine who acts and lets bots
play, and saving records. The command line, the terminal app, the web server, the lab and the AI
environments all use it, so none of them re-encodes the turn protocol; each keeps only its own
timing, drawing and I/O.
"""
