"""A SQLite store's forgets and expiries, and the work they leave owed (see __init__.py).

`Forgetting` is what the repository and the maintenance of one SQLite file share: the repository
forgets and expires through it, the maintenance pays what is owed through it, step by step.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, delete, func, select
from sqlalchemy.dialects.sqlite import insert

from history.domain import NewTurn
from history.store import owed, rows
from history.store import retention as stored_retention
from history.store.models import Conversation, ForgetWork, ForgottenSession, Turn
from history.store.owed import ScrubState
from history.store.sqlite import in_place, index_words, segment_keys
from history.store.sqlite.engine import sqlite_path, writer
from history.store.sqlite.forgetting import blanking, checkpoints
from history.store.sqlite.forgetting.spool import Spool, Writer
from history.store.sqlite.forgetting.steps import SqliteScrub
from history.store.sqlite.forgetting.writers import WaitingWriters

# A forget of more turns than this deletes them in batches (steps.py); fewer go in one
# transaction, FTS5's secure-delete scrubbing each row (a few ms a row).
BULK_FORGET_TURNS = 100
# A forget's own scrub tries the final checkpoint this many times, a pause apart (another
# writer's step, not a reader, may be in the way).
CHECKPOINT_TRIES, CHECKPOINT_PAUSE = 5, 0.05
# The upkeep's steps of owed work hold the write lock about this long (a re-scan's scrub, a
# forget a crash left, an expiry): those of a forget under way may be longer (steps.py).
UPKEEP_STEP_SECONDS = 0.025


class Forgetting:
    def __init__(
        self, engine: Engine, full_text: bool, secure_delete: bool, write_moved: Writer
    ) -> None:
        self.engine = engine
        self.full_text = full_text
        self.secure_delete = secure_delete
        self._writer = writer(engine)
        database = sqlite_path(engine.url.render_as_string(hide_password=False))
        self.spool = Spool(database, write_moved)
        self._splitter = index_words.Splitter()
        self.steps = SqliteScrub(
            writer(engine, announced=False, autocheckpoint=False),
            engine,
            full_text,
            secure_delete,
            WaitingWriters(database),
            self.spool,
        )

    def forget(self, session_ids: list[str] | None, project: str | None) -> int:
        """Tombstone the sessions (a project's: every one holding a turn of it) and delete their
        turns (of `project` only, when given): at once when they are few, else in batches
        (steps.py) after listing them as work owed. The number of turns forgotten.
        The turns spooled before it move in first and are forgotten with the rest."""
        with self.spool.moving(scrub=True) as move, self._writer.begin() as conn:
            move(conn)
            # The conversations' summary rows (kept by triggers) count their turns: the
            # transaction that makes a large forget visible reads a row per conversation.
            if session_ids is None:
                found = select(Conversation.session_id, Conversation.turns).where(
                    Conversation.project == project
                )
                counted = list(conn.execute(found))
                session_ids = [session for session, _ in counted]
                doomed = sum(turns for _, turns in counted)
            else:
                doomed = _count(conn, session_ids, project)
            if doomed <= BULK_FORGET_TURNS:
                ids = rows.session_turn_ids(conn, session_ids, project)
                with self._deleting_at_once(conn, ids):
                    return rows.delete_sessions(conn, session_ids, _tombstone, project)
            rows.tombstone_sessions(conn, session_ids, _tombstone)
            owed.add_work(conn, [(session, project) for session in session_ids])
            self.owe_scrub(conn, at_once=False)
        self.finish_deleting()
        return doomed

    def expire(self, conn: Connection, project: str | None, before: datetime) -> int:
        """A few turns go at once, FTS5's secure-delete scrubbing each; more are listed as work
        owed, conversation by conversation, and deleted in batches (steps.py). Search leaves
        them out from the cutoff's commit on. In the caller's transaction."""
        doomed = stored_retention.turns_before(conn, project, before)
        if not doomed:
            return 0
        if doomed <= BULK_FORGET_TURNS:
            scope = [Turn.asked_at < before, *rows.scope(project, None)]
            ids = list(conn.execute(select(Turn.id).where(*scope)).scalars())
            with self._deleting_at_once(conn, ids):
                blanking.empty(conn, ids)  # before any goes: see blanking.py
                return int(conn.execute(delete(Turn).where(*scope)).rowcount)
        owed.add_expiry(conn, stored_retention.conversations_before(conn, project, before), before)
        self.owe_scrub(conn, at_once=False)
        return doomed

    @contextmanager
    def _deleting_at_once(self, conn: Connection, ids: list[int]) -> Iterator[None]:
        """Around the deletion of the turns `ids` in one transaction, FTS5's secure-delete taking
        their words out: after it, the pages' keys that held one of their words are mended
        (segment_keys.py; their words read before) and the scrub is owed, with the index's
        rewrite when one of them was masked in place (in_place.py)."""
        if not ids:
            yield
            return
        shadowed = bool(in_place.shadowed(conn, ids))
        words = set()
        if self.full_text and self.secure_delete:  # else the whole index is rewritten
            words = segment_keys.words_of(conn, self._splitter, ids)
        yield
        segment_keys.rekey_after_delete(conn, words)
        self.owe_scrub(conn, at_once=not shadowed)

    def owe_scrub(self, conn: Connection, at_once: bool) -> None:
        """Turns deleted at once had FTS5's secure-delete scrub their words, where it is on;
        any other deletion leaves them in the index's segments, to be rewritten, as does the
        deletion of a turn masked in place (in_place.py), whose old words are shadowed there."""
        rewrite = self.full_text and not (at_once and self.secure_delete)
        owed.owe_scrub(conn, insert, rewrite_index=rewrite)

    def finish_deleting(self) -> None:
        """Delete, batch after batch, what a forget or an expiry listed as owed."""
        while self.steps.delete_step():
            self.steps.between_steps()

    def spool_turn(self, turn: NewTurn) -> bool:
        """Set a live turn aside in the spool while a forget is owed (its steps hold the write
        lock); False when none is, and the turn is to be written as usual."""
        return self.spool.add(turn, self.forget_owed)

    def forget_owed(self) -> bool:
        """A forget's scrub is owed (its turns may still be deleting)."""
        with self.engine.connect() as conn:
            return owed.scrub_owed(conn)

    def deleting(self) -> bool:
        """A forget or an expiry still lists turns to delete (its scrub aside)."""
        with self.engine.connect() as conn:
            return conn.execute(select(ForgetWork.id).limit(1)).first() is not None

    def owes(self) -> bool:
        """A forget's work is owed, or turns wait in the spool (whose forget has settled: a
        process that died between the spool's commit and its move)."""
        return self.forget_owed() or self.spool.count() > 0

    def scrub(self, seconds: float | None) -> ScrubState:
        """Do the owed work for about `seconds` (None: all of it), step by step: "done", "more"
        (time ran out) or "blocked" (a reader of an older snapshot holds the final checkpoint
        back). Never waits the busy timeout for a reader."""
        deadline = None if seconds is None else time.monotonic() + seconds
        tries = 1 if seconds is not None else CHECKPOINT_TRIES
        self.steps.move_spooled()
        while True:
            state = self.steps.step()
            if state == "blocked" and tries > 1:
                tries -= 1
                time.sleep(CHECKPOINT_PAUSE)
                continue
            if state != "more" or (deadline is not None and time.monotonic() >= deadline):
                return state
            self.steps.between_steps()

    def step(self) -> ScrubState:
        """One step of the owed work, as upkeep takes it: of about UPKEEP_STEP_SECONDS, then
        the write lock left free as long, for the writers waiting."""
        started = time.monotonic()
        with self.steps.paced(UPKEEP_STEP_SECONDS):
            state = self.scrub(0)
        if state == "more":
            time.sleep(time.monotonic() - started)
        return state

    def checkpoint(self) -> None:
        """Copy the WAL back without blocking writers; cut it to zero once it has grown large
        and is all copied (checkpoints.trim)."""
        checkpoints.trim(self.engine)

    def close(self) -> None:
        self.spool.close()


def _tombstone() -> Any:
    return insert(ForgottenSession).on_conflict_do_nothing()


def _count(conn: Connection, session_ids: Sequence[str], project: str | None) -> int:
    scope = [Conversation.project == project] if project is not None else []
    return sum(
        conn.execute(
            select(func.coalesce(func.sum(Conversation.turns), 0)).where(
                Conversation.session_id.in_(chunk), *scope
            )
        ).scalar_one()
        for chunk in rows.chunks(session_ids)
    )
