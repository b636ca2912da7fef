"""redact: every kind of secret is masked, ordinary code is left alone, hostile text is cheap."""

from __future__ import annotations

import gc
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from history.redact import KINDS, redact
from history.redaction import RULES
from tests.helpers.hostile_inputs import HOSTILE
from tests.helpers.secret_samples import ALNUM, FRAGMENTS, JWT, PEM, SECRETS, body


def test_every_kind_is_a_distinct_lower_case_word() -> None:
    assert len(set(KINDS)) == len(KINDS) >= 60
    assert all(kind.replace("-", "").isalnum() and kind == kind.lower() for kind in KINDS)


@pytest.mark.parametrize(("text", "kind", "secret"), SECRETS, ids=[k for _, k, _ in SECRETS])
def test_a_secret_is_masked_by_kind(text: str, kind: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert f"[redacted:{kind}]" in out


ORDINARY = [
    "password = get_password()",
    'token = request.headers["Authorization"]',
    "api_key=None",
    "api_key = os.environ['OPENAI_API_KEY']",
    "git checkout 3f786850e387550fdab836ed7e6dc881de23001b",
    "id = 123e4567-e89b-12d3-a456-426614174000",
    "pip install scikit-learn  # aka sk-learn, imported as sklearn",
    "see sk-1 and sk-2 in the spreadsheet; ask-for-the-risk-assessment-document-now",
    "sk-learn-compatible-estimator-wrapper",
    "The Bearer scheme sends a token; Bearer tokens expire.",
    'headers = {"Authorization": f"Bearer {token}"}',
    "authentication_classes = [Bearer TokenAuthentication]",
    "API_KEY = os.environ['API_KEY']",
    "SECRET_KEY = get_secret()",
    "GITHUB_TOKEN = None",
    "MAX_TOKENS = 4096",
    "TOKENIZER_PATH=/models/tok",
    "if API_KEY == expected:",
    "def f(API_KEY: str = None) -> None:",
    'print(f"API_KEY={API_KEY}")',
    "OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}",
    "export GITHUB_TOKEN=$GH_TOKEN",
    "https://example.com:8080/path?q=1",
    "user@example.com wrote: see https://docs.python.org/3/",
    "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\n-----END PUBLIC KEY-----",
    "hf_hub_download(repo_id='gpt2')",
    "npm_config_registry=https://registry.npmjs.org",
    "sk_test_helper and rk_live_ prefix constants",
    "eyJ is how base64 JSON starts",
    "",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_code_is_left_alone(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("OPENAI_API_KEY=abc123xyz", "OPENAI_API_KEY=[redacted:api-key]"),
        ('export DB_PASSWORD="hunter2"', 'export DB_PASSWORD="[redacted:password]"'),
        (
            "AWS_SECRET_ACCESS_KEY: xyz1\nREGION: eu",
            "AWS_SECRET_ACCESS_KEY: [redacted:secret]\nREGION: eu",
        ),
        ("API_TOKEN='t0k' make deploy", "API_TOKEN='[redacted:secret]' make deploy"),
        ('{"STRIPE_SECRET": "abc1"}', '{"STRIPE_SECRET": "[redacted:secret]"}'),
        ('API_KEY: str = "abc1"', 'API_KEY: str = "[redacted:api-key]"'),
        ('os.environ["API_KEY"] = "abc1"', 'os.environ["API_KEY"] = "[redacted:api-key]"'),
        ("mysql -u root -pS3cret-pw shop", "mysql -u root -p[redacted:cli-password] shop"),
        ('password = "hunter2"', 'password = "[redacted:password]"'),
        (
            "db:\n  password: hunter2\n  host: db",
            "db:\n  password: [redacted:password]\n  host: db",
        ),
        (
            "Server=db;User Id=sa;Password=Pa55word!;Encrypt=true",
            "Server=db;User Id=sa;Password=[redacted:password];Encrypt=true",
        ),
        ('{"apiKey": "AbC123dEf456"}', '{"apiKey": "[redacted:api-key]"}'),
        ("aws_" + "AK" + "IA" + "IOSFODNN7EXAMPLE", "aws_[redacted:aws-access-key-id]"),
        (
            "AK" + "IA" + "IOSFODNN7EXAMPLE" + "_backup.csv",
            "[redacted:aws-access-key-id]_backup.csv",
        ),
        (
            "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/" + body(24),
            "https://hooks.slack.com/services/[redacted:slack-webhook]",
        ),
        (
            "OPENAI_API_KEY=" + "sk-" + body(48),
            "OPENAI_API_KEY=[redacted:openai-key]",
        ),
        (
            "postgres://app:hunter2@db.internal:5432/app",
            "postgres://app:[redacted:url-password]@db.internal:5432/app",
        ),
        ("redis://:hunter2@cache:6379/0", "redis://:[redacted:url-password]@cache:6379/0"),
        (
            "https://bot:" + "gh" + "p_" + body(36) + "@github.com/o/r.git",
            "https://bot:[redacted:github-token]@github.com/o/r.git",
        ),
        (
            "curl -H 'Authorization: Bearer abcDEF1234567890xyz' https://api",
            "curl -H 'Authorization: Bearer [redacted:bearer-token]' https://api",
        ),
        (
            "authorization: bearer abcDEF1234567890xyz",
            "authorization: bearer [redacted:bearer-token]",
        ),
        ("Authorization: Bearer " + JWT, "Authorization: Bearer [redacted:jwt]"),
    ],
)
def test_surrounding_parts_are_kept(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_httpie_password_without_another_secret_word_is_masked() -> None:
    # A short text was scanned for secrets known by their surroundings only when it held one of
    # a list of words, and `-a` (httpie's user:password flag) was not among them.
    assert (
        redact("http -a bob:hunter2 example.org")
        == "http -a bob:[redacted:cli-password] example.org"
    )


def test_a_whole_pem_block_is_one_mask_and_the_text_after_it_survives() -> None:
    assert redact("before\n" + PEM + "\nafter") == "before\n[redacted:private-key]\nafter"


def test_a_truncated_pem_block_is_masked_to_the_end_of_the_text() -> None:
    text = "my key:\n-----BEGIN EC " + "PRIVATE KEY-----\n" + body(64) + "\n" + body(20)
    assert redact(text) == "my key:\n[redacted:private-key]"


def test_two_secrets_on_one_line_are_both_masked() -> None:
    text = "gh" + "p_" + body(36) + " and " + "sk-" + body(48)
    assert redact(text) == "[redacted:github-token] and [redacted:openai-key]"


secretish_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=4)), max_size=30
).map("".join)


