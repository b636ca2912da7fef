"""Whatever a file of Cline, Roo Code, Copilot CLI, Copilot Chat, Continue, Goose or Cursor
holds, its reader returns a report: no exception, and turns that keep every reader's invariants."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from history.importers import FORMATS
from tests.helpers.importing import check_invariants

# fmt: off
WORDS = st.sampled_from([
    "role", "user", "assistant", "tool", "content", "text", "type", "tool_use", "tool_result",
    "name", "input", "path", "command", "message", "data", "toolRequests", "toolCallId",
    "arguments", "session.start", "user.message", "assistant.message", "tool.execution_start",
    "tool.execution_complete", "success", "result", "requests", "response", "kind", "value",
    "toolInvocationSerialized", "textEditGroup", "uri", "toolId", "history", "toolCalls",
    "function", "toolCallStates", "status", "errored", "toolRequest", "toolCall", "toolResponse",
    "toolResult", "created", "working_dir", "timestamp", "ts", "<task>\nx\n</task>",
    "<feedback>\ny\n</feedback>", "<read_file>\n<path>a.py</path>\n</read_file>", "execute_command",
    "<user_query>\nq\n</user_query>", "file:///c%3A/x/a.py", "bash", "view", "edit",
    "developer__shell", "read_file", "write_to_file", "diff", "=======", "2026-01-01T00:00:00Z",
])
# fmt: on
VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | WORDS
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(WORDS, inner, max_size=5),
    max_leaves=24,
)
PLACES = {
    "cline": "tasks/1764838800000/api_conversation_history.json",
    "roo-code": "tasks/1764838800000/api_conversation_history.json",
    "copilot-chat": "h/chatSessions/s.json",
    "continue": "sessions/s.json",
    "copilot-cli": "s/events.jsonl",
    "goose": "sessions/g.jsonl",
    "cursor": "projects/x/agent-transcripts/c.jsonl",
}


def written(folder: Path, fmt: str, document: Any, lines: list[Any]) -> Path:
    path = folder / PLACES[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    else:
        path.write_text(json.dumps(document), encoding="utf-8")
        (path.parent / "ui_messages.json").write_text(json.dumps(lines), encoding="utf-8")
    return path


@given(VALUES, st.lists(VALUES, max_size=12))
def test_any_document_or_lines_are_read_without_raising(document: Any, lines: list[Any]) -> None:
    for fmt in PLACES:
        with tempfile.TemporaryDirectory() as folder:
            report = FORMATS[fmt].read(written(Path(folder), fmt, document, lines))
            assert report.skipped <= report.lines
            check_invariants(report.turns)


@given(st.lists(VALUES, max_size=16))
def test_any_list_of_messages_is_read_without_raising(messages: list[Any]) -> None:
    wrapped = {"history": messages, "requests": messages}
    for fmt in ("cline", "copilot-chat", "continue"):
        with tempfile.TemporaryDirectory() as folder:
            document = messages if fmt == "cline" else wrapped
            check_invariants(FORMATS[fmt].read(written(Path(folder), fmt, document, [])).turns)


KEYS = st.lists(st.sampled_from(["requests", "response", "v", 0, 1, 2, -1, 9]), max_size=4)
ENTRIES = st.fixed_dictionaries(
    {"kind": st.integers(0, 4), "k": KEYS | VALUES, "v": VALUES}, optional={"i": st.integers(-2, 3)}
)


@given(st.lists(ENTRIES | VALUES, max_size=12))
def test_any_operation_log_is_replayed_without_raising(entries: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "h" / "chatSessions" / "s.jsonl"
        log.parent.mkdir(parents=True)
        start = {"kind": 0, "v": {"sessionId": "s", "requests": [{"message": {"text": "q"}}]}}
        log.write_text("\n".join(json.dumps(e) for e in [start, *entries]), encoding="utf-8")
        report = FORMATS["copilot-chat"].read(log)
        assert report.skipped <= report.lines
        check_invariants(report.turns)


def test_a_log_that_pushes_more_requests_than_it_has_lines_skips_no_more_than_it_read(
    tmp_path: Path,
) -> None:
    """One line of a Copilot Chat operation log can add many requests: five without a prompt,
    pushed by one line, were counted as five lines skipped of the two the file has."""
    log = tmp_path / "h" / "chatSessions" / "s.jsonl"
    log.parent.mkdir(parents=True)
    start = {"kind": 0, "v": {"sessionId": "s", "requests": []}}
    push = {"kind": 2, "k": ["requests"], "v": [{} for _ in range(5)]}
    log.write_text(f"{json.dumps(start)}\n{json.dumps(push)}", encoding="utf-8")
    report = FORMATS["copilot-chat"].read(log)
    assert report.turns == [] and report.skipped == 5
    assert report.skipped <= report.lines
