"""Ordinary lines stay exactly as they are: configuration that names keys, tokens and passwords
without holding one, code that passes secrets by name, SHAs, UUIDs, base64 test data, prose.
The table is tests/fixtures/redaction/ordinary_lines.txt (a few hundred lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from history.redact import redact

TABLE = Path(__file__).parent / "fixtures" / "redaction" / "ordinary_lines.txt"
ORDINARY = [line for line in TABLE.read_text("utf-8").splitlines() if not line.startswith("#|")]


def test_the_table_is_a_few_hundred_lines_with_the_configuration_the_issue_names() -> None:
    assert len(ORDINARY) >= 300
    for named in (
        "KEY_ROTATION_DAYS=30",
        "PASSWORD_MIN_LENGTH=12",
        "TOKEN_EXPIRY_SECONDS=3600",
        "SECRET_KEY_LENGTH=50",
        "JWT_SECRET_ALGORITHM=HS256",
        "ENCRYPTION_KEY_PATH=/etc/myapp/keys/encryption.key",
        "max_tokens=4096",
    ):
        assert named in ORDINARY


@pytest.mark.parametrize("line", ORDINARY)
def test_an_ordinary_line_is_left_alone(line: str) -> None:
    assert redact(line) == line


def test_the_whole_table_as_one_text_is_left_alone() -> None:
    text = "\n".join(ORDINARY)
    assert redact(text) == text
