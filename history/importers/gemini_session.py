"""A Gemini CLI session's records applied in order, a half-written session object salvaged,
and the project a session worked in, from `projects.json` or from its `projectHash`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any


def path_hash(path: str) -> str:
    return hashlib.sha256(path.encode("utf-8")).hexdigest()


def hashed_ancestor(paths: Iterable[str], project_hash: str) -> str:
    """The ancestor of one of `paths` whose SHA-256 is `project_hash`, or ""."""
    seen: set[str] = set()
    for text in paths:
        pure = PureWindowsPath(text) if re.match(r"[A-Za-z]:\\", text) else PurePosixPath(text)
        for candidate in (pure, *pure.parents):
            name = str(candidate).rstrip(".")
            if name in seen:
                break
            seen.add(name)
            if path_hash(name) == project_hash:
                return name
    return ""


def registered_project(project_dir: Path, project_hash: str) -> str:
    """The path `projects.json` (`{"projects": {path: slug}}`, beside `tmp/`) maps to this
    project folder's slug, or whose hash is `project_hash`."""
    if project_dir.parent.name != "tmp":
        return ""
    try:
        data = json.loads((project_dir.parent.parent / "projects.json").read_text("utf-8"))
    except (OSError, ValueError):
        return ""
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return ""
    for path, slug in projects.items():
        if slug == project_dir.name or (project_hash and path_hash(path) == project_hash):
            return str(path)
    return ""


def salvage(text: str) -> dict[str, Any] | None:
    """A half-written session object: its `sessionId`, `projectHash`, `startTime` and each
    whole message before the cut, or None when it is not a session at all."""
    meta = {
        key: found.group(1)
        for key in ("sessionId", "projectHash", "startTime")
        if (found := re.search(rf'"{key}"\s*:\s*"([^"]*)"', text))
    }
    start = re.search(r'"messages"\s*:\s*\[', text)
    if "sessionId" not in meta or start is None:
        return None
    decoder, messages, at = json.JSONDecoder(), [], start.end()
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        try:
            message, at = decoder.raw_decode(text, at)
        except ValueError:
            break
        messages.append(message)
    return {**meta, "messages": messages}


class Session:
    """A session's metadata and messages after its records are applied in order."""

    def __init__(self) -> None:
        self.meta: dict[str, Any] = {}
        self.messages: dict[str, dict[str, Any]] = {}

    def apply(self, record: dict[str, Any]) -> bool:
        """Apply one record; False when it is none of the kinds a session file holds."""
        if isinstance(record.get("$rewindTo"), str):
            ids = list(self.messages)
            if record["$rewindTo"] in self.messages:
                cut = ids.index(record["$rewindTo"])
                self.messages = {key: self.messages[key] for key in ids[:cut]}
        elif isinstance(record.get("$set"), dict):
            changes = dict(record["$set"])
            if isinstance(changes.get("messages"), list):
                self.messages = {}
                self.add_all(changes.pop("messages"))
            self.meta.update(changes)
        elif isinstance(record.get("id"), str) and isinstance(record.get("type"), str):
            self.messages[record["id"]] = record
        elif "sessionId" in record:
            messages = record.get("messages")
            self.meta.update({k: v for k, v in record.items() if k != "messages"})
            if isinstance(messages, list):
                self.add_all(messages)
        else:
            return False
        return True

    def add_all(self, messages: list[Any]) -> None:
        for message in messages:
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                self.messages[message["id"]] = message
