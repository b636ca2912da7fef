"""What each agent's hook hands `recall hook AGENT`, and the transcript it names.

- Claude Code (`Stop`), Gemini CLI (`AfterAgent`, `SessionEnd`) and Cursor (`stop`) write a
  JSON object on stdin with the session's `transcript_path` and its working directory (`cwd`;
  Cursor: `workspace_roots`).
- Codex runs its `notify` program with the JSON as the last argument (`agent-turn-complete`,
  with `thread-id` and `cwd`, no path): the thread's rollout is the file under the Codex
  sessions whose name ends with the thread id (`rollout-<time>-<thread-id>.jsonl`).
- A Cursor payload without `transcript_path` (older versions) names its `conversation_id`:
  `~/.cursor/projects/*/agent-transcripts/<conversation_id>.jsonl`.

The facts handed on are Claude Code's names (`cwd`, `session_id`, `hook_event_name`,
`last_assistant_message`), which history.importers.run fills a turn's gaps with.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from history.importers import FORMATS, TranscriptFormat
from history.importers.base import Places

HOOK_AGENTS = ("claude-code", "codex", "gemini", "cursor")


@dataclass(frozen=True)
class HookCall:
    """The transcript a hook names, the format to read it as, and the payload's facts."""

    fmt: TranscriptFormat
    transcript: Path
    facts: dict[str, Any]


def hook_call(agent: str, payload: dict[str, Any], places: Places) -> HookCall | None:
    """The transcript `payload` names for `agent`, or None when it names none that exists."""
    fmt = FORMATS[agent]
    if agent == "codex":
        thread = _text(payload.get("thread-id"))
        found = _codex_rollout(fmt, thread, places) if thread else None
        facts = {"cwd": _text(payload.get("cwd"))}
        return HookCall(fmt, found, facts) if found else None
    path = _text(payload.get("transcript_path"))
    transcript = Path(path).expanduser() if path else None
    if agent == "cursor":
        if transcript is None:
            transcript = _cursor_transcript(fmt, _text(payload.get("conversation_id")), places)
        roots = payload.get("workspace_roots")
        cwd = roots[0] if isinstance(roots, list) and roots else None
        facts = {"cwd": _text(cwd)}
    elif agent == "gemini":
        facts = {"cwd": _text(payload.get("cwd"))}
    else:
        facts = payload
    if transcript is None or not transcript.is_file():
        return None
    return HookCall(fmt, transcript, facts)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _codex_rollout(fmt: TranscriptFormat, thread: str, places: Places) -> Path | None:
    if "/" in thread or "\\" in thread or "*" in thread:
        return None
    for root in fmt.candidate_roots(places):
        if root.is_dir():
            found = sorted(root.rglob(f"rollout-*{thread}.jsonl"))
            if found:
                return found[-1]
    return None


def _cursor_transcript(fmt: TranscriptFormat, conversation: str, places: Places) -> Path | None:
    if not conversation or "/" in conversation or "\\" in conversation or "*" in conversation:
        return None
    for root in fmt.candidate_roots(places):
        if root.is_dir():
            for path in sorted(root.glob(f"*/agent-transcripts/{conversation}.jsonl")):
                return path
    return None