@given(st.one_of(st.text(), secretish_text))
def test_redact_never_raises_and_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


lone_surrogates = st.integers(0xD800, 0xDFFF).map(chr)


@given(
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), lone_surrogates), min_size=1, max_size=20),
    st.sampled_from([0, 5_000]),
)
def test_a_lone_surrogate_becomes_a_replacement_character(parts: list[str], padding: int) -> None:
    # Short and long texts alike: neither UTF-8 nor a database can hold a lone surrogate.
    text = "".join(parts) + " " * padding
    out = redact(text)
    out.encode("utf-8")
    assert redact(out) == out


@given(st.text())
def test_redact_changes_text_only_by_masking(text: str) -> None:
    out = redact(text)
    assert out == text or "[redacted:" in out


@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_text_redacted_stays_so(text: str) -> None:
    # Its first 64 kB: the whole megabyte is redacted (and timed) alone, below.
    once = redact(text[:65536])
    assert redact(once) == once


BOUND_SECONDS = 0.5


@pytest.mark.timing_sensitive  # CPU seconds, which a starved machine inflates
@pytest.mark.parametrize("text", HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_megabyte_is_redacted_quickly(text: str) -> None:
    # Each pattern is compiled the first time a text could match it, once per process, and a
    # rule's decisions warm caches of their own: costs of start-up, which bench/startup.py
    # measures. The patterns are compiled first, here; the scan's worst case is bounded below.
    for rule in RULES:
        for pattern in rule.patterns:
            assert pattern.compiled.pattern == pattern.pattern
    # CPU time of this thread: neither other work on the machine nor another thread of the
    # process (an index's upkeep left by an earlier test) counts against it.
    fastest = 9.0
    once: str | None = None
    gc.collect()
    gc.freeze()  # the suite's own objects: a collection would walk them, not redaction's
    try:
        # Another try only where the last was slow (the first pays the rules' caches too): a
        # single try on this 2-core VM moves with the load, so the least of five is the scan's
        # cost. The slowest (dense-account-keys, spoken-cjk, every-rule) took 0.05-0.10 s at
        # best and up to 0.13 s a try on this host shared with other work (bench/RESULTS.md,
        # redaction of long texts). On 2026-12-07 the same host ran every-rule at 0.23 s best
        # of five while idle, unchanged code included (the suite's parallel run took twice its
        # usual time that day): the bound is against a backtracking pattern (seconds and more),
        # not a host twice as slow, so it allows 0.5 s.
        for _ in range(5):
            started = time.thread_time()
            masked = redact(text)
            fastest = min(fastest, time.thread_time() - started)
            assert once is None or masked == once
            once = masked
            if fastest <= BOUND_SECONDS:
                break
    finally:
        gc.unfreeze()
    assert fastest <= BOUND_SECONDS


# Forms found reaching the index, each masked now with the words around it kept.
PASTED = [
    (
        "aws configure set aws_secret_access_key " + body(40, ALNUM + "/+"),
        "aws configure set aws_secret_access_key [redacted:aws-secret-access-key]",
    ),
    (
        "git remote set-url origin https://" + body(40, "0123456789abcdef") + "@github.com/o/r.git",
        "git remote set-url origin https://[redacted:url-token]@github.com/o/r.git",
    ),
    ("db.internal:5432:shop:app:Hunter2pw", "db.internal:5432:shop:app:[redacted:pgpass-password]"),
    (
        "ngrok config add-authtoken 2" + body(26) + "_" + body(21),
        "ngrok config add-authtoken [redacted:ngrok-token]",
    ),
    (
        "tailscale up --authkey=tskey-" + "auth-k" + body(10) + "CNTRL-" + body(32),
        "tailscale up --authkey=[redacted:tailscale-key]",
    ),
    ("Cookie: sessionid=" + body(32), "Cookie: sessionid=[redacted:cookie]"),
    (
        "Set-Cookie: sid=" + body(32) + "; Path=/; HttpOnly",
        "Set-Cookie: sid=[redacted:cookie]; Path=/; HttpOnly",
    ),
    (
        "az login -u ops@contoso.com -p 'Zq7!pass-word'",
        "az login -u ops@contoso.com -p [redacted:cli-password]",
    ),
    ("my password is hunter2", "my password is [redacted:password]"),
    ("use password Tr0ub4dor&3 for root", "use password [redacted:password] for root"),
    ("Mot de passe : Tr0ub4dor", "Mot de passe : [redacted:password]"),
    ("Passwort: geheim", "Passwort: [redacted:password]"),
    ("contraseña: Tr0ub4dor", "contraseña: [redacted:password]"),
    ("senha: Tr0ub4dor", "senha: [redacted:password]"),
    ("пароль: Tr0ub4dor", "пароль: [redacted:password]"),
    ("비밀번호: Tr0ub4dor", "비밀번호: [redacted:password]"),
    ("パスワード: Tr0ub4dor", "パスワード: [redacted:password]"),
    ("パスワードはTr0ub4dorです", "パスワードは[redacted:password]です"),
    ("密码：Tr0ub4dor", "密码：[redacted:password]"),
    ("API密钥=" + body(32), "API密钥=[redacted:api-key]"),
    ("PASSWORD=correct horse battery staple", "PASSWORD=[redacted:password]"),
    ("api_key=ZcpmqikFyCpfiuQwjW", "api_key=[redacted:api-key]"),
    (
        '{"auths": {"ghcr.io": {"auth": "bWU6aHVudGVyMg=="}}}',
        '{"auths": {"ghcr.io": {"auth": "[redacted:basic-auth]"}}}',
    ),
]


@pytest.mark.parametrize(("text", "expected"), PASTED)
def test_the_forms_people_paste_are_masked_and_their_words_kept(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_the_second_half_of_a_key_wrapped_over_two_lines_is_masked() -> None:
    key = "sk-" + "proj-" + body(120, ALNUM + "_-")
    assert redact(f"OPENAI_API_KEY={key[:70]}\n{key[70:]}\nREGION=eu") == (
        "OPENAI_API_KEY=[redacted:openai-key]\n[redacted:openai-key]\nREGION=eu"
    )


@given(st.integers(min_value=40, max_value=100), st.sampled_from(["\n", "\r\n", "\\n", "\n    "]))
def test_a_key_wrapped_anywhere_leaves_nothing_of_its_second_part(cut: int, newline: str) -> None:
    key = "sk-" + "proj-" + body(120, ALNUM + "_-")
    out = redact(f"key: {key[:cut]}{newline}{key[cut:]}")
    assert key[cut:] not in out
    assert key[:cut] not in out


def test_prose_after_a_mask_is_not_taken_for_a_wrapped_key() -> None:
    text = "token_" + "gh" + "p_" + body(36) + "\nREADME updated\nsee docs"
    assert redact(text) == "token_[redacted:github-token]\nREADME updated\nsee docs"


def test_a_url_after_u_is_not_taken_for_user_and_password() -> None:
    # `-u http://app` was masked as `-u http:[redacted:cli-password]`.
    text = "az login --service-principal -u http://ci-app --tenant contoso"
    assert redact(text) == text
    assert redact("redis-cli -u redis://default:Hunter2x@cache:6379") == (
        "redis-cli -u redis://default:[redacted:url-password]@cache:6379"
    )


def test_a_mask_is_not_taken_for_user_and_password() -> None:
    # `redis-cli -a "$REDIS_PASSWORD"` became `-a [redacted:[redacted:cli-password]`.
    assert redact('redis-cli -a "$REDIS_PASSWORD" ping') == 'redis-cli -a "$REDIS_PASSWORD" ping'
    assert redact("redis-cli -a Hunter2pw ping") == "redis-cli -a [redacted:cli-password] ping"


def test_netrc_password_needs_its_machine_and_login_before_it() -> None:
    # A text naming a machine and a login anywhere had its next "password is" masked.
    text = "the machine runs; login first.\nThe password is required."
    assert redact(text) == text
    assert redact("machine h login me\npassword Hunter2pw") == (
        "machine h login me\npassword [redacted:netrc-password]"
    )


@pytest.mark.parametrize(
    "text",
    [
        "The password is required.",
        "the password is hashed with bcrypt",
        "the password is stored as a SHA256 hash",
        "Password must be at least 8 characters long.",
        "use password authentication",
        "Le mot de passe est incorrect.",
        "Das Passwort ist falsch.",
        "Passwort: siehe Tresor",
        "La contraseña es obligatoria.",
        "A senha é obrigatória.",
        "パスワードは必須です。",
        "密码是必填项。",
        "비밀번호는 필수입니다.",
        "Пароль не подходит.",
        "[sudo] password for alice:",
        "Password for 'https://octocat@github.com':",
        "senha: ********",
        "contraseña: <tu-contraseña>",
        "API_KEY=xxxxxxxxxxxxxxxxxxxx",
        "GITHUB_TOKEN=ghp_" + "x" * 36,
        "api_key: YourApiKeyHere",
        "Cookie: theme=dark; lang=en",
        'mysql -u root -p"$MYSQL_ROOT_PASSWORD" shop',
        "https://<user>:<token>@github.com/acme/shop.git",
    ],
)
def test_prose_prompts_and_placeholders_about_passwords_stay(text: str) -> None:
    assert redact(text) == text


@given(st.from_regex(r"[a-z]{3,12}", fullmatch=True), st.sampled_from(["is", "was", "ist", "est"]))
def test_a_word_after_password_is_is_prose(word: str, verb: str) -> None:
    text = f"the password {verb} {word} now"
    assert redact(text) == text


def test_a_password_variable_glued_to_an_id_masks_its_value() -> None:
    """Regression: hypothesis drew the session id `sess-PASSWORD=correct horse battery staple`
    and the passphrase stayed in the stored id: the name read as `sess-PASSWORD`, not upper case
    as a whole, so a bare word after it was taken for code (`token = response`)."""
    assert "correct" not in redact("sess-PASSWORD=correct horse battery staple")
    assert "correct" not in redact("see a-PASSWORD=correct horse")
    assert redact("x-api-key = value here") == "x-api-key = value here"  # code, as before
