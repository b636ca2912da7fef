"""Record, re-record, forget and search agree with a plain in-memory model, on both paths."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from history import HistoryIndex
from history.store.sqlite import fts

WORDS = ["login", "cache", "parser", "deploy", "schema", "token", "router", "widget"]
PROJECTS = ["/proj/a", "/proj/b", "/proj/c"]
SESSIONS = ["s1", "s2", "s3", "s4"]


class HistoryMachine(RuleBasedStateMachine):
    full_text = True
    turn_ids = Bundle("turn_ids")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.mkdtemp()
        self.patch = pytest.MonkeyPatch()
        if not self.full_text:
            self.patch.setattr(fts, "fts5_available", lambda conn: False)
        self.index = HistoryIndex.open(Path(self.tmp) / "history.db")
        # turn_id -> (session, project, words)
        self.model: dict[str, tuple[str, str, frozenset[str]]] = {}
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
    )
    def record(self, turn_id: str, session: str, project: str, text: list[str]) -> str:
        assert self.index.record(
            turn_id=turn_id,
            session_id=session,
            project=project,
            asked=" ".join(text),
            answered="",
        )
        self.model[turn_id] = (session, project, frozenset(text))
        self.forgotten.discard(turn_id)
        return turn_id

    @rule(turn_id=turn_ids, text=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3))
    def re_record(self, turn_id: str, text: list[str]) -> None:
        session, project = self.model.get(turn_id, ("s1", "/proj/a", frozenset()))[:2]
        self.record(turn_id, session, project, text)

    @rule(session=st.sampled_from(SESSIONS))
    def forget_session(self, session: str) -> None:
        doomed = {t for t, (s, _, _) in self.model.items() if s == session}
        assert self.index.forget_session(session) == len(doomed)
        self._forget(doomed)

    @rule(project=st.sampled_from(PROJECTS))
    def forget_project(self, project: str) -> None:
        doomed = {t for t, (_, p, _) in self.model.items() if p == project}
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
            t for t, (_, p, ws) in self.model.items() if word in ws and project in (None, p)
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
                1 for v in self.model.values() if v[1] == project
            )


class LikeHistoryMachine(HistoryMachine):
    full_text = False


machine_settings = settings(max_examples=25, stateful_step_count=30, deadline=None)
TestHistoryMachineFts5 = HistoryMachine.TestCase
TestHistoryMachineFts5.settings = machine_settings
TestHistoryMachineLike = LikeHistoryMachine.TestCase
TestHistoryMachineLike.settings = machine_settings
