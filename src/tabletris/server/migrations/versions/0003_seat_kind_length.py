"""``seats.kind`` holds an external bot's command (``ext:PATH``, up to 300 characters).

It was 32 characters, which SQLite never enforced; PostgreSQL refused such a seat's room.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # SQLite ignores a VARCHAR's length: nothing to change there (and no table to copy).
    if op.get_context().dialect.name != "sqlite":
        op.alter_column("seats", "kind", type_=sa.String(300), existing_type=sa.String(32), existing_nullable=False)


def downgrade() -> None:
    if op.get_context().dialect.name != "sqlite":
        op.alter_column("seats", "kind", type_=sa.String(32), existing_type=sa.String(300), existing_nullable=False)
