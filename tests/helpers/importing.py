"""Transcripts written for the import tests, and what an index holds after reading them."""

from __future__ import annotations

import json
import shutil
from datetime import UTC
from pathlib import Path
from typing import Any

from history import HistoryIndex
from history.importers import ImportedTurn
from history.importers.run import ImportSummary
from tests.helpers.paths import IMPORTERS

FIXTURES = IMPORTERS


def prompt(n: int, text: str, session: str = "s-grow") -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": f"u{n}",
        "sessionId": session,
        "cwd": "/home/dev/shop",
        "timestamp": f"2026-03-0{n}T10:00:00Z",
        "message": {"role": "user", "content": text},
    }


def reply(n: int, text: str, edit: str, session: str = "s-grow") -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": f"a{n}",
        "sessionId": session,
        "message": {
            "id": f"m{n}",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "name": "Edit",
                    "input": {"file_path": f"/home/dev/shop/{edit}"},
                },
                {"type": "text", "text": text},
            ],
        },
    }


SESSION = [
    prompt(1, "How should the login function hash passwords?"),
    reply(1, "Use argon2id for the login hashing.", "src/login.py"),
    prompt(2, "Add a test for the cart total"),
    reply(2, "Added a cart total test.", "tests/test_cart.py"),
    prompt(3, "Rename the checkout button"),
    reply(3, "Renamed the checkout button.", "web/checkout.html"),
]


def write(path: Path, lines: list[Any]) -> Path:
    with path.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    return path


def stored(index: HistoryIndex, turn: ImportedTurn) -> bool:
    """`turn` is found by a search for its own question, with its facts intact."""
    for hit in index.search(f"{turn.asked} {turn.answered}", project=turn.project, k=10):
        if hit.turn_id == turn.turn_id:
            assert (hit.files, hit.edited, hit.tools) == (turn.files, turn.edited, turn.tools)
            assert (hit.asked_at, hit.tainted, hit.session_id) == (
                turn.asked_at,
                turn.tainted,
                turn.session_id,
            )
            return True
    return False


def counts(summary: ImportSummary) -> tuple[int, ...]:
    return summary.new, summary.updated, summary.unchanged, summary.forgotten, summary.failed


def hook_input(path: Path | str, **more: object) -> str:
    base = {"session_id": "s-grow", "cwd": "/home/dev/shop", "hook_event_name": "Stop"}
    return json.dumps({**base, "transcript_path": str(path), **more})


def check_invariants(turns: list[ImportedTurn]) -> None:
    assert len({turn.turn_id for turn in turns}) == len(turns)
    for turn in turns:
        assert set(turn.edited) <= set(turn.files)
        assert len(set(turn.files)) == len(turn.files)
        assert len(set(turn.tools)) == len(turn.tools)
        assert turn.asked_at.tzinfo is UTC


CLINE = FIXTURES / "cline/saoudrizwan.claude-dev/tasks/1764838800000"


ROO = FIXTURES / "roo-code/rooveterinaryinc.roo-cline/tasks/0b5e7d3c-2f1a-4c8e-9d6b-7a1e2c3d4f50"


COPILOT_CLI = FIXTURES / "copilot-cli/session-state/5d2c1b0a-9e8f-4a7b-8c6d-1e2f3a4b5c6d"


CHAT_STORAGE = FIXTURES / "copilot-chat/workspaceStorage/3f2a9c81d4e5b6a7"


CONTINUE = FIXTURES / "continue/sessions"


GOOSE = FIXTURES / "goose/sessions/20261205_garden.jsonl"


CURSOR = FIXTURES / "cursor/projects/home-dev-shop/agent-transcripts"


SINGLE_FILES = [
    ("cline", CLINE / "api_conversation_history.json"),
    ("roo-code", ROO / "api_conversation_history.json"),
    ("copilot-cli", COPILOT_CLI / "events.jsonl"),
    ("copilot-chat", CHAT_STORAGE / "chatSessions/8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d.json"),
    ("continue", CONTINUE / "c0ffee00-1234-4abc-8def-0123456789ab.json"),
    ("goose", GOOSE),
    ("cursor", CURSOR / "e1d2c3b4-a5f6-4789-8abc-def012345678.jsonl"),
]


def copy_beside(source: Path, tmp_path: Path) -> Path:
    """The session file in a copy of its folder (its companions travel with it)."""
    folder = tmp_path / source.parent.name
    shutil.copytree(source.parent, folder)
    return folder / source.name


def operation_log(session: dict[str, Any]) -> list[dict[str, Any]]:
    """The session as newer VS Code builds write it: a snapshot, then the changes."""
    first, second, third = session["requests"]
    growing = {**second, "response": []}
    return [
        {"kind": 0, "v": {**session, "requests": [first], "customTitle": "New chat"}},
        {"kind": 2, "k": ["requests"], "v": [growing]},
        {"kind": 2, "k": ["requests", 1, "response"], "v": second["response"][:2]},
        {"kind": 2, "k": ["requests", 1, "response"], "v": second["response"][2:], "i": 2},
        {"kind": 1, "k": ["customTitle"], "v": "Tax rate"},
        {"kind": 2, "k": ["requests"], "v": [third]},
        {"kind": 3, "k": ["requests", 2, "modelId"]},
    ]
