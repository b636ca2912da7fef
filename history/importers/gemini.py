"""Gemini CLI sessions: `~/.gemini/tmp/<project-id>/chats/session-*.json` and `.jsonl`.

A `.json` file is one object, `{sessionId, projectHash, startTime, messages[]}`, rewritten on
every update. A `.jsonl` file is appended to and read by applying its records in order: a
metadata record, message records (an `id` seen before replaces that message, in its place),
`{"$set": {...}}` (merges metadata; with `messages` it is a checkpoint that rebuilds them) and
`{"$rewindTo": id}` (drops that message and every later one). A sub-agent's file,
`chats/<parentSessionId>/<sessionId>.jsonl` (`kind: "subagent"`), is not a session: its tool
calls fold into the parent's turn that was under way when the sub-agent started.

A turn is a `user` message through the `gemini` messages before the next one; `info`, `error`
and `warning` messages are notices. Tool calls and their results sit together in a gemini
message's `toolCalls`.

The project: `projectHash` is the SHA-256 of the project's absolute path, and current builds name
the project folder by a slug that `~/.gemini/projects.json` maps from that path. The project is
the path `projects.json` gives for the folder (or whose hash is `projectHash`); failing that, the
ancestor of an absolute path the session's tools named whose hash is `projectHash`. When neither
is known (the folder was copied elsewhere, the paths were anonymised) the project is Gemini CLI's
folder for it (`~/.gemini/tmp/<project-id>`): it names that project and no other, where a guess
from the paths the tools named could name a subfolder, or another project.
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
    open_lines,
    parse_timestamp,
)
from history.importers.gemini_session import Session, hashed_ancestor, registered_project, salvage
from history.importers.gemini_tools import ABSOLUTE, PATH_ARGS, apply_tool, part_texts, result_text


class Gemini(TranscriptFormat):
    name = "gemini"
    home_folder = ".gemini"
    home_variable: str | None = "GEMINI_CLI_HOME"  # stands for the home folder when set

    def default_root(self) -> Path:
        return self.candidate_roots(Places.here())[0]

    def candidate_roots(self, places: Places) -> list[Path]:
        home = places.home
        if places.system == "Windows" and places.env.get("USERPROFILE"):
            home = Path(places.env["USERPROFILE"])
        if self.home_variable and places.env.get(self.home_variable):
            home = Path(places.env[self.home_variable])
        return [home / self.home_folder / "tmp"]

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        elif root.is_dir():
            found = [*root.rglob("*session-*.json"), *root.rglob("*session-*.jsonl")]
            yield from sorted(path for path in found if path.is_file())

    def claims(self, path: Path) -> bool:
        """A `session-*` file, or a sub-agent's `.jsonl` (its first record has a
        `projectHash`): `discover` passes the latter over, its parent's turn reads it."""
        if not path.name.endswith((".json", ".jsonl")):
            return False
        head = next(open_lines(path, ReadReport()), "")
        if "session-" not in path.name:
            return path.suffix == ".jsonl" and '"projectHash"' in head
        return '"sessionId"' in head or '"projectHash"' in head or head.strip() in ("{", "")

    def read(self, path: Path) -> ReadReport:
        return SessionReader(path, self.name).run()


