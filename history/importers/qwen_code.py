"""Qwen Code sessions: `~/.qwen/projects/<cwd slug>/chats/<sessionId>.jsonl`.

Qwen Code is a fork of Gemini CLI; builds before its own store wrote Gemini's layout under
`~/.qwen/tmp/<hash>/chats/`, and those files are read as Gemini CLI's. The current store appends
one record a line: `{uuid, parentUuid, sessionId, timestamp, type, cwd, message: {role, parts}}`
where `type` is `user`, `assistant`, `tool_result` or `system`, and parts are Gemini parts
(`text`, `functionCall`, `functionResponse`; `thought` parts are not the answer). A rewind starts
a new branch from an earlier record, so the conversation is the chain of `parentUuid` links that
ends at the last record; records on abandoned branches are left out. A record whose parent is not
in the file (a compression restarts the chain) continues from the record before it.

The project is each record's `cwd` (without one: the store's folder for the project,
`projects/<cwd slug>`). A `tool_result` record whose `toolCallResult.status` is
`error`, or whose function response carries an `error`, is a failed tool result. Sub-agents
(`task`) keep no file of their own here: only the launching call is seen.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from history.importers.base import (
    Places,
    ReadReport,
    TurnDraft,
    file_time,
    open_lines,
    parse_timestamp,
)
from history.importers.gemini import Gemini, SessionReader
from history.importers.gemini_tools import apply_tool, part_texts, result_text

RECORD_TYPES = frozenset({"user", "assistant", "tool_result", "system"})


class QwenCode(Gemini):
    name = "qwen-code"
    home_folder = ".qwen"
    home_variable = None

    def candidate_roots(self, places: Places) -> list[Path]:
        legacy = super().candidate_roots(places)[0]
        return [legacy.parent / "projects", legacy]

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            yield root
        elif root.is_dir():
            chats = (p for p in root.rglob("*.jsonl") if p.parent.name == "chats" or self.claims(p))
            found = {*super().discover(root), *chats}
            yield from sorted(path for path in found if path.is_file())

    def claims(self, path: Path) -> bool:
        """Its own records (a `uuid` and Gemini `parts`), or a Gemini-layout file under
        `.qwen` (asked before Gemini CLI, which would claim that file too)."""
        if path.name.startswith("session-"):
            return self.home_folder in path.parts and super().claims(path)
        if path.suffix != ".jsonl":
            return False
        for line in islice(open_lines(path, ReadReport()), 5):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            message = record.get("message") if isinstance(record, dict) else None
            if isinstance(message, dict) and "parts" in message and "uuid" in record:
                return True
        return False

    def read(self, path: Path) -> ReadReport:
        if path.name.startswith("session-"):
            return SessionReader(path, self.name).run()
        return _ChainReader(path).run()


class _ChainReader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.report = ReadReport()
        self.turns: list[TurnDraft] = []

    def run(self) -> ReadReport:
        for record in self.chain(self.records()):
            kind = record.get("type")
            message = record.get("message")
            parts = message.get("parts") if isinstance(message, dict) else None
            parts = (
                [part for part in parts if isinstance(part, dict)]
                if isinstance(parts, list)
                else []
            )
            if kind == "user":
                self.prompt(record, parts)
            elif kind == "assistant" and self.turns:
                self.answer(parts, self.turns[-1])
            elif kind == "tool_result" and self.turns:
                self.result(record, parts, self.turns[-1])
        self.report.turns = [turn.finish() for turn in self.turns]
        return self.report

    def records(self) -> list[dict[str, Any]]:
        records, bad, unknown = [], 0, 0
        for line in open_lines(self.path, self.report):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            if not isinstance(record, dict) or not isinstance(record.get("uuid"), str):
                bad += 1
            elif record.get("type") not in RECORD_TYPES:
                unknown += 1
            else:
                records.append(record)
        if bad:
            self.report.problems.append(f"{bad} line(s) in {self.path.name} were not records.")
        if unknown:
            self.report.problems.append(
                f"{unknown} line(s) in {self.path.name} had a type this reader does not know."
            )
        self.report.skipped += bad + unknown
        return records

    @staticmethod
    def chain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The records on the branch that ends at the last record, oldest first."""
        by_id = {record["uuid"]: number for number, record in enumerate(records)}
        kept: list[dict[str, Any]] = []
        at = len(records) - 1
        seen: set[int] = set()
        while at >= 0 and at not in seen:
            seen.add(at)
            kept.append(records[at])
            parent = records[at].get("parentUuid")
            at = by_id[parent] if isinstance(parent, str) and parent in by_id else at - 1
            if at in seen:  # a loop, or a parent after its child: stop rather than spin
                break
        return kept[::-1]

    def prompt(self, record: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        asked = "\n\n".join(text.strip() for text in part_texts(parts) if text.strip())
        if not asked:
            return
        session = str(record.get("sessionId") or self.path.stem)
        self.turns.append(
            TurnDraft(
                turn_id=f"qwen-code:{session}:{record['uuid']}",
                session_id=session,
                project=str(record.get("cwd") or self.path.parent.parent),
                asked=asked,
                asked_at=parse_timestamp(record.get("timestamp")) or file_time(self.path),
            )
        )

    @staticmethod
    def answer(parts: list[dict[str, Any]], turn: TurnDraft) -> None:
        for text in part_texts(parts):
            turn.say(text)
        for part in parts:
            call = part.get("functionCall")
            if isinstance(call, dict) and isinstance(call.get("name"), str):
                apply_tool(turn, call["name"], call.get("args"), None)

    @staticmethod
    def result(record: dict[str, Any], parts: list[dict[str, Any]], turn: TurnDraft) -> None:
        outcome = record.get("toolCallResult")
        status = outcome.get("status") if isinstance(outcome, dict) else None
        errors = [
            part
            for part in parts
            if isinstance(part.get("functionResponse"), dict)
            and isinstance(part["functionResponse"].get("response"), dict)
            and "error" in part["functionResponse"]["response"]
        ]
        if status == "error" or errors:
            shown = outcome.get("error") if isinstance(outcome, dict) else None
            turn.failed(result_text(errors or parts) or str(shown or "a tool failed"))
