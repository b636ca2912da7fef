"""An id or a project that held a secret is stored masked, the same way every time: it can still
be forgotten by the id the agent used, an import brings it back only when asked, and a
re-import adds nothing twice."""

from __future__ import annotations

import hashlib
import json
import stat
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from history import HistoryIndex, history_for
from history.cli import main
from history.redaction.ids import IdMask, id_key_path
from tests.helpers.engines import engine_of
from tests.helpers.importing import prompt, reply, write
from tests.helpers.secret_corpus import FORMS, Form, fake

TOKEN = "gh" + "p_" + fake("ids", 36)
PASSWORD = "Hu" + fake("ids-pw", 10)


@dataclass(frozen=True)
class Turn:
    turn_id: str
    session_id: str
    project: str
    asked: str
    answered: str = "done"
    files: tuple[str, ...] = ()
    edited: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    tainted: bool = False
    asked_at: datetime | None = datetime(2026, 3, 1, tzinfo=UTC)


def _file_bytes(db: Path) -> bytes:
    return b"".join(path.read_bytes() for path in db.parent.glob(db.name + "*"))


def test_an_id_with_a_secret_is_masked_tagged_and_the_same_every_time(tmp_path: Path) -> None:
    ids = IdMask(id_key_path(tmp_path / "history.db"))
    stored = ids.id(f"sess-{TOKEN}")
    assert TOKEN not in stored
    assert stored.startswith("redacted~") and stored.endswith("~sess-[redacted:github-token]")
    assert ids.id(f"sess-{TOKEN}") == stored
    assert IdMask(id_key_path(tmp_path / "history.db")).id(f"sess-{TOKEN}") == stored
    assert ids.id(stored) == stored  # given back as shown, it is the same id
    other = "gh" + "p_" + fake("ids-other", 36)
    assert ids.id(f"sess-{other}") != stored  # two secrets never become one id
    assert ids.id("sess-0042") == "sess-0042"  # an ordinary id is stored as it is


def test_the_tag_is_keyed_so_a_guessed_password_cannot_be_checked_against_it(
    tmp_path: Path,
) -> None:
    raw = f"mysql -u root -p{PASSWORD}"
    stored = IdMask(id_key_path(tmp_path / "history.db")).id(raw)
    tag = stored.split("~")[1]
    assert tag not in (
        hashlib.sha256(raw.encode()).hexdigest(),
        hashlib.sha256(PASSWORD.encode()).hexdigest(),
    )
    assert tag != IdMask(id_key_path(tmp_path / "other" / "history.db")).id(raw).split("~")[1]


def test_the_key_is_made_only_when_needed_private_and_shared_by_processes(tmp_path: Path) -> None:
    db = tmp_path / "history.db"
    index = HistoryIndex.open(db)
    assert index.record(
        turn_id="t1", session_id="s1", project="/work/shop", asked="hello", answered=""
    )
    assert not id_key_path(db).exists()
    assert index.record(
        turn_id="t2", session_id=f"s-{TOKEN}", project="/work/shop", asked="hi", answered=""
    )
    index.close()
    assert stat.S_IMODE(id_key_path(db).stat().st_mode) == 0o600
    elsewhere = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from history.redaction.ids import IdMask, id_key_path; "
            "from pathlib import Path; "
            "print(IdMask(id_key_path(Path(sys.argv[1]))).id(sys.argv[2]))",
            str(db),
            f"s-{TOKEN}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    reopened = HistoryIndex.open(db)
    try:
        assert set(reopened.session_ids()) == {"s1", elsewhere}
    finally:
        reopened.close()


def test_a_session_whose_id_held_a_secret_forgets_and_reimports_correctly(
    index: HistoryIndex, tmp_path: Path
) -> None:
    session = f"deploy-{TOKEN}"
    project = f"https://ci:{PASSWORD}@git.example.com/shop"
    turns = [
        Turn(f"{session}-turn-{n}", session, project, f"step {n} of the deploy") for n in range(3)
    ]
    assert index.record_many(turns).new == 3
    assert index.record_many(turns).unchanged == 3  # the same ids: nothing twice
    assert index.count(project=project) == 3
    shown = {hit.session_id for hit in index.search("deploy", project=project)}
    assert len(shown) == 1 and session not in shown and TOKEN not in shown.pop()
    db = tmp_path / "history.db"
    index.tidy()
    assert TOKEN.encode() not in _file_bytes(db) and PASSWORD.encode() not in _file_bytes(db)

    assert index.turn(f"{session}-turn-1") is not None  # opened by the ids the agent used
    assert len(index.conversation(session, around=f"{session}-turn-1", radius=0)) == 1
    assert index.forget_session(session) == 3  # forgotten by the id the agent used
    assert index.search("deploy") == []
    assert index.record_many(turns).forgotten == 3  # an import leaves it forgotten
    assert index.count() == 0
    assert index.record_many(turns, include_forgotten=True).new == 3  # unless asked
    assert index.record_many(turns).unchanged == 3
    stored_id = index.search("deploy")[0].session_id
    assert index.forget_session(stored_id) == 3  # by the id a search showed
    assert index.record_many(turns, include_forgotten=True).new == 3
    assert index.forget_project(project) == 3
    assert index.count() == 0
    index.tidy()
    assert TOKEN.encode() not in _file_bytes(db) and PASSWORD.encode() not in _file_bytes(db)


def _recall(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_through_the_cli_an_imported_session_with_a_secret_id_forgets_and_stays_forgotten(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    session = f"s-{TOKEN}"
    transcript = write(
        tmp_path / "secret-session.jsonl",
        [
            prompt(1, "How should the login function hash passwords?", session),
            reply(1, "Use argon2id for the login hashing.", "src/login.py", session),
            prompt(2, "Add a test for the cart total", session),
            reply(2, "Added a cart total test.", "tests/test_cart.py", session),
        ],
    )
    assert _recall(capsys, "import", "claude-code", str(transcript))[0] == 0
    db = engine_of(history_for(None))
    assert db is not None and db.url.database is not None
    assert TOKEN.encode() not in _file_bytes(Path(db.url.database))
    assert _recall(capsys, "forget", "--session", session, "--yes")[0] == 0
    code, out = _recall(capsys, "import", "claude-code", str(transcript), "--json")
    assert (code, json.loads(out)["turns"]["forgotten"]) == (0, 2)
    code, out = _recall(capsys, "import", "claude-code", str(transcript), "--include-forgotten")
    assert (code, "2 turns new" in out, history_for(None).count()) == (0, True, 2)
    code, out = _recall(capsys, "import", "claude-code", str(transcript), "--json")
    assert (code, json.loads(out)["turns"]["unchanged"]) == (0, 2)


@given(st.text(max_size=80))
def test_masking_an_id_never_raises_and_is_stable(raw: str) -> None:
    ids = _SHARED_MASK
    stored = ids.id(raw)
    assert ids.id(stored) == stored
    assert ids.id(raw) == stored


@given(st.sampled_from(FORMS), st.sampled_from(["", "sess-", "2026/03/"]))
def test_no_form_of_secret_survives_in_an_id(form: Form, prefix: str) -> None:
    stored = _SHARED_MASK.id(prefix + form.text)
    assert form.secret not in stored
    assert _SHARED_MASK.id(stored) == stored


_SHARED_MASK = IdMask()
