"""HistoryIndex: the public face of the index. Record never fails a turn; search never raises."""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from history import limits, paging
from history.access import LOCAL_ACTOR, RETENTION_ACTOR, Action, AuditEvent
from history.domain import (
    READ_ONLY,
    ConversationSummary,
    NewTurn,
    ProjectSummary,
    ReadOnlyHistory,
    RecordOutcome,
    SearchResults,
    Turn,
)
from history.home import DATABASE_NAME, configured_url, ensure_private_dir, resolve_home
from history.i18n import Messages
from history.masking import masked_summary, masked_turn
from history.meaning_default import meaning_by_default
from history.members import Members
from history.query import terms
from history.reports import (
    About,
    DeletedCopies,
    DoctorReport,
    Recovered,
    Recovery,
    Rescanned,
    Stats,
)
from history.retention import RETENTION_MARGIN, RetentionPolicy
from history.store import backends
from history.store.access import AccessRecords, NoAccessRecords
from history.store.maintenance import ENGLISH, Maintenance, Unattended
from history.store.repository import Candidate, TurnRepository
from history.stored_forms import StoredForms
from history.upkeep import THREAD_STEP_PAGES, Upkeep

if TYPE_CHECKING:
    from history.prepare import RecordCounts, TurnFields
    from history.redaction.ids import IdMask

log = logging.getLogger(__name__)

# A short-lived process (an import hook) leaves the rest of the upkeep to the next one.
CLOSING_UPKEEP_SECONDS = 0.1
# How often the upkeep looks for turns the retention settings have made due to go.
RETENTION_CHECK_SECONDS = 60.0
# A search blended with meaning fuses the lexical ranking's best this many (or k, when more) with
# the nearest vectors' best 50 (history/meaning/blend.py). 10 rather than 50: the lexical search
# asked for 50 cost most of a blended search of every project (p50 391 -> 106 ms in the same run
# on a loaded host); with the lexical scores scaled from 0 to the best, the blend over 10 ranks
# within 0.5 point of hit@5 of the blend over 50 on every set (bench/RESULTS.md, "Search by
# meaning, fifth slice").
MEANING_CANDIDATES = 10
# At exit, the background embedding is waited for this long to finish its batch.
EMBED_STOP_SECONDS = 10.0

# The shortest start of a turn id that opens the turn it names, when only one id starts so.
MIN_TURN_PREFIX = 8
# An ambiguous prefix names this many of its turns, and counts up to COUNTED_CANDIDATES.
CANDIDATES_SHOWN, COUNTED_CANDIDATES = 10, 1_000


class AmbiguousTurnId(LookupError):
    """More than one turn id starts with the prefix given: `candidates` are the first few by
    id, `count` how many there are (`COUNTED_CANDIDATES` + 1: more than that many)."""

    def __init__(self, prefix: str, candidates: Sequence[str], count: int) -> None:
        super().__init__(prefix)
        self.prefix = prefix
        self.candidates = list(candidates)
        self.count = count

    @property
    def counted(self) -> bool:
        """False when there are more than COUNTED_CANDIDATES, so `count` is a lower bound."""
        return self.count <= COUNTED_CANDIDATES


