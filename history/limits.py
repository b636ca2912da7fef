"""The bounds every face applies to what it is asked: one place, so the CLI, the tool, the HTTP
service and the MCP server refuse the same things."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

# How many hits one search returns at most.
MAX_K = 10
# How far back `days` may reach: a century, further back than any turn, and still a datetime
# Python can subtract.
MAX_DAYS = 36_500
# How many characters a query may hold: the HTTP service's `q`, and a query `recall search -`
# reads from stdin (a longer one is refused, not cut).
MAX_QUERY_CHARS = 10_000
# What is stored of a turn: longer text is cut before it is stored (excerpts never need more);
# a turn's work (its commands, failures and added lines) is kept to its first part, what a search
# for an error or a command needs, a quarter of an answer's bound.
MAX_TEXT_CHARS = 64_000
MAX_WORK_CHARS = 16_000
MAX_PATHS = 1_000
MAX_PATH_CHARS = 1_000


def since(days: int | None) -> datetime | None:
    """The moment `days` reaches back to (None: no bound). Raises ValueError past MAX_DAYS."""
    if days is None:
        return None
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be a whole number of days from 1 to {MAX_DAYS}")
    return datetime.now(UTC) - timedelta(days=days)
