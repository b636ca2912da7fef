"""Record, re-record, forget, search and the views agree with a plain in-memory model, on both
paths; the summary rows agree with the turns they summarise, checked in plain SQL."""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from history import ConversationSummary, HistoryIndex, ProjectSummary, Turn
from history.store.sqlite import fts
from tests.helpers.engines import engine_of
from tests.helpers.templates import migrated_copy

WORDS = ["login", "cache", "parser", "deploy", "schema", "token", "router", "widget"]
PROJECTS = ["/proj/a", "/proj/b", "/proj/c"]
SESSIONS = ["s1", "s2", "s3", "s4"]
FILES = ["src/a.py", "src/b.py", "README.md"]
NOW = datetime.now(UTC).replace(microsecond=0)
# Few distinct times, so that many turns and conversations tie; `days` 2 and 5 fall between them.
TIMES = [NOW - timedelta(hours=1), NOW - timedelta(days=3), NOW - timedelta(days=10)]


class Recorded(NamedTuple):
    session: str
    project: str
    words: frozenset[str]
    asked: str
    asked_at: datetime
    tainted: bool
    edited: tuple[str, ...]


class HistoryMachine(RuleBasedStateMachine):
    full_text = True
    turn_ids = Bundle("turn_ids")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.mkdtemp()
        self.patch = pytest.MonkeyPatch()
        if not self.full_text:
            self.patch.setattr(fts, "fts5_available", lambda conn: False)
        new_file = migrated_copy(Path(self.tmp) / "history.db", full_text=self.full_text)
        self.index = HistoryIndex.open(new_file)
        # turn_id -> what was recorded, in the order turns were first stored (as rowids are)
        self.model: dict[str, Recorded] = {}
        self.forgotten: set[str] = set()

    def teardown(self) -> None:
        self.index.close()
        self.patch.undo()
        shutil.rmtree(self.tmp, ignore_errors=True)

    @rule(
        target=turn_ids,
        turn_id=st.text(alphabet="abcdef", min_size=1, max_size=4),
        session=st.sampled_from(SESSIONS),
        project=st.sampled_from(PROJECTS),
        text=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
        when=st.sampled_from(TIMES),
        tainted=st.booleans(),
        edited=st.lists(st.sampled_from(FILES), max_size=2, unique=True),
    )
    def record(
        self,
        turn_id: str,
        session: str,
        project: str,
        text: list[str],
        when: datetime,
        tainted: bool,
        edited: list[str],
    ) -> str:
        asked = " ".join(text)
        assert self.index.record(
            turn_id=turn_id,
            session_id=session,
            project=project,
            asked=asked,
            answered="",
            edited=edited,
            tainted=tainted,
            asked_at=when,
        )
        recorded = Recorded(session, project, frozenset(text), asked, when, tainted, tuple(edited))
        self.model[turn_id] = recorded
        self.forgotten.discard(turn_id)
        return turn_id

    @rule(
        turn_id=turn_ids,
        text=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
        when=st.sampled_from(TIMES),
        tainted=st.booleans(),
        edited=st.lists(st.sampled_from(FILES), max_size=2, unique=True),
        move=st.sampled_from([None, *PROJECTS]),
    )
    def re_record(
        self,
        turn_id: str,
        text: list[str],
        when: datetime,
        tainted: bool,
        edited: list[str],
        move: str | None,
    ) -> None:
        old = self.model.get(turn_id)
        session, project = (old.session, old.project) if old else ("s1", "/proj/a")
        self.record(turn_id, session, move or project, text, when, tainted, edited)

    @rule(session=st.sampled_from(SESSIONS))
    def forget_session(self, session: str) -> None:
        doomed = {t for t, r in self.model.items() if r.session == session}
        assert self.index.forget_session(session) == len(doomed)
        self._forget(doomed)

    @rule(project=st.sampled_from(PROJECTS))
    def forget_project(self, project: str) -> None:
        doomed = {t for t, r in self.model.items() if r.project == project}
        assert self.index.forget_project(project) == len(doomed)
        self._forget(doomed)

    def _forget(self, doomed: set[str]) -> None:
        for turn_id in doomed:
            del self.model[turn_id]
        self.forgotten |= doomed

    @rule(word=st.sampled_from(WORDS), project=st.sampled_from([None, *PROJECTS]))
    def search(self, word: str, project: str | None) -> None:
        found = {hit.turn_id for hit in self.index.search(word, project=project, k=10)}
        expected = {
            t for t, r in self.model.items() if word in r.words and project in (None, r.project)
        }
        assert found.isdisjoint(self.forgotten)
        if len(expected) <= 10:
            assert found == expected
        else:
            assert found <= expected and len(found) == 10

    @invariant()
    def counts_agree(self) -> None:
        assert self.index.count() == len(self.model)
        for project in PROJECTS:
            assert self.index.count(project) == sum(
                1 for r in self.model.values() if r.project == project
            )

    # The views against the model.

    def _turn(self, turn_id: str) -> Turn:
        r = self.model[turn_id]
        files = r.edited  # record() adds edited files to the files read
        return Turn(
            turn_id, r.session, r.project, r.asked_at, r.tainted, r.asked, "", files, r.edited, ()
        )

    def _in_order(self, turn_ids: list[str]) -> list[str]:
        return sorted(turn_ids, key=lambda t: self.model[t].asked_at)  # stable: stored order

    @rule(turn_id=turn_ids)
    def show_turn(self, turn_id: str) -> None:
        expected = self._turn(turn_id) if turn_id in self.model else None
        assert self.index.turn(turn_id) == expected

    @rule(
        session=st.sampled_from(SESSIONS),
        around=st.one_of(st.none(), turn_ids),
        radius=st.integers(0, 3),
    )
    def show_conversation(self, session: str, around: str | None, radius: int) -> None:
        ordered = self._in_order([t for t, r in self.model.items() if r.session == session])
        if around is not None:
            at = ordered.index(around) if around in ordered else None
            ordered = [] if at is None else ordered[max(0, at - radius) : at + radius + 1]
        shown = self.index.conversation(session, around=around, radius=radius)
        assert shown == [self._turn(t) for t in ordered]

    def _conversations(self) -> list[ConversationSummary]:
        groups: dict[tuple[str, str], list[str]] = {}
        for turn_id, r in self.model.items():
            groups.setdefault((r.session, r.project), []).append(turn_id)
        summaries = []
        for (session, project), turn_ids in groups.items():
            ordered = [self.model[t] for t in self._in_order(turn_ids)]
            edits = Counter(path for r in ordered for path in r.edited)
            summaries.append(
                ConversationSummary(
                    session_id=session,
                    project=project,
                    first_asked=ordered[0].asked,
                    first_asked_at=ordered[0].asked_at,
                    last_asked_at=ordered[-1].asked_at,
                    turns=len(ordered),
                    tainted_turns=sum(r.tainted for r in ordered),
                    edited=tuple(sorted(edits, key=lambda path: (-edits[path], path))),
                )
            )
        summaries.sort(key=lambda c: (c.last_asked_at, c.session_id, c.project), reverse=True)
        return summaries

    @rule(
        project=st.sampled_from([None, *PROJECTS]),
        days=st.sampled_from([None, 2, 5]),
        limit=st.integers(1, 3),
    )
    def list_conversations(self, project: str | None, days: int | None, limit: int) -> None:
        since = NOW - timedelta(days=days) if days else None
        expected = [
            c
            for c in self._conversations()
            if project in (None, c.project) and (since is None or c.last_asked_at >= since)
        ]
        pages: list[ConversationSummary] = []
        before = None
        while page := self.index.conversations(project, days, limit, before):
            assert len(page) <= limit
            pages += page
            before = page[-1].cursor
        assert pages == expected

    @rule()
    def list_projects(self) -> None:
        turns = Counter(r.project for r in self.model.values())
        expected = [
            ProjectSummary(
                project=project,
                turns=turns[project],
                conversations=len({r.session for r in self.model.values() if r.project == project}),
                first_asked_at=min(r.asked_at for r in self.model.values() if r.project == project),
                last_asked_at=max(r.asked_at for r in self.model.values() if r.project == project),
            )
            for project in sorted(turns)
        ]
        expected.sort(key=lambda p: p.last_asked_at, reverse=True)
        assert self.index.projects() == expected

    @invariant()
    def summary_rows_agree_with_the_turns(self) -> None:
        with engine_of(self.index).connect() as conn:
            for summary, from_turns in SUMMARY_CHECKS:
                assert conn.exec_driver_sql(summary).all() == conn.exec_driver_sql(from_turns).all()