class HistoryIndex:
    """What every face calls. Its store is two ports (history/store/): the data it holds and
    answers (`TurnRepository`), and the care it needs (`Maintenance`); which backend stands
    behind them is theirs to know."""

    def __init__(
        self,
        repository: TurnRepository,
        full_text: bool,
        maintenance: Maintenance | None = None,
        ids: IdMask | None = None,
        writable: bool = True,
        id_key_file: Path | None = None,
        access: AccessRecords | None = None,
    ) -> None:
        self._repository = repository
        self._maintenance = maintenance or Unattended(full_text)
        # Every id and project that comes in is masked the way it was when it was stored.
        self._ids = StoredForms(repository, id_key_file, ids)
        self._write_lock = threading.Lock()
        self._closed = False
        self._upkeep = Upkeep(self._upkeep_step, self._owes_upkeep)
        self._next_retention_check = 0.0
        self.full_text = full_text
        # False for a file this process may only read: search works, writes are refused.
        self.writable = writable
        # Members' keys and the audit trail (history/members.py).
        self.members = Members(access or NoAccessRecords(), self._ids)
        # Search blends in meaning where turns have vectors and this is True: by default where
        # the optional extra is installed, unless RECALL_MEANING=0 (`recall search --words-only`,
        # the tool's and HTTP's words_only=true, for one search). The blend gains on all six
        # development sets at both query lengths (bench/RESULTS.md, "Search by meaning, fifth
        # slice").
        self.meaning_search = meaning_by_default()
        # True in a process that searches once and exits (`recall search`): the vectors are
        # read from the table, only the project's when it keeps to one (meaning/scan.py).
        self.meaning_once = False
        self._meaning: Any = None

    @classmethod
    def open(
        cls, target: str | os.PathLike[str], busy_timeout_ms: int = backends.BUSY_TIMEOUT_MS
    ) -> HistoryIndex:
        """Open (creating and migrating to head) the index at a path or SQLAlchemy URL: a file
        path or `sqlite:///...` is the embedded SQLite file, `postgresql+psycopg://user@host/db`
        a PostgreSQL database.

        `busy_timeout_ms` bounds how long a write waits for another writer's lock."""
        opened = backends.open_store(target, busy_timeout_ms)
        index = cls(
            opened.repository,
            opened.full_text,
            opened.maintenance,
            writable=opened.writable,
            id_key_file=opened.id_key_file,
            access=opened.access,
        )
        index._take_up_owed_work()
        return index

    def _take_up_owed_work(self) -> None:
        """A forget cut short (a crash, a reader's snapshot) is finished by whichever process
        opens the index next, a reader too, once it has a moment idle; one that may only read
        the file says it cannot."""
        if not (self._owes() or (self.writable and self._rescan_due())):
            return
        if self.writable:
            self._upkeep.retry_later()
        else:
            log.warning(
                "forgotten turns are out of search results, but their scrub is still owed and "
                "this process may only read the file: it is left to the next process that can "
                "write it"
            )

    def record(
        self,
        *,
        turn_id: str,
        session_id: str,
        project: str,
        asked: str,
        answered: str,
        files: Sequence[str] = (),
        edited: Sequence[str] = (),
        tools: Sequence[str] = (),
        tainted: bool = False,
        asked_at: datetime | None = None,
        work: str = "",
    ) -> bool:
        """Store a finished turn (replacing one with the same `turn_id`). Never raises.

        Every text passes through `redact` first; if redaction itself fails nothing is written.
        Returns False, after logging the turn id (never its text), when the turn was not stored.
        `work`: what the turn did, one entry a line (`$ command`, `! failure line`, `~ path`
        then `+ added line`s), searched below the answer. Without `asked_at` a turn already
        stored keeps its time (a new one is asked now).
        """
        stored = self.record_outcome(
            turn_id=turn_id,
            session_id=session_id,
            project=project,
            asked=asked,
            answered=answered,
            files=files,
            edited=edited,
            tools=tools,
            tainted=tainted,
            asked_at=asked_at,
            work=work,
        )
        return stored is not None

    def record_outcome(
        self,
        *,
        turn_id: str,
        session_id: str,
        project: str,
        asked: str,
        answered: str,
        files: Sequence[str] = (),
        edited: Sequence[str] = (),
        tools: Sequence[str] = (),
        tainted: bool = False,
        asked_at: datetime | None = None,
        work: str = "",
    ) -> RecordOutcome | None:
        """`record`, saying what it did: "new", "updated" (it replaced a different turn with the
        same `turn_id`), "unchanged" (the same turn again, left as it was) or "spooled" (a forget
        held the file: the turn is kept beside it and searchable within seconds); None when the
        turn was not stored (logged by turn id). Never raises."""
        if not self.writable:
            log.warning("turn %s not recorded: %s", self._shown_id(turn_id), READ_ONLY)
            return None
        try:
            said = Turn(
                turn_id=turn_id,
                session_id=session_id,
                project=project,
                asked_at=asked_at or datetime.now(UTC),
                tainted=tainted,
                asked=asked,
                answered=answered,
                files=tuple(files),
                edited=tuple(edited),
                tools=tuple(tools),
                work=work,
            )
            from history.prepare import prepare

            turn = prepare(said, self._ids.mask())
            if asked_at is None:
                turn = self._keeping_asked_at(turn)
            with self._write_lock:
                counts = self._repository.record(turn)
        except Exception as exc:
            log.warning("turn %s not recorded: %s", self._shown_id(turn_id), type(exc).__name__)
            return None
        self._upkeep.wrote()
        if counts is None:
            return "spooled"
        return "new" if counts.new else "updated" if counts.updated else "unchanged"

    def _keeping_asked_at(self, turn: NewTurn) -> NewTurn:
        """The turn at the time it was stored at, if it was: a turn recorded again without its
        time is the same turn, not one asked now."""
        stored = self._repository.turn(turn.turn_id)
        return turn if stored is None else replace(turn, asked_at=stored.asked_at)

    def record_many(
        self, turns: Iterable[TurnFields], include_forgotten: bool = False
    ) -> RecordCounts:
        """Store many turns in one transaction (an import). Turns of forgotten sessions are
        skipped unless `include_forgotten`, which also lifts their tombstones. Never raises:
        turns that could not be prepared or written are counted as `failed`."""
        from history.prepare import RecordCounts, as_turn, prepare

        if not self.writable:
            failed = sum(1 for _ in turns)
            log.warning("%d turns not recorded: %s", failed, READ_ONLY)
            return RecordCounts(failed=failed)
        prepared: list[NewTurn] = []
        failed = 0
        for item in turns:
            try:
                prepared.append(prepare(as_turn(item), self._ids.mask()))
            except Exception as exc:
                shown = self._shown_id(item.turn_id)
                log.warning("turn %s not recorded: %s", shown, type(exc).__name__)
                failed += 1
        try:
            sessions = list(dict.fromkeys(turn.session_id for turn in prepared))
            with self._write_lock:
                if include_forgotten:
                    self._repository.unforget(sessions)
                    skipped: set[str] = set()
                else:
                    skipped = self._repository.forgotten(sessions)
                # A turn past its project's retention was forgotten (or is due to be).
                policy, now = self._repository.retention(), datetime.now(UTC)
                kept = [
                    turn
                    for turn in prepared
                    if turn.session_id not in skipped
                    and not policy.expired(turn.project, turn.asked_at, now)
                ]
                counts = self._repository.upsert_many(kept)
        except Exception as exc:
            log.warning("%d turns not recorded: %s", len(prepared), type(exc).__name__)
            return RecordCounts(failed=failed + len(prepared))
        self._upkeep.wrote()
        return RecordCounts(
            new=counts.new,
            updated=counts.updated,
            unchanged=counts.unchanged,
            forgotten=len(prepared) - len(kept),
            failed=failed,
        )

    def search(
        self,
        query: str,
        project: str | None = None,
        days: int | None = None,
        k: int = 5,
        meaning: bool | None = None,
    ) -> SearchResults:
        """Turns matching any word of `query`, best first. `project=None` searches every project.
        `meaning`: blend in search by meaning (where installed and embedded), or keep to the
        words (False); None: this index's `meaning_search`.

        A query of only function words finds nothing. Raises ValueError only for a bad `k` or
        `days`; any query text is safe. The result is a list of `Hit`s; its `approximate` is
        True when the search had to be cut short (every word very common): the best of the
        newest matching turns, which may differ from the best of all.
        """
        found = self._search(query, project, days, k, meaning)
        if not found or not self._rescan_pending():
            return found
        return found.like(masked_turn(hit) for hit in found)

    def _search(
        self, query: str, project: str | None, days: int | None, k: int, blend: bool | None
    ) -> SearchResults:
        if k < 1:
            raise ValueError("k must be at least 1")
        since = limits.since(days)
        query_terms = terms(query)
        if not query_terms:
            return SearchResults()
        scope = self._ids.scope(project) if project is not None else None
        meaning = self._meaning_for_search(self.meaning_search if blend is None else blend)
        wanted = k if meaning is None else max(k, MEANING_CANDIDATES)
        near = None if meaning is None else meaning.nearest_soon(query, scope)
        policy, now = self._repository.retention(), datetime.now(UTC)
        if policy:
            # Past its project's retention a turn is not found, even before upkeep erased it.
            cutoff = policy.cutoff(scope, now) if scope is not None else policy.loosest(now)
            if cutoff is not None and (since is None or since < cutoff):
                since = cutoff
        if not policy or scope is not None or not policy.named():
            found = self._repository.search(query_terms, scope, since, wanted)
        else:
            found = self._repository.search(query_terms, scope, since, wanted + RETENTION_MARGIN)
            kept = [hit for hit in found if not policy.expired(hit.project, hit.asked_at, now)]
            found = found.like(kept[:wanted])
        if meaning is None:
            return found

        def keep(turn: Turn) -> bool:
            return (
                (scope is None or turn.project == scope)
                and (since is None or turn.asked_at >= since)
                and not (policy and policy.expired(turn.project, turn.asked_at, now))
            )

        try:
            hits = meaning.blended(
                query, found, self._repository.turns_by_row, keep, k, scope, near
            )
        except Exception as exc:  # the words still answer
            log.warning("search by meaning failed: %s", type(exc).__name__)
            return found.like(found[:k])
        by_words = {hit.turn_id for hit in found}
        brought = frozenset(hit.turn_id for hit in hits if hit.turn_id not in by_words)
        return SearchResults(hits, found.approximate, found.partial, brought)

    def meaning(self, embedder: Any = None) -> Any:
        """The search by meaning of this index (history.meaning.search.MeaningSearch), made at
        first use; `embedder` replaces the packaged model (tests). None where the extra is not
        installed (and no embedder is given) or the store is not a database of ours."""
        if self._meaning is not None and embedder is None:
            return self._meaning
        from history import meaning

        engine = getattr(self._repository, "engine", None)
        if engine is None or (embedder is None and not meaning.installed()):
            return None
        from history.meaning.search import MeaningSearch

        stored = self._repository.vectors_stored
        self._meaning = MeaningSearch(engine, embedder, stored, once=self.meaning_once)
        return self._meaning

    def meaning_waiting(self) -> int | None:
        """How many turns wait to be embedded; None where search by meaning is not installed."""
        found = self.meaning()
        return None if found is None else int(found.waiting())

    def _vectors_stored(self) -> bool:
        from history import meaning

        return meaning.installed() and self._repository.vectors_stored()

    def _meaning_for_search(self, wanted: bool) -> Any:
        if not wanted:
            return None
        try:
            if self._meaning is None and not self._vectors_stored():
                return None  # nothing to blend: numpy and the model are not even imported
            found = self.meaning()
            return found if found is not None and found.ready() else None
        except Exception as exc:  # the words still answer
            log.warning("search by meaning failed: %s", type(exc).__name__)
            return None

    def count(self, project: str | None = None) -> int:
        return self._repository.count(self._ids.scope(project) if project is not None else None)

    def forget_session(self, session_id: str, by: str = LOCAL_ACTOR) -> int:
        """Forget a conversation: its turns leave search results and the database file's bytes,
        and later imports leave it forgotten. Returns the number of turns removed. The audit
        trail says `by` whom (a key's name)."""
        return self.forget_sessions([session_id], by)

    def forget_sessions(self, session_ids: Iterable[str], by: str = LOCAL_ACTOR) -> int:
        """`forget_session` for many (the audit's turn count is theirs together, on the first's
        line). Raises ReadOnlyHistory on a file it may only read."""
        self._refuse_if_read_only()
        # No lock of this process's writers around it: a large forget deletes in batches, and
        # this process's records get through between them as other processes' do.
        stored = [self._ids.id(str(session_id)) for session_id in session_ids]
        removed = self._repository.delete_sessions(list(dict.fromkeys(stored)))
        now = datetime.now(UTC)
        for n, session_id in enumerate(dict.fromkeys(stored)):
            turns = removed if n == 0 else None
            self.members.note(AuditEvent(now, by, Action.FORGET_SESSION, session_id, turns=turns))
        self._purge(removed)
        self._upkeep.wrote()
        return removed

    def forgotten(self, session_ids: Iterable[str]) -> set[str]:
        """Those of `session_ids` that were forgotten (and not brought back by an import)."""
        stored = {self._ids.id(str(session_id)): session_id for session_id in session_ids}
        return {stored[found] for found in self._repository.forgotten(list(stored))}

    def session_ids(self, project: str | None = None) -> list[str]:
        """The conversations recorded (in `project`, or in every project)."""
        scope = self._ids.scope(project) if project is not None else None
        return self._repository.session_ids(scope)

    def forget_project(self, project: str, by: str = LOCAL_ACTOR) -> int:
        """Forget every conversation of `project`. Raises ReadOnlyHistory as forget_sessions."""
        self._refuse_if_read_only()
        stored = self._ids.project(project)
        removed = self._repository.delete_project(stored)
        when = datetime.now(UTC)
        self.members.note(AuditEvent(when, by, Action.FORGET_PROJECT, None, stored, removed))
        self._purge(removed)
        self._upkeep.wrote()
        return removed

    # Reading what was found. A forgotten conversation is in none of these.

    def turn(self, turn_id: str, prefix: bool = False) -> Turn | None:
        """The whole stored turn; None when no turn has that id (or it was forgotten, or is
        past its project's retention).

        With `prefix`, an id that no turn has exactly may be the start of one, of at least
        MIN_TURN_PREFIX characters (a `…` after it, as a long id is shown cut, is left out):
        the one turn whose id starts so. Raises AmbiguousTurnId when several do."""
        if not _storable(str(turn_id)):
            return None  # no stored id holds a NUL or a lone surrogate
        found = self._repository.turn(str(turn_id))
        masked = self._ids.masked_id(str(turn_id)) if found is None else None
        if masked is not None:
            found = self._repository.turn(masked)
        if found is None and prefix:
            start = str(turn_id).removesuffix("…")
            ids = self.turn_ids_by_prefix(start, COUNTED_CANDIDATES + 1)
            if len(ids) > 1:
                raise AmbiguousTurnId(start, ids[:CANDIDATES_SHOWN], len(ids))
            found = self._repository.turn(ids[0]) if ids else None
        if found is None or self._past_retention([found]):
            return None
        return masked_turn(found) if self._rescan_pending() else found

    def turn_ids_by_prefix(self, prefix: str, limit: int = CANDIDATES_SHOWN) -> list[str]:
        """Up to `limit` ids, in order, of the turns whose id (as search shows it) starts with
        `prefix`; none for a prefix shorter than MIN_TURN_PREFIX characters."""
        if len(prefix) < MIN_TURN_PREFIX or not _storable(prefix) or limit < 1:
            return []
        return self._repository.turn_ids_by_prefix(prefix, limit)

    def conversation(
        self, session_id: str, around: str | None = None, radius: int = 2
    ) -> list[Turn]:
        """The conversation's turns in order (oldest first; the same time: the one recorded
        first). With `around`, a turn id, only that turn and the `radius` turns either side of
        it; empty when the conversation does not hold it."""
        if radius < 0:
            raise ValueError("radius must be 0 or more")
        turns = self._repository.conversation(str(session_id), around, radius)
        if not turns:  # perhaps stored masked: the ids held a secret
            stored_around = self._ids.id(str(around)) if around is not None else None
            stored = self._ids.id(str(session_id))
            if (stored, stored_around) != (session_id, around):
                turns = self._repository.conversation(stored, stored_around, radius)
        past = self._past_retention(turns)
        kept = [turn for turn in turns if turn.turn_id not in past]
        return [masked_turn(turn) for turn in kept] if self._rescan_pending() else kept

    def _past_retention(self, turns: Sequence[Turn]) -> set[str]:
        """The ids of those turns past their project's retention."""
        if not turns:
            return set()
        policy, now = self._repository.retention(), datetime.now(UTC)
        return {t.turn_id for t in turns if policy.expired(t.project, t.asked_at, now)}

    # Retention (history/retention.py): keeping less, on purpose.

    def retention(self) -> RetentionPolicy:
        """The settings (days kept, by project key; None: every project) and the cutoffs."""
        return self._repository.retention()

    def set_retention(self, days: int, project: str | None = None) -> None:
        """Keep turns (of `project`, or of every project) `days` days: upkeep forgets older
        ones, in steps, and search leaves them out from now on. Raises ReadOnlyHistory."""
        self._refuse_if_read_only()
        if not 1 <= days <= limits.MAX_DAYS:
            raise ValueError(f"days must be a whole number of days from 1 to {limits.MAX_DAYS}")
        self._repository.set_retention(self._retention_key(project), days)
        self._next_retention_check = 0.0
        self._upkeep.wrote()

    def unset_retention(self, project: str | None = None) -> bool:
        """Drop that setting (what it already forgot stays forgotten); False when none."""
        self._refuse_if_read_only()
        return self._repository.unset_retention(self._retention_key(project))

    def retain(self, days: int, project: str | None = None, by: str = LOCAL_ACTOR) -> int:
        """Forget now the turns (of `project`, or of every project) asked more than `days` days
        ago, with a forget's guarantees: out of search, scrubbed from the file, and an import
        does not bring them back. The number forgotten. Raises ReadOnlyHistory."""
        self._refuse_if_read_only()
        if not 1 <= days <= limits.MAX_DAYS:
            raise ValueError(f"days must be a whole number of days from 1 to {limits.MAX_DAYS}")
        before = datetime.now(UTC) - timedelta(days=days)
        removed = self._repository.expire(self._retention_key(project), before)
        scope = self._retention_key(project)
        event = AuditEvent(datetime.now(UTC), by, Action.RETENTION, project=scope, turns=removed)
        self.members.note(event)
        self._purge(removed)
        self._upkeep.wrote()
        return removed

    def _retention_key(self, project: str | None) -> str | None:
        return None if project is None else self._ids.project(project)

    def _retention_due(self) -> bool:
        """Turns are past their retention (looked for every RETENTION_CHECK_SECONDS)."""
        if not self.writable or time.monotonic() < self._next_retention_check:
            return False
        try:
            due = self._repository.retention_due(datetime.now(UTC))
        except Exception as exc:
            log.warning("checking for turns past retention failed: %s", type(exc).__name__)
            due = False
        if not due:
            self._next_retention_check = time.monotonic() + RETENTION_CHECK_SECONDS
        return due

    def _owes_upkeep(self) -> bool:
        return self._owes() or self._retention_due() or self._rescan_due()

    def _rescan_due(self) -> bool:
        """Turns stored under older secret rules are left to re-scan (any process's upkeep
        does it, in steps: history/store/rescan.py)."""
        try:
            return self.writable and self._maintenance.rescan_due()
        except Exception as exc:
            log.warning("checking for turns to re-scan failed: %s", type(exc).__name__)
            return False

    def _rescan_pending(self) -> bool:
        """Stored turns may still hold what the current secret rules mask: what is read is
        masked on the way out until the re-scan is done (history/masking.py)."""
        try:
            return self._maintenance.rescan_pending()
        except Exception as exc:
            log.warning("checking for turns to re-scan failed: %s", type(exc).__name__)
            return True

    def rescan(self, progress: Callable[[int, int], None] | None = None) -> Rescanned:
        """Re-scan now every turn stored under older secret rules than this version's, mask
        what the current rules catch, and scrub the old text out of the storage as a forget
        does. `progress(scanned, total)` after each step. Raises ReadOnlyHistory."""
        self._refuse_if_read_only()
        scanned = masked = 0
        # The upkeep thread waits meanwhile: it would re-scan turns this count never saw.
        with self._upkeep.exclusive():
            total = self._maintenance.rescan_left()
            while True:
                step = self._maintenance.rescan_step(self._write_lock)
                scanned, masked = scanned + step.scanned, masked + step.masked
                if progress is not None:
                    progress(scanned, max(total, scanned))
                if not step.more:
                    break
        self._purge(masked, short_steps=True)
        self._upkeep.wrote()
        return Rescanned(scanned, masked, scrubbed=not self._owes())

    def conversations(
        self,
        project: str | None = None,
        days: int | None = None,
        limit: int = 50,
        before: str | None = None,
    ) -> list[ConversationSummary]:
        """The conversations (of `project`, or of every project) with a turn in the last `days`,
        the latest turn first, at most `limit`. For the next page pass the last one's
        `cursor` as `before`. Raises ValueError for a bad `limit`, `days` or cursor."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        since = limits.since(days)
        key = paging.decode(before) if before is not None else None
        scope = self._ids.scope(project) if project is not None else None
        found = self._repository.conversations(scope, since, limit, key)
        return [masked_summary(one) for one in found] if self._rescan_pending() else found

    def projects(self) -> list[ProjectSummary]:
        """Every project with turns recorded, the one with the latest turn first."""
        return self._repository.projects()

    def file_candidates(self, path: str, project: str | None) -> list[Candidate]:
        """The turns (of `project`, or of every one) whose recorded files may name `path`, by
        its words, newest first: history.blame keeps the exact."""
        scope = self._ids.scope(project) if project is not None else None
        return self._repository.file_candidates(path, scope)

    def turns_by_row(self, ids: Sequence[int]) -> dict[int, Turn]:
        """The whole turns of the rows `file_candidates` gave (a forgotten one is not there)."""
        found = self._repository.turns_by_row(ids)
        if not self._rescan_pending():
            return found
        return {row: masked_turn(turn) for row, turn in found.items()}

    def _upkeep_step(self, pages: int) -> bool:
        """A step of the store's upkeep (a forget's owed work first, any process's: see
        Maintenance.step). Turns past their retention are listed as owed before (one short
        transaction), so their deletion goes in the same steps as a forget's."""
        if self._retention_due():
            self._next_retention_check = time.monotonic() + RETENTION_CHECK_SECONDS
            owed = self._repository.expire_due(datetime.now(UTC))
            if owed:
                event = AuditEvent(datetime.now(UTC), RETENTION_ACTOR, Action.RETENTION, turns=owed)
                self.members.note(event)
            return True
        state = self._maintenance.step(pages, self._write_lock)
        if state == "blocked":
            self._upkeep.retry_later()
        return state == "more"

    def _owes(self) -> bool:
        try:
            return self._maintenance.owes()
        except Exception as exc:
            log.warning("checking for owed forget work failed: %s", type(exc).__name__)
            return False

    @property
    def purge_pending(self) -> bool:
        """A forget's deletion or scrub is still owed (by this process or another)."""
        return self._owes()

    def watch(self) -> None:
        """For a long-running process (the service): look for owed forget work every few
        seconds, and do it, even when this process writes nothing."""
        if self.writable:
            self._upkeep.watch()
            self.embed_in_background()

    def embed_in_background(self) -> None:
        """Where search by meaning is installed, embed the turns waiting (newest first, and
        again when the model changed) in a thread of this long-running process (`recall serve`,
        `recall watch`, `recall mcp`: history/meaning/background.py). Only looks here: numpy and
        the model are imported in that thread, so the process starts as fast as without."""
        from history import meaning

        engine = getattr(self._repository, "engine", None)
        given = self._meaning is not None  # a model given to meaning() (tests)
        if not self.writable or engine is None or not (given or meaning.installed()):
            return
        stop = threading.Event()
        thread = threading.Thread(target=self._embedding, args=(stop,), daemon=True)
        thread.start()
        # Stopped and waited for before the interpreter tears down: a thread killed inside the
        # model's runtime at exit aborts the process (SIGABRT instead of exiting 0).
        atexit.register(_stop_embedding, stop, thread)

    def _embedding(self, stop: threading.Event) -> None:
        try:
            found = self.meaning()
            from history.meaning import background
        except Exception as exc:  # a broken install: search stays lexical
            log.warning("search by meaning could not start: %s", type(exc).__name__)
            return
        if found is not None:
            background.run(found, lambda: self._closed or stop.is_set())

    def tidy(self, seconds: float | None = None) -> bool:
        """Do the index upkeep that writes leave for later (merging the full-text index,
        checkpointing the WAL) now, in this thread, for at most `seconds` (None: all of it).
        It runs by itself once writes pause; this is for callers that cannot wait for that.
        True when nothing is left. Never raises."""
        if not self.writable:
            return True  # nothing this process could do
        return self._upkeep.run_now(seconds)

    def _purge(self, removed: int, short_steps: bool = False) -> None:
        """Scrub what was deleted out of the file (`short_steps`: see Maintenance.scrub); if a
        reader's snapshot holds it back, say so: the scrub stays owed in the database and
        whoever comes next finishes it."""
        if removed and self._meaning is not None:
            self._meaning.matrix.stale()  # the next search reads the vectors left, not theirs
        if not removed and not self._owes():
            return
        try:
            with self._upkeep.exclusive():
                done = self._maintenance.scrub(None, short_steps) == "done"
        except Exception as exc:
            log.warning("scrubbing forgotten turns failed: %s", type(exc).__name__)
            done = False
        if not done:
            self._upkeep.retry_later()
            log.warning(
                "forgotten turns are out of search results, but a reader still holds an older "
                "snapshot: the file is scrubbed once it lets go (by the next write, the "
                "service's upkeep or recall doctor)"
            )

    def _refuse_if_read_only(self) -> None:
        if not self.writable:
            raise ReadOnlyHistory

    def _shown_id(self, turn_id: object) -> str:
        """A turn id fit for a log line: masked like the stored one."""
        try:
            return self._ids.id(str(turn_id))
        except Exception:
            return "(an id that could not be masked)"

    # What the index says of itself, and its care (history/reports.py).

    def about(self) -> About:
        """Where the database is, how it searches, and the damaged copies beside it."""
        return self._maintenance.about()

    def stats(self, said: Messages = ENGLISH) -> Stats:
        """What search can find, and the storage's size; a damaged page found is said in
        `said`'s language. Raises DamagedDatabase when part of the database cannot be read."""
        return self._maintenance.stats(said)

    def doctor(self, repair: bool = True, said: Messages = ENGLISH) -> DoctorReport:
        """Check the store and, with `repair` (and a file this process may write), mend the
        full-text index; the findings in `said`'s language."""
        return self._maintenance.doctor(repair and self.writable, self.writable, said)

    def compact(self, said: Messages = ENGLISH) -> str:
        """Merge the whole full-text index now (a process that only ever ran briefly may have
        left it in many parts); what that did, in `said`'s language."""
        if not self.writable:
            return ""
        return self._maintenance.compact(said)

    def delete_damaged(self) -> DeletedCopies | None:
        """Delete the damaged copies kept beside the file; None where there is no file."""
        return self._maintenance.delete_damaged()

    def recover(self) -> Recovery:
        """Copy what a damaged file still lets be read into a new file that takes its place,
        keeping the damaged one as a damaged copy. The index is closed by then: no process may
        use the file meanwhile (stop `recall serve` first)."""
        if not self.writable:
            return Recovery(Recovered.READ_ONLY)
        return self._maintenance.recover(self.close)

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Release the database; safe to call twice. A process that wrote spends at most
        CLOSING_UPKEEP_SECONDS on the upkeep its writes left."""
        if not self._closed:
            self._closed = True
            self._upkeep.close()
            if self._upkeep.due and self.writable:
                # The thread's steps: a closing process leaves the long merges to a caller
                # who waits for them (store/sqlite/merges.py).
                self._upkeep.run_now(CLOSING_UPKEEP_SECONDS, THREAD_STEP_PAGES)
            self._repository.close()
            self._maintenance.close()
            if self._meaning is not None:
                self._meaning.close()


def _stop_embedding(stop: threading.Event, thread: threading.Thread) -> None:
    stop.set()
    thread.join(EMBED_STOP_SECONDS)


def _storable(text: str) -> bool:
    """Text both databases can compare: no NUL (PostgreSQL refuses it), no lone surrogate."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


_indexes: dict[Path | str, HistoryIndex] = {}
_indexes_lock = threading.Lock()


def history_for(
    home: str | os.PathLike[str] | None = None, database_url: str | None = None
) -> HistoryIndex:
    """The one index of a home (`<home>/history.db`) in this process, created on first use;
    with `database_url` (or `$RECALL_DATABASE_URL`), the one index of that database instead."""
    url = configured_url(database_url)
    key: Path | str = url if url is not None else resolve_home(home)
    with _indexes_lock:
        index = _indexes.get(key)
        if index is None or index.closed:
            if isinstance(key, Path):
                ensure_private_dir(key)
                index = HistoryIndex.open(key / DATABASE_NAME)
            else:
                index = HistoryIndex.open(key)
            _indexes[key] = index
        return index
