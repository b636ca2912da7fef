"""The embedded backend: one SQLite file, FTS5 full text (a LIKE search where FTS5 is missing)."""
