"""Continue sessions: `~/.continue/sessions/<sessionId>.json` (`$CONTINUE_GLOBAL_DIR` moves
`~/.continue`), indexed by `sessions.json` in the same folder.

A session is `{sessionId, title, workspaceDirectory, history: [{message, contextItems,
toolCallStates?}]}`; `workspaceDirectory` (a path or a `file://` URI) is the project. A `user`
message is a prompt; every `assistant` message's content is the answer, its `toolCalls` the
tools (`{function: {name, arguments}}`), and a tool call state whose status is `errored` logs its
output as a failure; `tool` messages are results and `thinking` ones are not answers. Messages
carry no times: each turn has the session's `dateCreated` from the index, else the file's time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from history.importers.base import (
    Places,
    ReadReport,
    TranscriptFormat,
    TurnDraft,
    file_time,
    parse_timestamp,
)
from history.importers.editors import NO_FOLDER, uri_path
from history.importers.json_files import load, read_text, string_field
from history.importers.tool_calls import ToolKinds, apply_call

KINDS = ToolKinds(
    read=frozenset({"read_file", "read_file_range", "read_currently_open_file", "view_diff"}),
    edit=frozenset(
        {
            "create_new_file",
            "edit_existing_file",
            "single_find_and_replace",
            "multi_edit",
            "create_rule_block",
        }
    ),
    shell=frozenset({"run_terminal_command"}),
    web=frozenset({"fetch_url_content", "search_web"}),
)
INDEX = "sessions.json"


class Continue(TranscriptFormat):
    name = "continue"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        home = places.env.get("CONTINUE_GLOBAL_DIR")
        return [(Path(home) if home else places.home / ".continue") / "sessions"]

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        elif root.is_dir():
            # Only a `sessions` folder: other agents keep JSON files of their own elsewhere.
            found = (p for p in root.rglob("*.json") if p.parent.name == "sessions")
            yield from sorted(p for p in found if p.name != INDEX and p.is_file())

    def read(self, path: Path) -> ReadReport:
        return _Reader(path).run()


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    texts = [part.get("text") for part in parts if isinstance(part, dict)]
    return "\n".join(text for text in texts if isinstance(text, str))


class _Reader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.report = ReadReport()
        self.current: TurnDraft | None = None

    def run(self) -> ReadReport:
        loaded = load(self.path, "history")
        if loaded.problem:
            self.report.problems.append(loaded.problem)
        if loaded.complete and not isinstance(loaded.value, dict):
            self.report.problems.append(f"{self.path.name} is not a Continue session.")
            return self.report
        session: dict[str, Any] = loaded.value if loaded.complete else {}
        text = "" if loaded.complete else (read_text(self.path)[0] or "")
        self.session_id = str(
            session.get("sessionId") or string_field(text, "sessionId") or self.path.stem
        )
        workspace = session.get("workspaceDirectory") or string_field(text, "workspaceDirectory")
        self.project = uri_path(workspace) or NO_FOLDER
        self.asked_at = self.created() or file_time(self.path)
        history = session.get("history") if loaded.complete else loaded.entries
        if not isinstance(history, list):
            self.report.problems.append(f"{self.path.name} holds no list of history items.")
            return self.report
        for item in history:
            self.report.lines += 1
            message = item.get("message") if isinstance(item, dict) else None
            if not isinstance(message, dict):
                self.report.skipped += 1
                continue
            self.item(item, message)
        if self.report.skipped:
            self.report.problems.append(
                f"{self.report.skipped} history item(s) in {self.path.name} held no message."
            )
        self.close()
        return self.report

    def created(self) -> Any:
        try:
            index = json.loads((self.path.parent / INDEX).read_text(encoding="utf-8"))
        except (OSError, ValueError, UnicodeDecodeError):
            return None
        for entry in index if isinstance(index, list) else []:
            if isinstance(entry, dict) and entry.get("sessionId") == self.session_id:
                return parse_timestamp(entry.get("dateCreated"))
        return None

    def close(self) -> None:
        if self.current is not None:
            self.report.turns.append(self.current.finish())
        self.current = None

    def item(self, item: dict[str, Any], message: dict[str, Any]) -> None:
        role = message.get("role")
        if role == "user":
            asked = _text(message.get("content")).strip()
            if asked:
                self.close()
                self.current = TurnDraft(
                    turn_id=f"continue:{self.session_id}:{len(self.report.turns)}",
                    session_id=self.session_id,
                    project=self.project,
                    asked=asked,
                    asked_at=self.asked_at,
                )
        elif role == "assistant" and self.current is not None:
            self.current.say(_text(message.get("content")))
            calls = message.get("toolCalls")
            for call in calls if isinstance(calls, list) else []:
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict) and isinstance(function.get("name"), str):
                    apply_call(self.current, function["name"], function.get("arguments"), KINDS)
            states = item.get("toolCallStates")
            for state in states if isinstance(states, list) else []:
                if isinstance(state, dict) and state.get("status") == "errored":
                    output = state.get("output")
                    texts = [
                        str(entry.get("content", ""))
                        for entry in (output if isinstance(output, list) else [])
                        if isinstance(entry, dict)
                    ]
                    self.current.failed("\n".join(texts) or "errored")
