"""GitHub Copilot Chat in VS Code: `<User>/workspaceStorage/<hash>/chatSessions/<sessionId>.json`
(and `globalStorage/emptyWindowChatSessions/` for chats with no folder open,
`transferredChatSessions/` for chats moved between windows). Newer builds write
`<sessionId>.jsonl`, an operation log replayed by history.importers.mutation_log.

A session is one JSON document `{version, sessionId, creationDate, requests: [...]}`; each request
is one turn: `message.text` is the prompt, `timestamp` (epoch ms) its time, and `response` the
parts VS Code showed: markdown (`{value}` with no kind, or `markdownContent`) is the answer;
`toolInvocationSerialized` names a tool (`toolId`; a terminal's `toolSpecificData` holds its
command, file URIs in its messages the files it read); `textEditGroup` is an edit of its `uri`.
Files attached to the prompt (`variableData`) count as read. The project is the `folder` (or
`workspace`) URI in `workspace.json` of the workspace's storage folder; a chat of an empty
window has the home folder (`~`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from history.importers.base import (
    Places,
    ReadReport,
    TranscriptFormat,
    TurnDraft,
    file_time,
    first_records,
)
from history.importers.editors import NO_FOLDER, uri_path, user_folders, workspace_folder
from history.importers.json_files import load, read_text, string_field
from history.importers.mutation_log import replay

READS = frozenset({"copilot_readFile", "read_file", "copilot_listDirectory", "copilot_viewImage"})
WEB = frozenset(
    {
        "copilot_fetchWebPage",
        "fetch_webpage",
        "vscode_fetchWebPage_internal",
        "copilot_openSimpleBrowser",
        "open_simple_browser",
        "copilot_githubRepo",
    }
)
GLOBAL_FOLDERS = ("emptyWindowChatSessions", "transferredChatSessions")
SESSION_FOLDERS = frozenset({"chatSessions", *GLOBAL_FOLDERS})
FILE_URI = re.compile(r"file:///[^\s)\]\"']+")


class CopilotChat(TranscriptFormat):
    name = "copilot-chat"

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        roots = []
        for user in user_folders(places, ("Code", "Code - Insiders", "VSCodium")):
            roots += [user / "workspaceStorage"]
            roots += [user / "globalStorage" / folder for folder in GLOBAL_FOLDERS]
        return roots

    def claims(self, path: Path) -> bool:
        """A Copilot Chat operation log: it starts with a `kind` 0 snapshot."""
        return any(
            line.get("kind") == 0 and isinstance(line.get("v"), dict)
            for line in first_records(path, 1)
        )

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        elif root.is_dir():
            for path in sorted(root.rglob("*.json*")):
                if path.suffix in (".json", ".jsonl") and path.parent.name in SESSION_FOLDERS:
                    yield path

    def read(self, path: Path) -> ReadReport:
        if path.suffix == ".jsonl":
            return _read_log(path)
        report = ReadReport()
        loaded = load(path, "requests")
        session = loaded.value if loaded.complete else None
        if loaded.problem:
            report.problems.append(loaded.problem)
        if loaded.complete and not isinstance(session, dict):
            report.problems.append(f"{path.name} is not a chat session.")
            return report
        text = "" if loaded.complete else (read_text(path)[0] or "")
        session_id = str(
            (session or {}).get("sessionId") or string_field(text, "sessionId") or path.stem
        )
        requests = (session or {}).get("requests", []) if loaded.complete else loaded.entries
        project = workspace_folder(path.parent.parent) or NO_FOLDER
        if not isinstance(requests, list):
            report.problems.append(f"{path.name} holds no list of requests.")
            return report
        report.lines += len(requests)
        _turns(requests, session_id, project, path, report)
        return report


def _read_log(path: Path) -> ReadReport:
    report = ReadReport()
    session = replay(path, report)
    requests = session.get("requests") if session is not None else None
    if not isinstance(requests, list):
        if report.lines:  # an unreadable file has said so already
            report.problems.append(f"{path.name} holds no chat session with requests.")
        return report
    session_id = str(session.get("sessionId") or path.stem) if session else path.stem
    # One line can push many requests: what was read is the lines that did not apply and the
    # requests the others built, so a request skipped for want of a prompt is counted in both.
    report.lines = max(report.lines, report.skipped + len(requests))
    _turns(requests, session_id, workspace_folder(path.parent.parent) or NO_FOLDER, path, report)
    return report


def _turns(
    requests: list[Any], session_id: str, project: str, path: Path, report: ReadReport
) -> None:
    empty = 0
    for number, request in enumerate(requests):
        turn = _turn(request, f"copilot-chat:{session_id}:{number}", session_id, project, path)
        if turn is None:
            empty += 1
        else:
            report.turns.append(turn.finish())
    if empty:
        report.skipped += empty
        report.problems.append(f"{empty} request(s) in {path.name} had no prompt and were skipped.")


def _turn(
    request: object, turn_id: str, session: str, project: str, path: Path
) -> TurnDraft | None:
    if not isinstance(request, dict):
        return None
    message = request.get("message")
    asked = message.get("text") if isinstance(message, dict) else None
    if not isinstance(asked, str) or not asked.strip():
        return None
    stamp = request.get("timestamp")
    when = (
        datetime.fromtimestamp(stamp / 1000, UTC)
        if isinstance(stamp, (int, float)) and not isinstance(stamp, bool)
        else file_time(path)
    )
    turn = TurnDraft(turn_id, session, project, asked.strip(), when)
    variables = request.get("variableData")
    for variable in variables.get("variables", []) if isinstance(variables, dict) else []:
        if isinstance(variable, dict) and variable.get("kind") in ("file", None):
            value = variable.get("value")
            found = uri_path(value.get("uri", value) if isinstance(value, dict) else value)
            if found:
                turn.touch(found)
    response = request.get("response")
    for part in response if isinstance(response, list) else []:
        if isinstance(part, dict):
            _part(part, turn)
    return turn


def _part(part: dict[str, Any], turn: TurnDraft) -> None:
    kind = part.get("kind")
    if kind is None and isinstance(part.get("value"), str):
        turn.say(part["value"])
    elif kind == "markdownContent" and isinstance(part.get("content"), dict):
        value = part["content"].get("value")
        turn.say(value if isinstance(value, str) else "")
    elif kind == "textEditGroup":
        edits = part.get("edits")
        added = [
            edit["text"]
            for group in (edits if isinstance(edits, list) else [])
            for edit in (group if isinstance(group, list) else [])
            if isinstance(edit, dict) and isinstance(edit.get("text"), str)
        ]
        if target := uri_path(part.get("uri")):
            turn.write_file(target, "\n".join(added))
    elif kind == "toolInvocationSerialized" and isinstance(part.get("toolId"), str):
        _tool(part["toolId"], part, turn)


def _tool(name: str, part: dict[str, Any], turn: TurnDraft) -> None:
    turn.use_tool(name)
    turn.tainted = turn.tainted or name in WEB
    data = part.get("toolSpecificData")
    if isinstance(data, dict) and data.get("kind") == "terminal":
        command = data.get("commandLine", data.get("command"))
        if isinstance(command, dict):
            command = command.get("toolEdited") or command.get("original")
        if isinstance(command, str):
            turn.run_shell(command)
    if name in READS:
        message = part.get("pastTenseMessage") or part.get("invocationMessage")
        text = message.get("value") if isinstance(message, dict) else message
        for uri in FILE_URI.findall(text if isinstance(text, str) else ""):
            turn.touch(uri_path(uri.split("#")[0]))
