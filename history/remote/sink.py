"""`RemoteHistory`: where `recall hook` and `recall watch` put turns when a service is named.

It takes an import's turns as the index does (`record_many`), redacts each, and hands on only
the versions its conversation's ledger has not seen. The outbox goes first: while older turns
wait, new ones queue behind them; once it is empty they are posted directly, and the first
one the service cannot take now sends it and the rest to the outbox. Nothing is marked as
handed on before the service stored it or the outbox holds it, so a process killed anywhere
loses nothing: the transcript is read again by the next hook, and what differs goes.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from history.home import DATABASE_NAME
from history.prepare import RecordCounts, TurnFields
from history.redaction.ids import IdMask, id_key_path
from history.remote.body import digest, prepared_body, turn_id_of
from history.remote.client import Answer, Client, Verdict
from history.remote.ledger import Ledger
from history.remote.outbox import FOLDER, Outbox

# A hook sends for at most HOOK_SECONDS (waiting for another sender included), each request
# HOOK_REQUEST_SECONDS at most: with Python's start, under the 10 s a hook is usually given.
HOOK_SECONDS, HOOK_REQUEST_SECONDS = 6.0, 3.0
LOCK_WAIT_SECONDS = 2.0  # how long a sender waits for another one to finish
LEDGER_DAYS = 90  # a conversation's ledger untouched this long is dropped (a resumed one resends)
LEDGERS_HELD = 1_000  # ledgers a long-running watch keeps in memory
RETRY_SECONDS = 30.0  # how often a long-running watch sends what waits in the outbox
log = logging.getLogger(__name__)


class NoteKind(Enum):
    WAITING = "waiting"  # the service cannot take turns now; `count` wait in the outbox
    REFUSED = "refused"  # the service refused a turn: kept aside in `kept`
    DELIVERED = "delivered"  # `count` turns that waited in the outbox were delivered


@dataclass(frozen=True)
class Note:
    kind: NoteKind
    answer: Answer | None = None
    count: int = 0
    turn_id: str = ""
    kept: Path | None = None


def _ignore(_note: Note) -> None:
    return None


class RemoteHistory:
    """A team's service as the sink of an import. `client` None: no usable address, so every
    turn waits in the outbox. `budget`: the seconds one call may spend sending (None: as long
    as it takes); `heard` hears what a person should be told."""

    def __init__(
        self,
        home: Path,
        client: Client | None,
        heard: Callable[[Note], None] = _ignore,
        clock: Callable[[], float] = time.time,
        budget: float | None = HOOK_SECONDS,
    ) -> None:
        self.client, self.heard, self.clock, self.budget = client, heard, clock, budget
        self.outbox = Outbox(home, clock)
        self.ids = IdMask(id_key_path(home / DATABASE_NAME))
        self.sent_folder = home / FOLDER / "sent"
        self.lock_wait = LOCK_WAIT_SECONDS
        self._ledgers: dict[str, Ledger] = {}
        self._busy = threading.Lock()
        self._later: Answer | None = None

    def record_many(
        self, turns: Iterable[TurnFields], include_forgotten: bool = False
    ) -> RecordCounts:
        """Send (or queue) the turns not handed on before. `new` counts those, `unchanged` the
        ones already handed on, `failed` those that could not be redacted (never sent)."""
        fresh: list[tuple[bytes, str, Ledger]] = []
        unchanged = failed = 0
        for item in turns:
            try:
                turn, body = prepared_body(item, self.ids)
            except Exception:  # as the index does: a turn that cannot be prepared is not sent
                failed += 1
                continue
            ledger, version = self._ledger(turn.session_id), digest(body)
            if version in ledger:
                unchanged += 1
            else:
                fresh.append((body, version, ledger))
        if fresh or self.outbox.waiting():
            self._send(fresh)
        return RecordCounts(new=len(fresh), unchanged=unchanged, failed=failed)

    def deliver(self) -> None:
        """Send what waits in the outbox (another command's turns too)."""
        if self.outbox.waiting():
            self._send([])

    def keep_delivering(self, stop: threading.Event, every: float = RETRY_SECONDS) -> None:
        """`deliver` every `every` seconds until `stop` (a long-running watch's outbox)."""
        while not stop.wait(every):
            try:
                self.deliver()
            except Exception as error:  # a full disk, a folder gone: the next round tries again
                log.warning("the outbox could not be sent: %s", type(error).__name__)

    def _send(self, fresh: list[tuple[bytes, str, Ledger]]) -> None:
        deadline = None if self.budget is None else time.monotonic() + self.budget
        with self._busy:
            self._later = None
            with self.outbox.lock(self.lock_wait) as held:
                self.outbox.sweep_drafts()
                line_open = held and self._drain(deadline)
                for body, version, ledger in fresh:
                    if line_open and not _past(deadline):
                        line_open = self._post(body) is not Verdict.LATER
                        if line_open:
                            ledger.add(version)
                            continue
                    self.outbox.put(body)
                    ledger.add(version)
                if line_open and fresh:
                    self._drain(deadline)  # what another process queued meanwhile
            if not held:  # another sender was slow: ours wait behind its turns, or go now
                with self.outbox.lock(0) as free:
                    if free:
                        self._drain(deadline)
            if self._later is not None:
                waiting = len(self.outbox.waiting())
                self.heard(Note(NoteKind.WAITING, self._later, count=waiting))

    def _post(self, body: bytes, path: Path | None = None) -> Verdict:
        """One turn (queued at `path`, if it was) to the service; a refused one kept aside."""
        assert self.client is not None
        answer = self.client.post_turn(body)
        if answer.verdict is Verdict.LATER:
            self._later = answer
        elif answer.verdict is Verdict.REFUSED:
            kept = self.outbox.refuse(body, answer.status, answer.reason, path)
            self.heard(Note(NoteKind.REFUSED, answer, turn_id=turn_id_of(body), kept=kept))
        elif path is not None:
            self.outbox.remove(path)
        return answer.verdict

    def _drain(self, deadline: float | None) -> bool:
        """The outbox sent, oldest first: whether it is empty now."""
        if self.client is None:
            return False
        delivered = 0
        try:
            while waiting := self.outbox.waiting():
                for path in waiting:
                    body = self.outbox.read(path)
                    if body is None:
                        continue
                    verdict = Verdict.LATER if _past(deadline) else self._post(body, path)
                    if verdict is Verdict.LATER:
                        return False
                    delivered += verdict is Verdict.DELIVERED
            return True
        finally:
            if delivered:
                self.heard(Note(NoteKind.DELIVERED, count=delivered))

    def _ledger(self, session_id: str) -> Ledger:
        ledger = self._ledgers.get(session_id)
        if ledger is None:
            if len(self._ledgers) >= LEDGERS_HELD:
                self._ledgers.clear()
            ledger = self._ledgers[session_id] = Ledger.named(self.sent_folder, session_id)
            if not ledger.path.exists():
                self._drop_old_ledgers()
        return ledger

    def _drop_old_ledgers(self) -> None:
        oldest = self.clock() - LEDGER_DAYS * 86_400
        try:
            entries = list(os.scandir(self.sent_folder))
        except OSError:
            return
        for entry in entries:
            try:
                if entry.is_file() and entry.stat().st_mtime < oldest:
                    os.unlink(entry.path)
            except OSError:
                continue


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.monotonic() >= deadline
