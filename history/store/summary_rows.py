"""What both backends' summary rows (`conversations`, `conversation_edits`, `projects`) share:
the names of the triggers that keep them, and the columns of `turns` they are made of. Each
backend writes the triggers in its own SQL (sqlite/summaries.py, postgres/summaries.py)."""

from __future__ import annotations

TRIGGERS = ("turns_summary_ai", "turns_summary_ad", "turns_summary_au")
# Columns of `turns` the summaries are made of; a change to any other leaves them alone.
SUMMED_COLUMNS = ("session_id", "project", "asked_at", "tainted", "edited")