class SessionReader:
    """Reads one Gemini-layout session file into turns whose ids start with `agent`."""

    def __init__(self, path: Path, agent: str) -> None:
        self.path, self.agent = path, agent
        self.report = ReadReport()

    def run(self) -> ReadReport:
        session = self.load(self.path, self.report)
        if session is None or session.meta.get("kind") == "subagent":
            return self.report  # a sub-agent's prompts come from its parent, not a person
        session_id = str(session.meta.get("sessionId") or self.path.stem)
        project = self.project(session)
        turns: list[TurnDraft] = []
        for message in session.messages.values():
            kind = message.get("type")
            if kind == "user":
                asked = self.prompt_text(message)
                if asked:
                    turns.append(
                        TurnDraft(
                            turn_id=f"{self.agent}:{session_id}:{message['id']}",
                            session_id=session_id,
                            project=project,
                            asked=asked,
                            asked_at=parse_timestamp(message.get("timestamp"))
                            or file_time(self.path),
                        )
                    )
            elif kind == "gemini" and turns:
                self.gemini(message, turns[-1])
        self.fold_subagents(session_id, turns)
        self.report.turns = [turn.finish() for turn in turns]
        return self.report

    def load(self, path: Path, report: ReadReport) -> Session | None:
        session = Session()
        if path.suffix == ".json":
            text = "".join(open_lines(path, report))
            if report.problems:
                return None
            try:
                value = json.loads(text)
            except ValueError:
                value = None
            if isinstance(value, dict) and session.apply(value):
                return session
            salvaged = salvage(text)
            if salvaged is None:
                report.skipped += report.lines
                report.problems.append(f"{path.name} is not a Gemini CLI session (not JSON).")
                return None
            session.apply(salvaged)
            report.problems.append(
                f"{path.name} is cut short: read its first {len(salvaged['messages'])} "
                "message(s), the rest is left out."
            )
            return session
        bad = 0
        for line in open_lines(path, report):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            if not isinstance(record, dict) or not session.apply(record):
                bad += 1
        if bad:
            report.skipped += bad
            report.problems.append(f"{bad} line(s) in {path.name} were not session records.")
        return None if report.problems and not report.lines else session

    @staticmethod
    def prompt_text(message: dict[str, Any]) -> str:
        shown = part_texts(message.get("displayContent"))
        texts = shown or part_texts(message.get("content"))
        return "\n\n".join(text.strip() for text in texts if text.strip())

    @staticmethod
    def gemini(message: dict[str, Any], turn: TurnDraft) -> None:
        for text in part_texts(message.get("content")):
            turn.say(text)
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict) and isinstance(call.get("name"), str):
                error = None
                if call.get("status") == "error":
                    error = result_text(call.get("result")) or str(call.get("resultDisplay") or "")
                apply_tool(turn, call["name"], call.get("args"), error)

    def project(self, session: Session) -> str:
        project_hash = str(session.meta.get("projectHash") or "")
        chats = self.path.parent
        if chats.name != "chats":  # a sub-agent's file, or a file outside the store
            chats = chats.parent
        store_folder = str(chats.parent if chats.name == "chats" else self.path.parent)
        project = registered_project(chats.parent, project_hash) if chats.name == "chats" else ""
        if project or not project_hash:
            return project or store_folder
        named: list[str] = []
        for message in session.messages.values():
            for call in message.get("toolCalls") or []:
                if isinstance(call, dict):
                    args = call.get("args")
                    if isinstance(args, dict):
                        named += [str(args[k]) for k in PATH_ARGS if isinstance(args.get(k), str)]
                    named += ABSOLUTE.findall(result_text(call.get("result")))
        absolute = (p for p in named if p.startswith("/") or ":\\" in p)
        return hashed_ancestor(absolute, project_hash) or store_folder

    def fold_subagents(self, session_id: str, turns: list[TurnDraft]) -> None:
        folder = self.path.parent / session_id
        if not turns or not folder.is_dir():
            return
        for path in sorted(folder.glob("*.jsonl")):
            sub = self.load(path, ReadReport())
            if sub is None:
                continue
            started = parse_timestamp(sub.meta.get("startTime"))
            turn = turns[-1]
            if started is not None:
                turn = next((t for t in reversed(turns) if t.asked_at <= started), turns[0])
            for message in sub.messages.values():
                calls = message.get("toolCalls") if message.get("type") == "gemini" else None
                for call in calls if isinstance(calls, list) else []:
                    if isinstance(call, dict) and isinstance(call.get("name"), str):
                        failed = call.get("status") == "error"
                        error = result_text(call.get("result")) if failed else None
                        apply_tool(turn, call["name"], call.get("args"), error)
