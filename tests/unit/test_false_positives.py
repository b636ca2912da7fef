"""Ordinary lines stay exactly as they are: configuration that names keys, tokens and passwords
without holding one, code that passes secrets by name, SHAs, UUIDs, base64 test data and
images, public keys, lock files, URLs without credentials, password prompts, placeholders, prose
about passwords in ten languages. The table is tests/fixtures/redaction/ordinary_lines.txt and
the lines tests/helpers/ordinary_lines.py makes (some nine hundred in all)."""

from __future__ import annotations

import pytest

from history.redact import redact
from tests.helpers.ordinary_lines import ORDINARY, generated


def test_the_table_is_a_few_hundred_lines_with_the_configuration_the_issue_names() -> None:
    assert len(ORDINARY) >= 900
    assert len(generated()) >= 450
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


def test_the_table_holds_the_shapes_most_like_a_secret() -> None:
    for named in (
        'password = os.environ["DB_PASSWORD"]',
        "api_key=None",
        "api_key=<your-key>",
        "API_KEY=xxxx",
        "token: ***",
        "OPENAI_API_KEY=${API_KEY}",
        "Password for 'https://github.com':",
        "Mot de passe :",
        "パスワードは必須です。",
        "Das Passwort ist falsch.",
        "Cookie: theme=dark; lang=en",
        "hostname:port:database:username:password",
    ):
        assert named in ORDINARY
    shapes = ("ssh-ed25519 AAAA", "integrity", "sha256:", "data:image/", "h1:", "-4")
    for shape in shapes:
        assert sum(shape in line for line in ORDINARY) >= 8, shape


def test_at_most_one_line_in_two_hundred_is_masked() -> None:
    masked = [line for line in ORDINARY if redact(line) != line]
    assert len(masked) <= len(ORDINARY) * 0.005, masked


@pytest.mark.parametrize("line", ORDINARY)
def test_an_ordinary_line_is_left_alone(line: str) -> None:
    assert redact(line) == line


def test_the_whole_table_as_one_text_is_left_alone() -> None:
    text = "\n".join(ORDINARY)
    assert redact(text) == text
