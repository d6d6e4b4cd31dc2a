"""Ratings, each account's games, and the Play now queue (issue 25).

``scored_rooms``: one row per ended room whose result was recorded (its insert decides, once
across instances); ``ratings``: openskill's mu and sigma per account and game; ``player_games``:
each account's ended games; ``queue_tickets``: the Play now queue.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scored_rooms",
        sa.Column("room_id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.String(36), primary_key=True),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("shown", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated", sa.Float(), nullable=False),
    )
    op.create_index("ix_ratings_game_shown", "ratings", ["game", "shown"])
    op.create_table(
        "player_games",
        sa.Column("room_id", sa.String(32), primary_key=True),
        sa.Column("account_id", sa.String(36), primary_key=True),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("result", sa.String(12), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=True),
    )
    op.create_index("ix_player_games_account_at", "player_games", ["account_id", "at"])
    op.create_table(
        "queue_tickets",
        sa.Column("ticket", sa.String(48), primary_key=True),
        sa.Column("account_id", sa.String(36), nullable=False, index=True),
        sa.Column("username", sa.String(64), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("bot_after", sa.Float(), nullable=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("room_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
    )
    op.create_index("ix_queue_bucket", "queue_tickets", ["game", "preset", "players", "status"])


def downgrade() -> None:
    op.drop_index("ix_queue_bucket", "queue_tickets")
    op.drop_table("queue_tickets")
    op.drop_index("ix_player_games_account_at", "player_games")
    op.drop_table("player_games")
    op.drop_index("ix_ratings_game_shown", "ratings")
    op.drop_table("ratings")
    op.drop_table("scored_rooms")
