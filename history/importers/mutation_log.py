"""VS Code's chat session operation log (`chatSessions/<sessionId>.jsonl`, newer builds): the
session as it stands, replayed from its lines.

The first line is `{kind: 0, v: <the whole session>}`; each later line changes it: kind 1 sets
the value at the key path `k` to `v`, kind 2 appends the items `v` to the array at `k` (first
cutting it to `i` items when `i` is given), kind 3 deletes the value at `k`, and a kind 0 again
replaces the whole session (a compaction). A line that does not apply is skipped and counted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from history.importers.base import ReadReport, json_objects

SNAPSHOT, SET, PUSH, DELETE = 0, 1, 2, 3


def _walk(value: Any, keys: list[Any]) -> Any:
    for key in keys:
        if isinstance(value, dict) and isinstance(key, str):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def _apply(state: dict[str, Any], entry: dict[str, Any]) -> bool:
    """`entry` applied to `state`; False when it does not fit it."""
    kind, keys, value = entry.get("kind"), entry.get("k"), entry.get("v")
    if not isinstance(keys, list) or not keys:
        return False
    if kind == PUSH:
        target = _walk(state, keys)
        if not isinstance(target, list) or not isinstance(value, list):
            return False
        cut = entry.get("i")
        if isinstance(cut, int) and not isinstance(cut, bool) and cut >= 0:
            del target[cut:]
        target.extend(value)
        return True
    parent, last = _walk(state, keys[:-1]), keys[-1]
    if isinstance(parent, dict) and isinstance(last, str):
        if kind == SET:
            parent[last] = value
        elif kind == DELETE:
            parent.pop(last, None)
        return kind in (SET, DELETE)
    if isinstance(parent, list) and isinstance(last, int) and 0 <= last <= len(parent):
        if kind == SET and last == len(parent):
            parent.append(value)
        elif kind == SET:
            parent[last] = value
        elif kind == DELETE and last < len(parent):
            del parent[last]
        return kind in (SET, DELETE)
    return False


def replay(path: Path, report: ReadReport) -> dict[str, Any] | None:
    """The session the log at `path` describes (None when it holds no snapshot)."""
    state: dict[str, Any] | None = None
    misfits = 0
    for entry in json_objects(path, report):
        if entry.get("kind") == SNAPSHOT and isinstance(entry.get("v"), dict):
            state = entry["v"]
        elif state is None or not _apply(state, entry):
            misfits += 1
    if misfits:
        report.skipped += misfits
        report.problems.append(f"{misfits} line(s) in {path.name} did not apply to the session.")
    return state
