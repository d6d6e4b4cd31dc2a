"""``rooms.version``: the number of events the database holds for the room.

Every move's transaction checks and bumps it (``UPDATE rooms SET version = new WHERE id = ? AND
version = old``), so of two instances answering the same turn exactly one commits; the other
sees no row updated and re-reads the room. Rooms stored before this revision get their event
count.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="0"))
    op.execute(
        "UPDATE rooms SET version = (SELECT COUNT(*) FROM events WHERE events.room_id = rooms.id)"
    )


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("version")
