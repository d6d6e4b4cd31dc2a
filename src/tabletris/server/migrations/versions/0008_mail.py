"""Your-turn mail (issue 26 item 3): ``mail_settings`` (each account's address, on/off and
language), ``mail_queue`` (the notices waiting to be sent, one per account, room and turn) and
``server_keys`` (the secret that signs the unsubscribe links, shared by every instance).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_settings",
        sa.Column("account_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("email", sa.String(254), nullable=True),
        sa.Column("turn_mail", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("base_url", sa.String(300), nullable=True),
        sa.Column("last_sent", sa.Float(), nullable=True),
        sa.Column("updated", sa.Float(), nullable=False),
    )
    op.create_table(
        "mail_queue",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.String(36), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("room_id", sa.String(32), nullable=False),
        sa.Column("turn", sa.String(32), nullable=False),
        sa.Column("turn_started", sa.Float(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("players", sa.Text(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("due", sa.Float(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("claim", sa.String(32), nullable=True),
        sa.Column("claim_until", sa.Float(), nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
        sa.UniqueConstraint("account_id", "room_id", "turn", name="uq_mail_queue_turn"),
    )
    op.create_index("ix_mail_queue_status_due", "mail_queue", ["status", "due"])
    op.create_index("ix_mail_queue_account", "mail_queue", ["account_id"])
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("secret", sa.String(128), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_keys")
    op.drop_index("ix_mail_queue_account", "mail_queue")
    op.drop_index("ix_mail_queue_status_due", "mail_queue")
    op.drop_table("mail_queue")
    op.drop_table("mail_settings")
