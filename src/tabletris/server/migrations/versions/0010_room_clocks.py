"""``rooms.clocks``: each seat's game clock in a room played with real-time clocks (issue 26).

A room created with a Fischer clock (initial time plus an increment per move) keeps every
seat's time left when the turn in play began, and the time a tower seat used this round, as
JSON text written with each move in the move's own guarded update: an instance that takes the
room over, or a server restarted, reads the clocks back instead of starting them again. Null in
every other room (untimed, per-move and turn-based rooms work their deadline out from
``turn_started``).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("clocks", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("clocks")
