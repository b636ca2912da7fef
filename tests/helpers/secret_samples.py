"""Secrets and the fragments of them that must not survive redaction."""

from __future__ import annotations

# Fake secrets are assembled at run time so that no secret scanner mistakes this file for a leak.
ALNUM = "aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5"


def body(length: int, alphabet: str = ALNUM) -> str:
    return (alphabet * (length // len(alphabet) + 1))[:length]


JWT = ".".join(
    [
        "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
        "eyJ" + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
        "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    ]
)


BEARER = body(40, ALNUM + "._~+/-")


PEM_BODY = "MIIEpAIBAAKCAQEA" + body(64) + "\n" + body(64)


PEM = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + PEM_BODY + "\n-----END RSA " + "PRIVATE KEY-----"


# (text, kind, the secret that must not survive)
SECRETS: list[tuple[str, str, str]] = [
    ("key is " + "sk-" + body(48), "openai-key", body(48)),
    ("sk-" + "proj-" + body(40, ALNUM + "_-"), "openai-key", body(40, ALNUM + "_-")),
    ("ANTHROPIC: " + "sk-" + "ant-api03-" + body(93), "anthropic-key", body(93)),
    ("use " + "gh" + "p_" + body(36) + " now", "github-token", body(36)),
    ("gh" + "o_" + body(36), "github-token", body(36)),
    ("gh" + "u_" + body(36), "github-token", body(36)),
    ("gh" + "s_" + body(36), "github-token", body(36)),
    ("gh" + "r_" + body(36), "github-token", body(36)),
    ("github" + "_pat_" + body(22) + "_" + body(59), "github-token", body(59)),
    ("gl" + "pat-" + body(20), "gitlab-token", body(20)),
    ("id AK" + "IA" + "IOSFODNN7EXAMPLE", "aws-access-key-id", "IOSFODNN7EXAMPLE"),
    ("AS" + "IA" + "Q3EGUZMH5XN7W2KB,", "aws-access-key-id", "Q3EGUZMH5XN7W2KB"),
    ("xo" + "xb-" + "1234567890-" + body(24), "slack-token", body(24)),
    ("xo" + "xp-" + "1234567890-" + body(24), "slack-token", body(24)),
    ("sk" + "_live_" + body(24), "stripe-key", body(24)),
    ("rk" + "_live_" + body(24), "stripe-key", body(24)),
    ("sk" + "_test_" + body(24), "stripe-key", body(24)),
    ("AI" + "za" + body(35, ALNUM + "_-"), "google-api-key", body(35, ALNUM + "_-")),
    ("hf" + "_" + body(34), "huggingface-token", body(34)),
    ("npm" + "_" + body(36), "npm-token", body(36)),
    ("token=" + JWT, "jwt", JWT.split(".")[2]),
    ("Authorization: Bearer " + BEARER, "bearer-token", BEARER),
    ("Bearer " + body(40, "abcdefXYZ"), "bearer-token", body(40, "abcdefXYZ")),
    ("here:\n" + PEM + "\nthanks", "private-key", PEM_BODY),
    ("-----BEGIN " + "PRIVATE KEY-----\n" + body(80), "private-key", body(80)),
    ("-----BEGIN OPENSSH " + "PRIVATE KEY-----\\n" + body(70), "private-key", body(70)),
    ("postgres://app:s3cr3t-Pa55@db:5432/app", "url-password", "s3cr3t-Pa55"),
    ("OPENAI_API_KEY=abc123xyz", "api-key", "abc123xyz"),
    ('export DB_PASSWORD="hunter2"', "password", "hunter2"),
    ("AWS_SECRET_ACCESS_KEY: xyz1", "secret", "xyz1"),
]


# Text built from secret-shaped pieces and the punctuation around them finds more edge cases
# than uniformly random characters do.
FRAGMENTS = [
    "sk-",
    "sk-ant-",
    "gh" + "p_",
    "github_pat_",
    "glpat-",
    "AKIA",
    "xoxb-",
    "sk_live_",
    "AIza",
    "hf_",
    "npm_",
    "eyJ",
    "Bearer ",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "://",
    "user:",
    "@host",
    "API_KEY",
    "DB_PASSWORD",
    "=",
    ": ",
    ": str = ",
    '"',
    "'",
    "[",
    "]",
    "(",
    "[redacted:",
    "[redacted:secret]",
    ".",
    "_",
    "-",
    " ",
    "\n",
    "$",
    "None",
    body(12),
    body(40),
    "ABCDEFGH12345678",
    "1",
    "Z",
]
