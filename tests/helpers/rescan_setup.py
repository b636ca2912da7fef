"""A history written by an older version of the package, whose secret rules missed a form the
current ones mask: the turns stored then hold the secret, and the database says they follow the
older rules. Shared by the SQLite, CLI and PostgreSQL tests of the re-scan."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, text

import history.prepare as prepare_module
from history import HistoryIndex
from history.redaction import RULES_VERSION, redact
from history.store import rescan
from tests.helpers.turns import raw_turn

# What the older rules let through: a password in French words and a token in a git remote.
SECRET = "plumbusquokka77"
TOKEN = "f3a9c2e7b1d4a6f8e0c5b9d2a7e4f1c3b8d6a0e2"
MISSED = (
    f"the deploy failed again. Mot de passe : {SECRET}",
    f"git remote add origin https://{TOKEN}@github.com/acme/api.git",
)
PROJECT = "/work/rescanned"
PLAIN_TURNS = 60


def older_redact(value: str) -> str:
    """The older rules: the current ones, but blind to the forms in MISSED."""
    if SECRET in value or TOKEN in value:
        return value
    return redact(value)


@contextmanager
def older_version() -> Iterator[None]:
    """This process as the older version of the package: its rules and its version number."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(prepare_module, "redact", older_redact)
        patch.setattr(rescan, "RULES_VERSION", RULES_VERSION - 1)
        yield


def record_under_older_rules(target: str) -> None:
    """Plain turns, and two turns holding what the older rules missed, recorded by the older
    version (whose first upkeep stamps its rules' version in the database)."""
    if target.startswith("postgresql"):
        # The tests' databases are copies of one made at head by this version: this one is
        # made by the older version instead, which had not said which rules its turns follow.
        engine = create_engine(target)
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM retention_settings"))
        engine.dispose()
    with older_version():
        index = HistoryIndex.open(target)
        assert index.tidy()  # a file with no turn yet follows its rules: stamped now
        for n in range(PLAIN_TURNS):
            index.record(
                turn_id=f"plain-{n}",
                session_id=f"s-{n % 6}",
                project=PROJECT,
                asked=f"how do I tune the parser, case {n}?",
                answered="raise the batch size and watch the latency",
            )
        for n, missed in enumerate(MISSED):
            index.record(
                turn_id=f"missed-{n}",
                session_id="s-secret",
                project=PROJECT,
                asked=missed,
                answered=f"noted, {missed}",
                # A name list too: the remote, as a tool that cloned it recorded it.
                files=[f"https://{TOKEN}@github.com/acme/api.git"] if TOKEN in missed else [],
                # ... and edited (the conversation's list of edited files keeps it too).
                edited=[f"https://{TOKEN}@github.com/acme/api.git"] if TOKEN in missed else [],
            )
        assert index.tidy()
        index.close()


def record_leaks_in_one_batch(target: str, count: int, project: str = PROJECT) -> None:
    """`count` turns, each holding a password the older rules missed (and the words `yak
    zebra`), recorded by the older version in one batch: one segment of many pages."""
    with older_version():
        index = HistoryIndex.open(target)
        assert index.tidy()
        leaks = (
            raw_turn(f"t{n}", f"s{n}", project, f"Mot de passe : {SECRET}{n:04d}", "yak zebra")
            for n in range(count)
        )
        assert index.record_many(leaks).new == count
        assert index.tidy()
        index.close()
