"""Forgetting on SQLite, in steps that each hold the write lock briefly (steps.py)."""
