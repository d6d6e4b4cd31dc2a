"""``seats.tower``: the tower and end a seat chose (tower game), stored with the seat.

The choice lived in one instance's memory: a player who chose on one instance lost the tower when
the game started on another, and a restarted server forgot every choice of a waiting room.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("tower", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("tower")
