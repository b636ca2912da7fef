"""A blame as data: what `recall blame --json` prints and `GET /api/code/files` answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from history.blame import FileTurn, LineOrigin
from history.blame_paths import Target
from history.domain import first_asked

# A turn's work records the lines an edit added, and those it removed where the agent's log
# says (turns imported before removed lines were kept have none until imported again).
REMOVED_LINES_RECORDED = True


def _file(target: Target) -> dict[str, Any]:
    return {
        "path": target.path,
        "project": target.project,
        "names": list(target.names),
        "removed_lines_recorded": REMOVED_LINES_RECORDED,
    }


def turn(found: FileTurn) -> dict[str, Any]:
    asked = found.turn.asked.strip().splitlines()
    return {
        "turn_id": found.turn.turn_id,
        "session_id": found.turn.session_id,
        "project": found.turn.project,
        "asked_at": found.turn.asked_at.isoformat(),
        "tainted": found.turn.tainted,
        "asked": first_asked(asked[0] if asked else ""),
        "name": found.name,
        "edited": found.edited,
        "added": list(found.added),
        "removed": list(found.removed),
    }


def turns(target: Target, found: Sequence[FileTurn]) -> dict[str, Any]:
    return {**_file(target), "turns": [turn(one) for one in found]}


def lines(target: Target, origins: Sequence[LineOrigin]) -> dict[str, Any]:
    return {
        **_file(target),
        "lines": [
            {
                "line": origin.number,
                "text": origin.text,
                "turn": turn(origin.origin) if origin.origin else None,
                "how": [reason.replace(" ", "_") for reason in origin.how],
                "commit": origin.commit.sha if origin.commit else None,
                "committed_at": origin.commit.committed_at.isoformat() if origin.commit else None,
            }
            for origin in origins
        ],
    }