# Each summary table in plain SQL, beside the same figures computed from `turns` alone.
SUMMARY_CHECKS = [
    (
        "SELECT session_id, project, turns, tainted_turns, first_asked_at, last_asked_at,"
        " (SELECT turn_id FROM turns WHERE id = first_id) FROM conversations ORDER BY 1, 2",
        "SELECT session_id, project, count(*), sum(tainted), min(asked_at), max(asked_at),"
        " (SELECT f.turn_id FROM turns AS f WHERE f.session_id = t.session_id"
        "  AND f.project = t.project ORDER BY f.asked_at, f.id LIMIT 1)"
        " FROM turns AS t GROUP BY session_id, project ORDER BY 1, 2",
    ),
    (
        "SELECT session_id, project, path, turns FROM conversation_edits ORDER BY 1, 2, 3",
        "SELECT session_id, project, e.value, count(*) FROM turns, json_each(turns.edited) AS e"
        " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
    ),
    (
        "SELECT project, turns, conversations, first_asked_at, last_asked_at FROM projects"
        " ORDER BY 1",
        "SELECT project, count(*), count(DISTINCT session_id), min(asked_at), max(asked_at)"
        " FROM turns GROUP BY project ORDER BY 1",
    ),
]


class LikeHistoryMachine(HistoryMachine):
    full_text = False


machine_settings = settings(max_examples=25, stateful_step_count=30, deadline=None)
TestHistoryMachineFts5 = HistoryMachine.TestCase
TestHistoryMachineFts5.settings = machine_settings
TestHistoryMachineLike = LikeHistoryMachine.TestCase
TestHistoryMachineLike.settings = machine_settings
