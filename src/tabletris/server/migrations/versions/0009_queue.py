"""The Play now queue in use (issue 25): one ticket per account, and when it was matched and
last asked for.

``queue_tickets.account_id`` becomes unique (one ticket per account, whichever instance it was
posted on); ``matched`` keeps a matched ticket readable for a while (the page follows it to its
room); ``seen`` is when the account last asked for its waiting ticket (a page that went away
leaves the queue instead of being matched into a game nobody plays).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DELETE FROM queue_tickets")  # nothing used the table before this revision
    with op.batch_alter_table("queue_tickets") as batch:
        batch.add_column(sa.Column("matched", sa.Float(), nullable=True))
        batch.add_column(sa.Column("seen", sa.Float(), nullable=True))
        batch.drop_index("ix_queue_tickets_account_id")
        batch.create_index("ux_queue_tickets_account", ["account_id"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("queue_tickets") as batch:
        batch.drop_index("ux_queue_tickets_account")
        batch.create_index("ix_queue_tickets_account_id", ["account_id"])
        batch.drop_column("seen")
        batch.drop_column("matched")
