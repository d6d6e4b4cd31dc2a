"""``rooms.turn_started``: when the turn in play began, kept apart from ``updated``.

An instance taking a room over worked out the turn's deadline from ``updated``, the room's last
stored change. In the tower game every seat's submission is stored as it comes, so the round's
clock restarted from the last submission on the instance that took over.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("turn_started", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("turn_started")
