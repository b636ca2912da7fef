"""`recall push`: a local history's turns to a team's service, conversation by conversation.

Each stored turn is redacted again (rules newer than the turn apply) and posted; the service's
turn ids make a repeat "unchanged". The service's ledger (history.remote.ledger) remembers what
it took, so a push cut short (the service went away, Ctrl-C) goes on where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from history.domain import Turn
from history.remote.body import digest, prepared_body
from history.remote.client import Answer, Client, Verdict
from history.remote.ledger import Ledger
from history.remote.outbox import FOLDER

if TYPE_CHECKING:
    from history.index import HistoryIndex
    from history.redaction.ids import IdMask

REFUSALS_KEPT = 20  # refused turns told one by one; the rest only counted


@dataclass
class PushSummary:
    total: int = 0  # turns in the local history (of the project)
    sent: int = 0  # stored by the service as new or changed
    unchanged: int = 0  # the service had them already (or took them in an earlier push)
    failed: int = 0  # refused by the service, or not redacted
    refusals: list[tuple[str, Answer]] = field(default_factory=list)  # (turn id, answer)
    stopped: Answer | None = None  # the service stopped taking turns: the rest were not sent

    @property
    def left(self) -> int:
        return max(0, self.total - self.sent - self.unchanged - self.failed)


def pushed_ledger(home: Path, url: str) -> Ledger:
    return Ledger.named(home / FOLDER / "pushed", url)


def push(
    index: HistoryIndex,
    client: Client,
    ids: IdMask,
    ledger: Ledger | None,
    project: str | None = None,
    step: Callable[[], None] = lambda: None,
) -> PushSummary:
    """Post every stored turn (of `project`) not in `ledger` (None: every one); `step` is
    called once a turn."""
    summary = PushSummary(total=index.count(project))
    for session_id in index.session_ids(project):
        for turn in index.conversation(session_id):
            step()
            _push_one(turn, client, ids, ledger, summary)
            if summary.stopped is not None:
                return summary
    summary.total = summary.sent + summary.unchanged + summary.failed
    return summary


def _push_one(
    turn: Turn, client: Client, ids: IdMask, ledger: Ledger | None, summary: PushSummary
) -> None:
    try:
        prepared, body = prepared_body(turn, ids)
    except Exception:
        summary.failed += 1
        return
    version = digest(body)
    if ledger is not None and version in ledger:
        summary.unchanged += 1
        return
    answer = client.post_turn(body)
    if answer.verdict is Verdict.LATER:
        summary.stopped = answer
        return
    if answer.verdict is Verdict.REFUSED:
        summary.failed += 1
        if len(summary.refusals) < REFUSALS_KEPT:
            summary.refusals.append((prepared.turn_id, answer))
        return
    if answer.outcome == "unchanged":
        summary.unchanged += 1
    else:
        summary.sent += 1
    if ledger is not None:
        ledger.add(version)
