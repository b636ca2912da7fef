"""Mask secrets in text before it is stored: `redact(text)`; the rules are in history/redaction."""

from __future__ import annotations

from history.redaction import KINDS, redact

__all__ = ["KINDS", "redact"]
