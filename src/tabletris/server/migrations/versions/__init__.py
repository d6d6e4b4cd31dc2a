"""The revisions, oldest first (each names the one before it)."""
