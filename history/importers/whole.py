"""A whole turn's text: every assistant text in order, and a log of the work the turn did.

The answer is every text the assistant wrote between one prompt and the next, joined by a blank
line. When it is longer than a turn's text may be (history.limits.MAX_TEXT_CHARS), the first
and the last texts are kept whole (each within half the bound) and the texts between them are
kept from the start until the bound, where a marker says how much was left out.

The work is one entry a line, in the order the turn did it, in a form `edits` reads back:

    $ pytest -q tests/test_login.py          a shell command line the turn ran
    ! FAILED tests/test_login.py::test_hash  the first lines of a tool result that failed
    ~ src/auth/login.py                      a file the turn edited, then the lines it removed
    - def hash_password(password):           (where the agent's log says) and those it added:
    + def hash_password(password: str) -> str:

Bounds: a command at most COMMAND_CHARS (its lines joined), a failure its first FAILURE_LINES
non-blank lines of at most LINE_CHARS each, an edit its first EDIT_LINES removed and EDIT_LINES
added lines of at most LINE_CHARS each; the whole log at most WORK_CHARS, later entries dropped
with a last line that says how many. A failure logged twice in a row (one exec reported by two
records) is kept once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from history.limits import MAX_TEXT_CHARS

COMMAND_CHARS = 500
FAILURE_LINES = 5
# An edit's first lines say what it did; the rest mostly repeats the code around it, and every
# line is searched: with 40 lines of each, search found the turn asked for less often than with
# no work at all on two development sets (bench/RESULTS.md, 4-word queries); with 10, no set lost.
EDIT_LINES = 10
LINE_CHARS = 200
WORK_CHARS = 16_000

RAN, FAILED, EDITED, REMOVED, ADDED = "$ ", "! ", "~ ", "- ", "+ "
_LEFT_OUT = "\n\n[… {} characters of the answer left out here …]\n\n"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def join_answers(texts: Iterable[str], limit: int = MAX_TEXT_CHARS) -> str:
    """Every non-blank text in order, a blank line between them, within `limit` characters."""
    parts = [text.strip() for text in texts if text and text.strip()]
    whole = "\n\n".join(parts)
    if len(whole) <= limit:
        return whole
    half = limit // 2 - len(_LEFT_OUT) - 16
    first, last = _clip(parts[0], half), _clip(parts[-1], half) if len(parts) > 1 else ""
    room = limit - len(first) - len(last) - len(_LEFT_OUT) - 16
    middle: list[str] = []
    for text in parts[1:-1]:
        if len(text) + 2 > room:
            middle.append(text[: max(room, 0)])
            break
        middle.append(text)
        room -= len(text) + 2
    kept = "\n\n".join([first, *middle]).rstrip()
    left_out = len(whole) - len(kept) - len(last)
    return (kept + _LEFT_OUT.format(f"{max(left_out, 1):,}") + last).strip()


def _lines(text: str) -> Iterator[str]:
    for line in text.splitlines():
        if line.strip():
            yield line.rstrip()


@dataclass
class WorkLog:
    """The work of a turn being read: commands, failures and edits, as they happen."""

    entries: list[str] = field(default_factory=list)

    def ran(self, command: str) -> None:
        line = " ".join(part.strip() for part in command.strip().splitlines() if part.strip())
        if line:
            self.entries.append(RAN + _clip(line, COMMAND_CHARS))

    def failed(self, output: str) -> None:
        lines = [_clip(line.strip(), LINE_CHARS) for line in _lines(output)][:FAILURE_LINES]
        entry = "\n".join(FAILED + line for line in lines)
        # One failure reported twice in a row (Codex logs an exec's end and its output) is one.
        if entry and not (self.entries and self.entries[-1] == entry):
            self.entries.append(entry)

    def edit(
        self, path: str, added: str | Sequence[str] = (), removed: str | Sequence[str] = ()
    ) -> None:
        """`added`: the text the edit wrote (a new file's content, a replacement), or its lines;
        `removed`: the text it replaced, where the agent's log says."""
        if not path.strip():
            return
        shown = [*_shown(REMOVED, removed), *_shown(ADDED, added)]
        self.entries.append("\n".join([EDITED + path.strip(), *shown]))

    def text(self) -> str:
        kept: list[str] = []
        size = 0
        for number, entry in enumerate(self.entries):
            if size + len(entry) + 1 > WORK_CHARS:
                kept.append(f"[… {len(self.entries) - number} more entries left out]")
                break
            kept.append(entry)
            size += len(entry) + 1
        return "\n".join(kept)


def _shown(marker: str, text: str | Sequence[str]) -> list[str]:
    lines = list(_lines(text)) if isinstance(text, str) else [a for a in text if a.strip()]
    shown = [marker + _clip(line, LINE_CHARS) for line in lines[:EDIT_LINES]]
    if len(lines) > EDIT_LINES:
        shown.append(f"{marker}[… {len(lines) - EDIT_LINES} more lines]")
    return shown


def patch_changes(patch: str) -> list[tuple[str, list[str], list[str]]]:
    """Each file a patch writes to, with the lines it adds and those it removes: Codex's
    `*** Add File:` / `*** Update File:` (`*** Move to:` renames) and unified diffs
    (`+++ b/path`). A deleted file's lines belong to no file written."""
    found: list[tuple[str, list[str], list[str]]] = []
    current: tuple[str, list[str], list[str]] | None = None
    for line in patch.splitlines():
        header = next((h for h in _PATCH_HEADERS if line.startswith(h)), None)
        if header is not None:
            path = line[len(header) :].strip()
            if header == "+++ ":
                path = path.split("\t")[0].removeprefix("b/")
            if header == "*** Move to: " and current is not None:
                found[-1] = current = (path, current[1], current[2])
            elif header == "*** Delete File: " or path in ("", "/dev/null"):
                current = None
            else:
                current = (path, [], [])
                found.append(current)
        elif current is not None and line.startswith("+") and not line.startswith("+++"):
            current[1].append(line[1:])
        elif current is not None and line.startswith("-") and not line.startswith("---"):
            current[2].append(line[1:])
    return found


_PATCH_HEADERS = (
    "*** Add File: ",
    "*** Update File: ",
    "*** Move to: ",
    "*** Delete File: ",
    "+++ ",
)


@dataclass(frozen=True)
class Edit:
    path: str
    added: tuple[str, ...]
    removed: tuple[str, ...] = ()


def edits(work: str) -> list[Edit]:
    """The edits a work log records, in order: what `WorkLog.edit` wrote, read back."""
    found: list[Edit] = []
    path: str | None = None
    added: list[str] = []
    removed: list[str] = []
    for line in work.splitlines():
        if path is not None and line.startswith(ADDED):
            added.append(line[len(ADDED) :])
        elif path is not None and line.startswith(REMOVED):
            removed.append(line[len(REMOVED) :])
        else:
            if path is not None:
                found.append(Edit(path, tuple(added), tuple(removed)))
            path, added, removed = None, [], []
            if line.startswith(EDITED):
                path = line[len(EDITED) :]
    if path is not None:
        found.append(Edit(path, tuple(added), tuple(removed)))
    return found
