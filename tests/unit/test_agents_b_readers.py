"""The readers of Cline, Roo Code, Kilo Code, Copilot CLI, Copilot Chat, Continue, Goose and Cursor:
what a turn holds on each agent's own files, what is not a prompt, damaged files, and where
each agent's store is found on Linux, macOS and Windows."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from history.importers import FORMATS, ImportedTurn, ReadReport
from history.importers.base import Places
from history.importers.editors import uri_path
from tests.helpers.importing import (
    CHAT_STORAGE,
    CLINE,
    CONTINUE,
    COPILOT_CLI,
    CURSOR,
    GOOSE,
    ROO,
    SINGLE_FILES,
    copy_beside,
    operation_log,
)


def only_file(fmt: str, root: Path) -> Path:
    [path] = FORMATS[fmt].discover(root)
    return path


def turns(fmt: str, root: Path) -> list[ImportedTurn]:
    report = FORMATS[fmt].read(only_file(fmt, root))
    assert report.problems == [] and report.skipped == 0
    return report.turns


@dataclass(frozen=True)
class Expected:
    asked: str
    answers: tuple[str, ...]  # every assistant text, in order
    files: tuple[str, ...]
    edited: tuple[str, ...]
    tools: tuple[str, ...]
    tainted: bool
    work: tuple[str, ...] = ()  # lines the work log holds


def check(turn: ImportedTurn, expected: Expected, project: str) -> None:
    assert turn.asked == expected.asked
    assert turn.answered == "\n\n".join(expected.answers)
    assert (turn.files, turn.edited) == (expected.files, expected.edited)
    assert set(expected.tools) <= set(turn.tools)
    assert (turn.tainted, turn.project) == (expected.tainted, project)
    assert all(line in turn.work.splitlines() for line in expected.work), turn.work


def test_cline_task_turns() -> None:
    first, second = turns("cline", CLINE.parent)
    check(
        first,
        Expected(
            "Add a discount code field to the checkout form",
            (
                "I'll start by reading the checkout form.",
                "Now I'll add the field.",
                "The test expects a label; I'll add it.",
                "The checkout form now takes a discount code.",
            ),
            ("src/checkout.ts", "src/discount.ts"),
            ("src/checkout.ts", "src/discount.ts"),
            ("read_file", "replace_in_file", "execute_command", "write_to_file"),
            False,
            (
                "$ npm test -- checkout",
                "! FAIL src/checkout.test.ts",
                "+ export function checkout(discountCode?: string) {}",
                '+ export const DISCOUNT_LABEL = "Discount code";',
            ),
        ),
        "/home/dev/shop",
    )
    # Six tool results came back as user text: none is a prompt, not even the file whose text
    # holds a <feedback> tag. The person's feedback to the completion is the second prompt.
    check(
        second,
        Expected(
            "Also check the coupon rules on the vendor docs page",
            ("I'll open the vendor's docs.", "Coupons are case-insensitive, per the vendor docs."),
            (),
            (),
            ("browser_action",),
            True,
        ),
        "/home/dev/shop",
    )
    assert [t.turn_id for t in (first, second)] == [
        "cline:1764838800000:0",
        "cline:1764838800000:1",
    ]
    # The panel's times: the task, then the feedback ten minutes later.
    assert (second.asked_at - first.asked_at).total_seconds() == 600
    assert "<thinking>" not in first.answered and "<read_file>" not in first.answered


def test_roo_code_native_tool_calls_and_kilo_code_reads_the_same_layout() -> None:
    [turn] = turns("roo-code", ROO.parent)
    check(
        turn,
        Expected(
            "Why does the menu page load slowly?",
            (
                "Let me look at the menu view.",
                "The query runs once per item; I'll batch it.",
                "Batched the menu query; the page now loads in one round trip.",
            ),
            ("menu.py",),
            ("menu.py",),
            ("read_file", "apply_diff", "execute_command"),
            True,  # curl through execute_command
            ("+ fetch_all(items)", "! curl: (6) Could not resolve host: status.example"),
        ),
        "/home/dev/cafe",
    )
    assert turn.turn_id == "roo-code:0b5e7d3c-2f1a-4c8e-9d6b-7a1e2c3d4f50:0"
    [kilo] = FORMATS["kilo-code"].read(ROO / "api_conversation_history.json").turns
    assert kilo.turn_id.startswith("kilo-code:") and kilo.answered == turn.answered


def test_copilot_cli_events() -> None:
    fix, changelog = turns("copilot-cli", COPILOT_CLI.parent)
    check(
        fix,
        Expected(
            "Fix the failing cart test",  # the <reminder> the CLI wraps around it is not asked
            (
                "I'll look at the cart module first.",
                "The total is rounded to whole units; fixing it.",
                "Fixed: cart totals now round to cents.",
            ),
            ("src/cart.py",),
            ("src/cart.py",),
            ("view", "bash", "str_replace_editor"),
            False,
            (
                "$ pytest -q tests/test_cart.py",
                "! FAILED tests/test_cart.py::test_total - assert 9 == 9.5",
                "+ return round(sum(items), 2)",
            ),
        ),
        "/home/dev/shop",
    )
    # The sub-agent's web_fetch taints the turn that launched it; its notes are not the answer.
    check(
        changelog,
        Expected(
            "Check the payment provider's changelog for breaking changes",
            ("No breaking changes since version 2.3.",),
            (),
            (),
            ("task", "web_fetch"),
            True,
        ),
        "/home/dev/shop",
    )
    assert fix.tools.count("view") == 1  # the request and its execution are one call


def test_copilot_chat_requests() -> None:
    where, raise_rate, rounding = turns("copilot-chat", CHAT_STORAGE)
    project = "/home/dev/shop"  # workspace.json's folder
    check(
        where,
        Expected(
            "Where is the tax rate set?",
            ("The tax rate is set in `src/tax.py` as `RATE = 0.07`.",),
            ("config.py", "src/tax.py"),
            (),
            ("copilot_readFile",),
            False,
        ),
        project,
    )
    check(
        raise_rate,
        Expected(
            "Raise it to 8% and run the tests",
            ("Updating the rate.", "Done; the tests pass."),
            ("src/tax.py",),
            ("src/tax.py",),
            ("run_in_terminal",),
            False,
            ("$ pytest -q", "~ src/tax.py", "+ RATE = 0.08"),
        ),
        project,
    )
    check(
        rounding,
        Expected(
            "What does the tax authority say about rounding?",
            ("They round half up, to the cent.",),
            (),
            (),
            ("copilot_fetchWebPage",),
            True,
        ),
        project,
    )
    assert where.asked_at.isoformat() == "2025-12-05T10:00:00+00:00"


def test_continue_session() -> None:
    helper, tests = turns("continue", CONTINUE)
    check(
        helper,
        Expected(
            "Add a discount helper to cart.py",
            ("I'll read cart.py first.", "Added `discount` to cart.py."),  # not the thinking
            ("src/cart.py",),
            ("src/cart.py",),
            ("read_file", "single_find_and_replace"),
            False,
            ("+ def discount(total, pct):",),
        ),
        "/home/dev/shop",
    )
    check(
        tests,
        Expected(
            "Run the tests and read the coupon RFC",
            (
                "Running them and fetching the RFC.",
                "One test fails; the RFC says discounts apply before tax.",
            ),
            (),
            (),
            ("run_terminal_command", "fetch_url_content"),
            True,
            ("$ pytest -q", "! FAILED tests/test_cart.py::test_discount"),
        ),
        "/home/dev/shop",
    )
    assert helper.asked_at.isoformat() == "2025-12-05T11:00:00+00:00"  # sessions.json


def test_goose_jsonl_session() -> None:
    script, frost = turns("goose", GOOSE)
    check(
        script,
        Expected(
            "Write a watering schedule script",
            ("I'll create schedule.py.", "Fixed the day names; the script prints the schedule."),
            ("schedule.py", "notes.md"),
            ("schedule.py",),
            ("developer__text_editor", "developer__shell"),
            False,
            ("$ python schedule.py", "+ DAYS = [mon, thu]"),
        ),
        "/home/dev/garden",
    )
    assert "! Command failed: NameError: name 'mon' is not defined" in script.work
    check(
        frost,
        Expected(
            "Find the frost dates for my area online",
            ("The last frost is around April 20.",),
            (),
            (),
            ("computercontroller__web_scrape",),
            True,
        ),
        "/home/dev/garden",
    )


def test_cursor_agent_transcript() -> None:
    shipping, rates = turns("cursor", CURSOR)
    check(
        shipping,
        Expected(
            "Add a shipping estimate to the cart page",  # the <user_info> is not asked
            ("Reading the cart page.", "Added a shipping estimate line."),
            ("web/cart.html",),
            ("web/cart.html",),
            ("Read", "StrReplace", "Shell"),
            False,
            ("$ npm run lint", "! lint: 1 error in web/cart.html"),
        ),
        "/home/dev/shop",  # the Workspace Path the agent states
    )
    check(
        rates,
        Expected(
            "What do carriers charge? Search the web",
            ("Rates start at $5 a parcel.",),
            (),
            (),
            ("WebSearch",),
            True,
        ),
        "/home/dev/shop",
    )


@pytest.mark.parametrize(("fmt", "source"), SINGLE_FILES)
def test_reading_twice_gives_the_same_turns(fmt: str, source: Path) -> None:
    assert FORMATS[fmt].read(source) == FORMATS[fmt].read(source)


@pytest.mark.parametrize(("fmt", "source"), SINGLE_FILES)
def test_a_file_cut_short_keeps_its_whole_turns_and_says_what_it_skipped(
    fmt: str, source: Path, tmp_path: Path
) -> None:
    whole = FORMATS[fmt].read(source)
    copy = copy_beside(source, tmp_path)
    text = source.read_text(encoding="utf-8")
    copy.write_text(text[: int(len(text) * 0.8)], encoding="utf-8")  # stopped mid-write
    report = FORMATS[fmt].read(copy)
    assert report.problems, "the damage is told"
    assert all(copy.name in problem for problem in report.problems)
    assert 1 <= len(report.turns) <= len(whole.turns)
    kept = report.turns[0]
    assert kept.turn_id == whole.turns[0].turn_id and kept.asked == whole.turns[0].asked


@pytest.mark.parametrize(
    ("fmt", "source"), [(f, s) for f, s in SINGLE_FILES if s.suffix == ".jsonl"]
)
def test_garbage_lines_are_skipped_and_counted(fmt: str, source: Path, tmp_path: Path) -> None:
    whole = FORMATS[fmt].read(source)
    copy = copy_beside(source, tmp_path)
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    copy.write_text("".join([*lines[:3], "{not json\n", "[1, 2]\n", *lines[3:]]), encoding="utf-8")
    report = FORMATS[fmt].read(copy)
    assert report.skipped == 2 and len(report.problems) == 1
    assert [t.asked for t in report.turns] == [t.asked for t in whole.turns]


@pytest.mark.parametrize(
    ("fmt", "source"), [(f, s) for f, s in SINGLE_FILES if s.suffix == ".json"]
)
def test_a_document_that_is_not_a_session_is_a_problem_not_a_crash(
    fmt: str, source: Path, tmp_path: Path
) -> None:
    copy = copy_beside(source, tmp_path)
    for text in ("", "null", "42", '{"history": 3, "requests": 3}', "[1, 2]"):
        copy.write_text(text, encoding="utf-8")
        report: ReadReport = FORMATS[fmt].read(copy)
        assert report.turns == [] and len(report.problems) == 1, (text, report.problems)


# ---- where each store lives


def lay_out(store: Path, fmt: str, source: Path) -> None:
    """The fixture session, put where the agent keeps it under `store`."""
    if fmt in ("cline", "roo-code", "kilo-code"):
        shutil.copytree(source.parent, store / "tasks" / source.parent.name)
    elif fmt == "copilot-cli":
        shutil.copytree(source.parent, store / source.parent.name)
    elif fmt == "copilot-chat":
        shutil.copytree(source.parent.parent, store / "3f2a9c81d4e5b6a7")
    elif fmt == "cursor":
        shutil.copytree(source.parent, store / "home-dev-shop" / "agent-transcripts")
    else:
        store.mkdir(parents=True)
        shutil.copy(source, store / source.name)


HOME = Path("/fake/home")
# fmt: off
STORES = {  # per system: the folder each agent keeps its sessions in, under a fake home
    "Linux": {
        "cline": ".config/Code/User/globalStorage/saoudrizwan.claude-dev",
        "roo-code": ".config/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline",
        "kilo-code": ".config/VSCodium/User/globalStorage/kilocode.kilo-code",
        "copilot-cli": ".copilot/session-state",
        "copilot-chat": ".config/Code/User/workspaceStorage",
        "continue": ".continue/sessions",
        "goose": ".local/share/goose/sessions",
        "cursor": ".cursor/projects",
    },
    "Darwin": {
        "cline": "Library/Application Support/Cursor/User/globalStorage/saoudrizwan.claude-dev",
        "roo-code": "Library/Application Support/Code/User/globalStorage/"
        "rooveterinaryinc.roo-cline",
        "kilo-code": "Library/Application Support/Code/User/globalStorage/kilocode.kilo-code",
        "copilot-cli": ".copilot/session-state",
        "copilot-chat": "Library/Application Support/Code - Insiders/User/workspaceStorage",
        "continue": ".continue/sessions",
        "goose": "Library/Application Support/Block/goose/sessions",
        "cursor": ".cursor/projects",
    },
    "Windows": {
        "cline": "AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev",
        "roo-code": "AppData/Roaming/Cursor/User/globalStorage/rooveterinaryinc.roo-cline",
        "kilo-code": "AppData/Roaming/Code/User/globalStorage/kilocode.kilo-code",
        "copilot-cli": ".copilot/session-state",
        "copilot-chat": "AppData/Roaming/VSCodium/User/workspaceStorage",
        "continue": ".continue/sessions",
        "goose": "AppData/Roaming/Block/goose/data/sessions",
        "cursor": ".cursor/projects",
    },
}
# fmt: on
SOURCES = {**dict(SINGLE_FILES), "kilo-code": ROO / "api_conversation_history.json"}


@pytest.mark.parametrize("system", sorted(STORES))
@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_each_store_is_found_where_the_system_keeps_it(
    fmt: str, system: str, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = {"APPDATA": str(home / "AppData" / "Roaming")} if system == "Windows" else {}
    lay_out(home / STORES[system][fmt], fmt, SOURCES[fmt])
    roots = FORMATS[fmt].candidate_roots(Places(home, env, system))
    found = [path for root in roots for path in FORMATS[fmt].discover(root)]
    assert len(found) == 1 and FORMATS[fmt].read(found[0]).turns
    assert all(str(root).startswith(str(home)) for root in roots)


def test_environment_variables_move_the_stores(tmp_path: Path) -> None:
    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "COPILOT_HOME": str(tmp_path / "copilot"),
        "CONTINUE_GLOBAL_DIR": str(tmp_path / "cont"),
    }
    places = Places(tmp_path / "home", env, "Linux")
    first = {name: FORMATS[name].candidate_roots(places)[0] for name in SOURCES}
    assert first["cline"] == tmp_path / "cfg/Code/User/globalStorage/saoudrizwan.claude-dev"
    assert first["goose"] == tmp_path / "data/goose/sessions"
    assert first["copilot-cli"] == tmp_path / "copilot/session-state"
    assert first["continue"] == tmp_path / "cont/sessions"
    cursor_ide = FORMATS["cursor"].candidate_roots(places)[1]
    assert cursor_ide == tmp_path / "cfg/Cursor/User/globalStorage/state.vscdb"


def test_a_task_folder_of_one_fork_is_not_read_as_another(tmp_path: Path) -> None:
    store = tmp_path / "globalStorage"
    lay_out(store / "rooveterinaryinc.roo-cline", "roo-code", SOURCES["roo-code"])
    assert list(FORMATS["cline"].discover(store)) == []
    assert len(list(FORMATS["roo-code"].discover(store))) == 1
    assert list(FORMATS["roo-code"].discover(ROO)) == [ROO / "api_conversation_history.json"]


def test_a_cline_task_without_environment_details_takes_its_project_from_the_task_index(
    tmp_path: Path,
) -> None:
    store = tmp_path / "saoudrizwan.claude-dev"
    lay_out(store, "cline", SOURCES["cline"])
    history = store / "tasks" / CLINE.name / "api_conversation_history.json"
    messages = json.loads(history.read_text(encoding="utf-8"))
    messages[0]["content"] = messages[0]["content"][:1]  # the <task> alone
    history.write_text(json.dumps(messages), encoding="utf-8")
    (store / "state").mkdir()
    index = [{"id": CLINE.name, "ts": 1, "task": "x", "cwdOnTaskInitialization": "/srv/shop"}]
    (store / "state" / "taskHistory.json").write_text(json.dumps(index), encoding="utf-8")
    assert {t.project for t in FORMATS["cline"].read(history).turns} == {"/srv/shop"}


def test_a_roo_code_sub_task_is_folded_into_the_turn_that_launched_it(tmp_path: Path) -> None:
    tasks = tmp_path / "rooveterinaryinc.roo-cline" / "tasks"
    child = tasks / ROO.name
    shutil.copytree(ROO, child)
    item = json.loads((child / "history_item.json").read_text(encoding="utf-8"))
    (child / "history_item.json").write_text(json.dumps({**item, "parentTaskId": "parent-1"}))
    (parent := tasks / "parent-1").mkdir()
    launch = {"mode": "code", "message": "Find why the menu page is slow"}
    messages = [
        {"role": "user", "content": "<task>\nSpeed up the cafe site\n</task>", "ts": 1764899000000},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "I'll hand the menu page to a sub-task."},
                {"type": "tool_use", "id": "t1", "name": "new_task", "input": launch},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": f"Subtask {ROO.name} completed.\n\nResult:\nBatched the query.",
                }
            ],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "The site is faster now."}]},
    ]
    (parent / "api_conversation_history.json").write_text(json.dumps(messages))
    (parent / "history_item.json").write_text(
        json.dumps({"id": "parent-1", "workspace": "/home/dev/cafe", "childIds": [ROO.name]})
    )
    roo = FORMATS["roo-code"]
    assert [path.parent.name for path in roo.discover(tasks)] == ["parent-1"]
    [turn] = roo.read(parent / "api_conversation_history.json").turns
    assert turn.asked == "Speed up the cafe site"
    assert turn.answered == "I'll hand the menu page to a sub-task.\n\nThe site is faster now."
    assert (turn.files, turn.edited, turn.tainted) == (("menu.py",), ("menu.py",), True)
    assert {"new_task", "read_file", "apply_diff", "execute_command"} <= set(turn.tools)
    assert "+ fetch_all(items)" in turn.work


def test_a_copilot_chat_operation_log_gives_the_turns_of_the_session_it_builds(
    tmp_path: Path,
) -> None:
    source = only_file("copilot-chat", CHAT_STORAGE)
    log = tmp_path / "3f2a9c81d4e5b6a7" / "chatSessions" / f"{source.stem}.jsonl"
    log.parent.mkdir(parents=True)
    shutil.copy(CHAT_STORAGE / "workspace.json", log.parent.parent)
    lines = operation_log(json.loads(source.read_text(encoding="utf-8")))
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert list(FORMATS["copilot-chat"].discover(tmp_path)) == [log]
    report = FORMATS["copilot-chat"].read(log)
    assert (report.problems, report.lines) == ([], len(lines))
    assert report.turns == FORMATS["copilot-chat"].read(source).turns
    with log.open("a", encoding="utf-8") as handle:  # a change that fits nothing, a torn line
        handle.write(
            json.dumps({"kind": 1, "k": ["requests", 9, "x"], "v": 1}) + '\n{"kind": 2, "k"'
        )
    damaged = FORMATS["copilot-chat"].read(log)
    assert damaged.skipped == 2 and len(damaged.problems) == 2
    assert damaged.turns == report.turns


def test_vscode_uris_name_paths_on_every_system() -> None:
    assert uri_path("file:///home/dev/my%20shop") == "/home/dev/my shop"
    assert uri_path("file:///c%3A/Users/dev/shop") == "c:/Users/dev/shop"
    assert uri_path({"$mid": 1, "fsPath": "/srv/a.py", "scheme": "file"}) == "/srv/a.py"
    assert uri_path("/plain/path") == "/plain/path" and uri_path(None) == ""


def test_a_windows_workspace_gives_its_folder_and_relative_files(tmp_path: Path) -> None:
    storage = tmp_path / "workspaceStorage" / "9d8c"
    shutil.copytree(CHAT_STORAGE / "chatSessions", storage / "chatSessions")
    (storage / "workspace.json").write_text('{"folder": "file:///c%3A/Users/dev/shop"}')
    session = next((storage / "chatSessions").iterdir())
    text = session.read_text(encoding="utf-8").replace("/home/dev/shop/", "c:/Users/dev/shop/")
    session.write_text(text.replace("file://c:", "file:///c%3A"), encoding="utf-8")
    where = FORMATS["copilot-chat"].read(session).turns[0]
    assert where.project == "c:/Users/dev/shop"
    assert where.files == ("config.py", "src/tax.py")
