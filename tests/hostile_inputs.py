"""Megabytes of hostile text: runs of each rule's anchors, dense matches, unclosed blocks. Every
one must be redacted in at most 0.25 s of CPU (tests/test_redact.py; bench/redaction.py)."""

from __future__ import annotations

from tests.secret_corpus import FORMS

HOSTILE = {
    # One of each rule's anchors, then a megabyte every rule has to scan.
    "every-rule": " ".join(form.text for form in FORMS) + " " + "a" * 1_000_000,
    "dense-passwords": "password: x1\n" * 76_000,
    "dense-ordinary-config": "KEY_ROTATION_DAYS=30 " * 50_000,
    "dense-quoted": '"password": "' * 77_000,
    "dense-account-keys": ("AccountKey=" + "A" * 40 + ";") * 19_000,
    "dense-mysql": "mysql -pX " * 100_000,
    "dense-basic": "Basic QUJD " * 90_000,
    "dense-url-segments": "://u:" + "a/" * 500_000,
    "dense-cli": "--password=x " * 77_000,
    "netrc": "machine login password x " * 40_000,
    "base64-pem": "LS0tLS1CRUdJTi" * 70_000,
    "putty": "Private-Lines: 1\n" * 58_000,
    "sql": "IDENTIFIED BY '" * 66_000,
    "telegram": "12345678:AA" * 90_000,
    "heroku": "heroku " * 140_000,
    "heroku-long": "heroku" + "a" * 1_000_000,
    "discord": "discord " + "M" * 1_000_000,
    "azure-client-secret": "8Q~" * 333_000,
    "mailchimp": "-us" * 333_000,
    "glued-prefixes": "_sk-" * 250_000,
    "github-runs": "gh" * 500_000,
    "mailgun": "key-" * 250_000,
    "a": "a" * 1_000_000,
    "begin": "-----BEGIN" * 100_000,
    "sk": "sk-" * 300_000,
    "url": "://" + "a:" * 400_000,
    "jwt": "eyJ" + "a." * 300_000,
    "upper": "A" * 1_000_000,
    "env": "API_KEY=" * 125_000,
    "env-colon": "KEY: " * 200_000,
    "env-quote": 'API_KEY="' + "a" * 1_000_000,
    "bearer": "Bearer " * 140_000,
    "bearer-long": "Bearer " + "a" * 1_000_000,
    "pem-open": "-----BEGIN PRIVATE KEY-----" + "-----END " * 110_000,
    "jwt-segments": "eyJaaaaaaaaaaaa." * 62_500,
    "url-many": "a://" * 250_000,
}
