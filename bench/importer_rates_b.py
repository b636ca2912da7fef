"""How fast each reader of Cline, Roo Code, Copilot CLI, Copilot Chat, Continue, Goose and Cursor
reads one large session of its format: a generated file of TURNS turns (each a prompt, two
assistant texts, a file read, an edit, a shell command and their results), timed over `read()`
alone, best of three. Prints one JSON line per format.

    python -m bench.importer_rates_b [--turns 20000]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from history.importers import FORMATS

ENV = (
    "<environment_details>\n# Current Working Directory (/home/dev/shop) Files\n"
    "</environment_details>"
)
REPLACE = (
    "<replace_in_file>\n<path>src/m{n}.ts</path>\n<diff>\n------- SEARCH\nexport {{}}\n"
    "=======\nexport const d{n} = 1;\n+++++++ REPLACE\n</diff>\n</replace_in_file>"
)
COMMAND = "<execute_command>\n<command>npm test</command>\n</execute_command>"
DONE = "<attempt_completion>\n<result>\nDone with D{n}.\n</result>\n</attempt_completion>"


def _ask(n: int) -> str:
    return f"Turn {n}: make the checkout total handle discount code D{n}"


def cline(folder: Path, turns: int) -> Path:
    task = folder / "saoudrizwan.claude-dev" / "tasks" / "1764838800000"
    task.mkdir(parents=True)
    messages: list[dict[str, Any]] = []
    for n in range(turns):
        opening = f"<task>\n{_ask(n)}\n</task>" if n == 0 else f"<feedback>\n{_ask(n)}\n</feedback>"
        messages += [
            {
                "role": "user",
                "content": [{"type": "text", "text": opening}, {"type": "text", "text": ENV}],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": f"Reading it.\n<read_file>\n<path>src/m{n}.ts</path>\n</read_file>",
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"[read_file for 'src/m{n}.ts'] Result:"},
                    {"type": "text", "text": "export {}"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": REPLACE.format(n=n),
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "[replace_in_file for 'x'] Result:"},
                    {"type": "text", "text": "saved"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": COMMAND,
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "[execute_command for 'npm test'] Result:"},
                    {"type": "text", "text": "ok"},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "text",
                        "text": DONE.format(n=n),
                    }
                ],
            },
        ]
    path = task / "api_conversation_history.json"
    path.write_text(json.dumps(messages, separators=(",", ":")), encoding="utf-8")
    return path


def copilot_cli(folder: Path, turns: int) -> Path:
    lines = [
        {"type": "session.start", "data": {"sessionId": "s", "context": {"cwd": "/home/dev/shop"}}}
    ]
    for n in range(turns):
        t = f"2026-12-05T10:00:{n % 60:02d}.000Z"
        lines += [
            {"type": "user.message", "data": {"content": _ask(n)}, "timestamp": t},
            {
                "type": "assistant.message",
                "data": {
                    "content": "Reading it.",
                    "toolRequests": [
                        {
                            "toolCallId": f"a{n}",
                            "name": "view",
                            "arguments": {"path": f"/home/dev/shop/src/m{n}.py"},
                        }
                    ],
                },
            },
            {
                "type": "tool.execution_complete",
                "data": {"toolCallId": f"a{n}", "success": True, "result": {"content": "x"}},
            },
            {
                "type": "assistant.message",
                "data": {
                    "content": "",
                    "toolRequests": [
                        {
                            "toolCallId": f"b{n}",
                            "name": "edit",
                            "arguments": {"path": f"src/m{n}.py", "new_str": f"d{n} = 1"},
                        },
                        {
                            "toolCallId": f"c{n}",
                            "name": "bash",
                            "arguments": {"command": "pytest -q"},
                        },
                    ],
                },
            },
            {
                "type": "tool.execution_complete",
                "data": {
                    "toolCallId": f"c{n}",
                    "success": False,
                    "result": {"content": "1 failed"},
                },
            },
            {"type": "assistant.message", "data": {"content": f"Done with D{n}."}},
        ]
    return _jsonl(folder / "s" / "events.jsonl", lines)


def copilot_chat(folder: Path, turns: int) -> Path:
    uri = {
        "$mid": 1,
        "fsPath": "/home/dev/shop/src/m.py",
        "path": "/home/dev/shop/src/m.py",
        "scheme": "file",
    }
    requests = [
        {
            "requestId": f"r{n}",
            "message": {"text": _ask(n)},
            "timestamp": 1764928800000 + n,
            "response": [
                {
                    "kind": "toolInvocationSerialized",
                    "toolId": "copilot_readFile",
                    "invocationMessage": {"value": "Reading [](file:///home/dev/shop/src/m.py)"},
                },
                {"value": "Reading it."},
                {"kind": "textEditGroup", "uri": uri, "edits": [[{"text": f"d{n} = 1"}]]},
                {
                    "kind": "toolInvocationSerialized",
                    "toolId": "run_in_terminal",
                    "toolSpecificData": {
                        "kind": "terminal",
                        "commandLine": {"original": "pytest -q"},
                    },
                },
                {"value": f"Done with D{n}."},
            ],
        }
        for n in range(turns)
    ]
    path = folder / "h" / "chatSessions" / "s.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps({"version": 3, "sessionId": "s", "requests": requests}), encoding="utf-8"
    )
    return path


def copilot_chat_log(folder: Path, turns: int) -> Path:
    """The same session as newer VS Code builds write it: a snapshot, then a push a request."""
    session = json.loads(copilot_chat(folder / "json", turns).read_text(encoding="utf-8"))
    requests = session.pop("requests")
    lines = [{"kind": 0, "v": {**session, "requests": []}}]
    lines += [{"kind": 2, "k": ["requests"], "v": [request]} for request in requests]
    return _jsonl(folder / "h" / "chatSessions" / "s.jsonl", lines)


def _call(name: str, args: dict[str, str]) -> dict[str, Any]:
    return {
        "id": name,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }


def continue_dev(folder: Path, turns: int) -> Path:
    history: list[dict[str, Any]] = []
    for n in range(turns):
        history += [
            {"message": {"role": "user", "content": _ask(n)}, "contextItems": []},
            {
                "message": {
                    "role": "assistant",
                    "content": "Reading it.",
                    "toolCalls": [_call("read_file", {"filepath": f"src/m{n}.py"})],
                },
                "contextItems": [],
            },
            {
                "message": {"role": "tool", "content": "x", "toolCallId": "read_file"},
                "contextItems": [],
            },
            {
                "message": {
                    "role": "assistant",
                    "content": "",
                    "toolCalls": [
                        _call(
                            "edit_existing_file",
                            {"filepath": f"src/m{n}.py", "changes": f"d{n} = 1"},
                        ),
                        _call("run_terminal_command", {"command": "pytest -q"}),
                    ],
                },
                "contextItems": [],
            },
            {"message": {"role": "assistant", "content": f"Done with D{n}."}, "contextItems": []},
        ]
    path = folder / "sessions" / "s.json"
    path.parent.mkdir(parents=True)
    session = {"sessionId": "s", "workspaceDirectory": "/home/dev/shop", "history": history}
    path.write_text(json.dumps(session, indent=2), encoding="utf-8")
    return path


def _goose_messages(turns: int) -> list[dict[str, Any]]:
    def request(name: str, args: dict[str, str]) -> dict[str, Any]:
        return {
            "type": "toolRequest",
            "id": name,
            "toolCall": {"status": "success", "value": {"name": name, "arguments": args}},
        }

    messages: list[dict[str, Any]] = []
    for n in range(turns):
        messages += [
            {
                "role": "user",
                "created": 1764950000 + n,
                "content": [{"type": "text", "text": _ask(n)}],
            },
            {
                "role": "assistant",
                "created": 1764950000 + n,
                "content": [
                    {"type": "text", "text": "Reading it."},
                    request("developer__text_editor", {"command": "view", "path": f"src/m{n}.py"}),
                ],
            },
            {
                "role": "user",
                "created": 1764950000 + n,
                "content": [
                    {
                        "type": "toolResponse",
                        "id": "x",
                        "toolResult": {"status": "success", "value": []},
                    }
                ],
            },
            {
                "role": "assistant",
                "created": 1764950000 + n,
                "content": [
                    request(
                        "developer__text_editor",
                        {"command": "write", "path": f"src/m{n}.py", "file_text": f"d{n} = 1"},
                    ),
                    request("developer__shell", {"command": "pytest -q"}),
                ],
            },
            {
                "role": "user",
                "created": 1764950000 + n,
                "content": [
                    {
                        "type": "toolResponse",
                        "id": "y",
                        "toolResult": {"status": "error", "error": "1 failed"},
                    }
                ],
            },
            {
                "role": "assistant",
                "created": 1764950000 + n,
                "content": [{"type": "text", "text": f"Done with D{n}."}],
            },
        ]
    return messages


def goose(folder: Path, turns: int) -> Path:
    return _jsonl(folder / "g.jsonl", [{"working_dir": "/home/dev/shop"}, *_goose_messages(turns)])


def goose_db(folder: Path, turns: int) -> Path:
    path = folder / "sessions.db"
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE sessions (id TEXT PRIMARY KEY, working_dir TEXT)")
        db.execute(
            "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, "
            "content_json TEXT, created_timestamp INTEGER)"
        )
        db.execute("INSERT INTO sessions VALUES ('s', '/home/dev/shop')")
        db.executemany(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp) "
            "VALUES ('s', ?, ?, ?)",
            [(m["role"], json.dumps(m["content"]), m["created"]) for m in _goose_messages(turns)],
        )
    return path


def cursor(folder: Path, turns: int) -> Path:
    lines: list[dict[str, Any]] = []
    for n in range(turns):
        lines += [
            {
                "role": "user",
                "message": {
                    "content": [{"type": "text", "text": f"<user_query>\n{_ask(n)}\n</user_query>"}]
                },
            },
            {
                "role": "assistant",
                "message": {
                    "content": [
                        {"type": "text", "text": "Reading it."},
                        {"type": "tool_use", "name": "Read", "input": {"path": f"src/m{n}.py"}},
                    ]
                },
            },
            {"role": "user", "message": {"content": [{"type": "tool_result", "content": "x"}]}},
            {
                "role": "assistant",
                "message": {
                    "content": [
                        {
                            "type": "tool_use",
                            "name": "StrReplace",
                            "input": {"path": f"src/m{n}.py", "new_string": f"d{n} = 1"},
                        },
                        {"type": "tool_use", "name": "Shell", "input": {"command": "pytest -q"}},
                        {"type": "text", "text": f"Done with D{n}."},
                    ]
                },
            },
        ]
    return _jsonl(folder / "projects" / "home-dev-shop" / "agent-transcripts" / "c.jsonl", lines)


def cursor_ide(folder: Path, turns: int) -> Path:
    path = folder / "User" / "globalStorage" / "state.vscdb"
    path.parent.mkdir(parents=True)
    bubbles: list[tuple[str, dict[str, Any]]] = []
    for n in range(turns):
        bubbles += [
            (f"u{n}", {"type": 1, "text": _ask(n)}),
            (
                f"r{n}",
                {
                    "type": 2,
                    "text": "",
                    "toolFormerData": {
                        "name": "read_file",
                        "rawArgs": json.dumps({"target_file": f"src/m{n}.py"}),
                    },
                },
            ),
            (
                f"e{n}",
                {
                    "type": 2,
                    "text": "",
                    "toolFormerData": {
                        "name": "edit_file",
                        "rawArgs": json.dumps(
                            {"target_file": f"src/m{n}.py", "code_edit": f"d{n} = 1"}
                        ),
                    },
                },
            ),
            (f"a{n}", {"type": 2, "text": f"Done with D{n}."}),
        ]
    composer = {
        "composerId": "c",
        "fullConversationHeadersOnly": [{"bubbleId": b} for b, _ in bubbles],
    }
    with closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        rows = [("composerData:c", json.dumps(composer))]
        rows += [(f"bubbleId:c:{b}", json.dumps(value)) for b, value in bubbles]
        db.executemany("INSERT INTO cursorDiskKV VALUES (?, ?)", rows)
    return path


def _jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


WRITERS: dict[str, tuple[str, Callable[[Path, int], Path]]] = {
    "cline": ("cline", cline),
    "copilot-cli": ("copilot-cli", copilot_cli),
    "copilot-chat": ("copilot-chat", copilot_chat),
    "copilot-chat (operation log)": ("copilot-chat", copilot_chat_log),
    "continue": ("continue", continue_dev),
    "goose (jsonl)": ("goose", goose),
    "goose (sessions.db)": ("goose", goose_db),
    "cursor (agent transcript)": ("cursor", cursor),
    "cursor (state.vscdb)": ("cursor", cursor_ide),
}


def rate(label: str, turns: int) -> dict[str, Any]:
    fmt_name, write = WRITERS[label]
    fmt = FORMATS[fmt_name]
    with tempfile.TemporaryDirectory() as folder:
        path = write(Path(folder), turns)
        size = path.stat().st_size
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            report = fmt.read(path)
            best = min(best, time.perf_counter() - started)
    assert len(report.turns) == turns and not report.problems, (label, report.problems[:2])
    return {
        "format": label,
        "turns": turns,
        "file_mb": round(size / 1e6, 1),
        "seconds": round(best, 3),
        "turns_per_s": round(turns / best),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=20_000)
    parser.add_argument("--only", choices=sorted(WRITERS), action="append")
    args = parser.parse_args()
    for label in args.only or WRITERS:
        print(json.dumps(rate(label, args.turns)), flush=True)


if __name__ == "__main__":
    main()
