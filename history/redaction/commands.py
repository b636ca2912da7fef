"""Passwords and tokens on command lines: database clients, cloud CLIs, curl and wget, key
tools. Only the value is masked; the command and its other arguments stay, so
`mysql -u root -p[redacted:cli-password] shop` is still found by `mysql` and `shop`.

A short flag (`-p`, `-P`, `-t`, `-a`) is a password only after a command known to take one
there, on the same line: `grep -p`, `tar -t` and `ssh -a` are no such thing.
"""

from __future__ import annotations

from typing import Final

from history.redaction.rule import Rule, keyed, lazy, near, secret_group

# A value on a command line: quoted, or up to the next space; not `$VAR`, `"$VAR"`, `<key>` or
# `sk-...`.
ARGUMENT: Final = (
    r"""(?!["']?[$<]|["']?[^\s'"]*(?:\.\.\.|…))"""
    r"""(?:'[^'\n]++'|"[^"\n]++"|[^\s'"`]++)"""
)
# `--password=…` / `--token …`, and the names tools give them (`--docker-password`,
# `--http-password`, `--account-key`); not `--password-stdin` or `--token-file`.
_LONG_FLAGS: Final = (
    "password|passwd|pass|db-password|token|api-key|apikey|secret|client-secret|auth-token"
    "|access-token|private-key|account-key|sas-token|access-key|secret-key|secret-access-key"
    "|authkey|auth-key|authtoken|docker-password|http-password|ftp-password|proxy-password"
    "|registry-password|admin-password|root-password|storepass|keypass|oauth2-bearer"
)
# The commands that take a password (or a token) after a short flag, with or without a space.
_SPACED_P: Final = (
    "sshpass",
    "docker login",
    "podman login",
    "helm registry login",
    "az login",
    "az acr login",
    "mongo",
    "twine upload",
)

RULES: Final[tuple[Rule, ...]] = (
    keyed(
        # `mysql -u root -pS3cret`: the password glued to -p (with a space it would prompt).
        "cli-password",
        r"-p(?<=[ \t]-p)(?![\s$-])(?P<secret>" + ARGUMENT + ")",
        decide=near(("mysql", "mariadb"), 200),
    ),
    keyed(
        "cli-password",
        r"-p(?<=[ \t]-p)[ \t]*(?P<secret>" + ARGUMENT + ")",
        decide=near(_SPACED_P, 200),
    ),
    keyed(
        "cli-password",
        r"-P(?<=[ \t]-P)[ \t]*(?P<secret>" + ARGUMENT + ")",
        decide=near(("sqlcmd", "bcp "), 200),
    ),
    keyed(
        "cli-password",
        r"-t(?<=[ \t]-t)[ \t]+(?P<secret>" + ARGUMENT + ")",
        decide=near(("doctl", "vercel", "netlify"), 200),
    ),
    keyed(
        "cli-password",
        r"-a(?<=[ \t]-a)[ \t]+(?P<secret>" + ARGUMENT + ")",
        decide=near(("redis-cli",), 200),
    ),
    Rule(
        # keytool's -storepass and -keypass (and their -src / -dest forms).
        "cli-password",
        tuple(
            lazy(rf"-{flag}(?<=[ \t]-{flag})[ \t]+(?P<secret>" + ARGUMENT + ")")
            for flag in ("storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass")
        ),
        secret_group,
    ),
    keyed(
        # With a space the value must look like a secret: `--token expired` is prose.
        "cli-password",
        r"--(?<![A-Za-z0-9_-]--)(?:" + _LONG_FLAGS + r")(?![A-Za-z0-9_-])"
        r"(?:=|[ \t]+(?=[^\s]{0,60}[^A-Za-z\s]|[^\s]{12}))(?P<secret>" + ARGUMENT + ")",
    ),
    Rule(
        # curl -u user:password, httpie -a user:password; not docker's -u 1000:1000, nor a URL
        # (`-u http://app`, `redis-cli -u redis://…`, whose password the URL rule finds).
        "cli-password",
        tuple(
            lazy(
                flag + r"[ \t]+[\"']?(?![0-9]+:|\[redacted:)[^\s:\"'@]{1,100}+:"
                r"(?P<secret>(?!\$|//)[^\s\"']++)"
            )
            for flag in (r"-u(?<=[ \t]-u)", r"-a(?<=[ \t]-a)", "--user")
        ),
        secret_group,
    ),
    keyed(
        # `wandb login 0123…` (40 hex digits), also with `--relogin` or `--host …` first.
        "wandb-key",
        r"wandb login(?:[ \t]+--host[ \t=]+[^\s]{1,200}+)?(?:[ \t]+--?[a-z-]{1,20}+){0,3}+[ \t]+"
        r"(?P<secret>(?:local-)?[a-f0-9]{40,}+)",
    ),
)
