"""What a Cline (Roo Code, Kilo Code) task folder says beside its conversation: the panel's
prompt times (`ui_messages.json`), the folder the task worked in, and Roo Code's sub-tasks.

A Roo Code task that `new_task` launched is a task folder of its own whose `history_item.json`
names its `parentTaskId`; the parent's lists it in `childIds`, in launch order, and the result
the parent is sent back says `Subtask <id> completed`. A sub-task's tools, files, taint and work
count toward the parent's turn that launched it; it is not read as a session of its own.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from history.importers.base import ImportedTurn, TurnDraft
from history.importers.json_files import load

WORKDIR = re.compile(r"# Current (?:Working|Workspace) Directory \((.+?)\) Files")
SUBTASK_DONE = re.compile(r"Subtask ([\w.-]{1,80}) completed")


def epoch_ms(value: object) -> datetime | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        return datetime.fromtimestamp(float(value) / 1000, UTC)
    except (ValueError, OverflowError, OSError):
        return None


def history_item(folder: Path) -> dict[str, Any]:
    item = load(folder / "history_item.json").value
    return item if isinstance(item, dict) else {}


def is_subtask(folder: Path) -> bool:
    return bool(history_item(folder).get("parentTaskId"))


def prompt_times(folder: Path) -> list[datetime]:
    """The times of the task and of each feedback, in order, as the panel recorded them."""
    panel = load(folder / "ui_messages.json")
    items = panel.value if panel.complete else panel.entries
    times = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and item.get("say") in ("task", "user_feedback"):
            when = epoch_ms(item.get("ts"))
            if when is not None:
                times.append(when)
    return times


def project(folder: Path, first_texts: list[str]) -> str:
    """The environment details' working directory, else the task's recorded workspace."""
    for text in first_texts:
        found = WORKDIR.search(text)
        if found:
            return found.group(1).strip()
    workspace = history_item(folder).get("workspace")
    if isinstance(workspace, str):
        return workspace
    index = load(folder.parent.parent / "state" / "taskHistory.json").value
    for entry in index if isinstance(index, list) else []:
        if isinstance(entry, dict) and str(entry.get("id")) == folder.name:
            return str(entry.get("cwdOnTaskInitialization") or "")
    return ""


def child_ids(folder: Path) -> list[str]:
    children = history_item(folder).get("childIds")
    return [c for c in children if isinstance(c, str)] if isinstance(children, list) else []


def fold(turn: TurnDraft, child: list[ImportedTurn]) -> None:
    """A sub-task's turns into the turn that launched it (never its answers)."""
    for done in child:
        for path in done.files:
            turn.touch(path, edit=path in done.edited)
        for name in done.tools:
            turn.use_tool(name)
        turn.tainted = turn.tainted or done.tainted
        if done.work:
            turn.work.entries.append(done.work)
