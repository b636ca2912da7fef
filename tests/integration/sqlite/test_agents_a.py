"""Gemini CLI, Qwen Code, OpenCode and Crush sessions, and finding every agent's store:
what each turn holds, incremental and forgotten-aware imports, damaged files, `recall import
auto` on homes laid out as Linux, macOS and Windows lay them out, and `recall import --list`."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.importer_rates import opencode_tree, write_crush_db, write_opencode_db
from history import HistoryIndex
from history.importers import FORMATS, ImportedTurn, Places, ReadReport
from history.importers.auto import owner, survey, vscode_global_storage, with_sessions
from history.importers.run import import_transcripts
from history.importers.whole import edits
from tests.helpers.cli_runs import recall
from tests.helpers.paths import IMPORTERS

FIXTURES = IMPORTERS
GEMINI_STORE = FIXTURES / "gemini" / "store"
GEMINI_JSONL = "tmp/shop/chats/session-2026-03-01T10-00-s-gem-1.jsonl"
QWEN = FIXTURES / "qwen-code" / "projects" / "-home-dev-api" / "chats" / "5e0c1a2b-qwen-0001.jsonl"
OPENCODE = FIXTURES / "opencode" / "storage"
OPENCODE_SESSION = OPENCODE / "session" / "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"


def read(fmt: str, path: Path) -> ReadReport:
    return FORMATS[fmt].read(path)


def by_prompt(turns: list[ImportedTurn]) -> dict[str, ImportedTurn]:
    return {turn.asked: turn for turn in turns}


def gemini_home(home: Path) -> Path:
    """A `~/.gemini` as Gemini CLI lays it out; returns the session file."""
    shutil.copytree(GEMINI_STORE, home / ".gemini")
    return home / ".gemini" / GEMINI_JSONL


def opencode_db(folder: Path) -> Path:
    """OpenCode's database holding the fixture tree, as its one-time migration leaves it."""
    folder.mkdir(parents=True, exist_ok=True)
    write_opencode_db(folder / "opencode.db", opencode_tree(OPENCODE))
    return folder / "opencode.db"


def crush_db(project: Path) -> Path:
    doc = json.loads((FIXTURES / "crush" / "sessions.json").read_text(encoding="utf-8"))
    sessions = {}
    for session in doc["sessions"]:
        text = json.dumps(session["messages"]).replace("{project}", str(project.resolve()))
        sessions[(session["id"], session["parent"])] = [tuple(m) for m in json.loads(text)]
    path = project / ".crush" / "crush.db"
    write_crush_db(path, sessions)
    return path


# --- what each reader makes of its agent's files -------------------------------------------


def test_gemini_jsonl_records_apply_in_order() -> None:
    report = read("gemini", GEMINI_STORE / GEMINI_JSONL)
    assert report.skipped == 1 and report.problems == [
        "1 line(s) in session-2026-03-01T10-00-s-gem-1.jsonl were not session records."
    ]
    turns = by_prompt(report.turns)
    # `$rewindTo` dropped "delete the tests instead" and its answer; the info notice is no turn.
    assert list(turns) == [
        "add a health check endpoint",
        "run the tests",
        "write the changelog entry",
    ]
    health, tests, changelog = report.turns
    assert health.turn_id == "gemini:s-gem-1:u1" and health.project == "/home/dev/shop"
    # The repeated id "g1" replaced its first copy: its text is there once, before g1c's.
    assert health.answered == (
        "The app has no health check yet; I checked the docs page too.\n\n"
        "Added GET /health returning ok."
    )
    assert (health.files, health.edited) == (("src/app.py",), ("src/app.py",))
    assert health.tools == ("read_file", "run_shell_command", "replace")
    assert health.tainted  # curl through run_shell_command
    assert "$ curl -s https://flask.example/health" in health.work
    assert "secret thought" not in health.answered
    assert not tests.tainted and tests.work.startswith("$ pytest -q tests/test_app.py\n! FAILED")
    # The sub-agent's web_fetch and read fold into the turn that delegated to it.
    assert changelog.files == ("CHANGELOG.md", "docs/RELEASING.md")
    assert changelog.edited == ("CHANGELOG.md",) and changelog.tainted
    assert "web_fetch" in changelog.tools and "Subagent text" not in changelog.answered
    assert "~ CHANGELOG.md\n+ ## 1.1" in changelog.work


def test_gemini_single_json_session_and_its_project_from_the_hash() -> None:
    [path] = [p for p in FORMATS["gemini"].discover(FIXTURES / "gemini") if p.suffix == ".json"]
    report = read("gemini", path)
    assert report.problems == [] and len(report.turns) == 5
    turns = by_prompt(report.turns)
    hello = turns["create hello.md file"]
    # No projects.json here: the project is the ancestor of a tool's path whose SHA-256 is
    # the session's projectHash.
    assert hello.project == "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code"
    assert (hello.files, hello.edited, hello.tools) == (
        ("hello.md",),
        ("hello.md",),
        ("write_file",),
    )
    explore = turns["expore repository and figure out issues. focus on adaptability and security"]
    assert {"SECURITY.md", "src/env/manager.ts"} <= set(explore.files) and not explore.edited
    assert "delegate_to_agent" in explore.tools


def test_gemini_half_written_json_keeps_the_whole_messages_before_the_cut(tmp_path: Path) -> None:
    [path] = [p for p in FORMATS["gemini"].discover(FIXTURES / "gemini") if p.suffix == ".json"]
    text = path.read_text(encoding="utf-8")
    cut = tmp_path / "chats" / path.name
    cut.parent.mkdir()
    cut.write_text(text[: text.index("add 5 lines of random text") + 40], encoding="utf-8")
    report = read("gemini", cut)
    assert [t.asked for t in report.turns][-1] == "add 5 lines of random text"
    assert len(report.turns) == 4
    assert report.problems and "cut short" in report.problems[0]
    garbage = tmp_path / "session-garbage.json"
    garbage.write_text("{not json", encoding="utf-8")
    assert read("gemini", garbage).turns == [] and read("gemini", garbage).problems


def test_a_gemini_sub_agent_file_read_alone_has_no_turns_of_its_own() -> None:
    report = read("gemini", GEMINI_STORE / "tmp/shop/chats/s-gem-1/s-gem-sub.jsonl")
    assert (report.turns, report.problems) == ([], [])


def test_gemini_checkpoint_rebuilds_the_messages(tmp_path: Path) -> None:
    path = tmp_path / "session-x.jsonl"
    lines = [
        {"sessionId": "cp", "projectHash": "0"},
        {"id": "u1", "type": "user", "content": "old prompt"},
        {"$set": {"messages": [{"id": "u9", "type": "user", "content": "kept prompt"}]}},
        {"id": "g9", "type": "gemini", "content": "kept answer"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    [turn] = read("gemini", path).turns
    assert (turn.turn_id, turn.asked, turn.answered) == (
        "gemini:cp:u9",
        "kept prompt",
        "kept answer",
    )


def test_qwen_code_follows_the_active_branch() -> None:
    report = read("qwen-code", QWEN)
    # The last line is half-written: skipped and said.
    assert report.skipped == 1 and report.problems == [
        "1 line(s) in 5e0c1a2b-qwen-0001.jsonl were not records."
    ]
    why, fix = report.turns  # "rewrite it in go" was rewound away from
    assert why.turn_id == "qwen-code:5e0c1a2b-qwen-0001:q1" and why.project == "/home/dev/api"
    assert why.answered == "Let me read the handler.\n\nThe handler uses db before it is connected."
    assert (why.files, why.edited) == (("src/users.ts",), ())
    assert why.tools == ("read_file", "run_shell_command") and not why.tainted
    assert "! TypeError: db is undefined" in why.work
    assert (fix.edited, fix.tools, fix.tainted) == (("src/users.ts",), ("edit", "web_fetch"), True)
    assert fix.answered == "Fixed: the handler awaits connect() first."


def test_opencode_tree_and_database_give_the_same_turns(tmp_path: Path) -> None:
    [session] = FORMATS["opencode"].discover(OPENCODE)  # the child session is not one of its own
    tree = read("opencode", session)
    database = read("opencode", opencode_db(tmp_path))
    assert tree.problems == database.problems == []
    assert tree.turns == database.turns
    dark, lint = tree.turns
    assert dark.turn_id == "opencode:ses_01JH0A:msg_01" and dark.project == "/home/dev/web"
    assert dark.asked == "add a dark mode toggle"  # the synthetic part is not the prompt
    assert (
        dark.answered == "I'll look at the theme file first.\n\nAdded the toggle in src/toggle.tsx."
    )
    assert dark.files == ("src/theme.ts", "src/toggle.tsx")
    assert dark.edited == ("src/theme.ts", "src/toggle.tsx")
    # The child session's grep and webfetch fold into the turn whose task call ran it.
    assert dark.tools == ("read", "bash", "task", "grep", "webfetch", "edit") and dark.tainted
    assert "child's text" not in dark.answered
    assert lint.work.startswith("$ npm run lint\n! 3 problems") and not lint.tainted


def test_opencode_database_is_read_while_opencode_writes_it(tmp_path: Path) -> None:
    path = opencode_db(tmp_path)
    writer = sqlite3.connect(path)
    writer.execute("BEGIN IMMEDIATE")  # OpenCode in the middle of a write
    writer.execute("UPDATE session SET title = 'x'")
    report = read("opencode", path)
    assert len(report.turns) == 2
    writer.rollback()
    writer.execute("UPDATE session SET title = 'y'")  # never locked by the read
    writer.commit()
    writer.close()


def test_opencode_damaged_tree_reads_what_it_can(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(OPENCODE, storage)
    (storage / "part" / "msg_05" / "prt_0015.json").write_text('{"type": "te', encoding="utf-8")
    [session] = FORMATS["opencode"].discover(storage)
    report = read("opencode", session)
    assert [t.asked for t in report.turns] == ["add a dark mode toggle", "run lint"]
    assert report.skipped == 1 and "prt_0015.json" in report.problems[0]


def test_crush_turns_and_its_sub_agent(tmp_path: Path) -> None:
    project = tmp_path / "cli"
    report = read("crush", crush_db(project))
    assert report.problems == []
    verbose, tests = report.turns
    assert verbose.turn_id == "crush:s-crush-1:0" and verbose.project == str(project.resolve())
    assert (
        verbose.answered
        == "Looking at main.go first.\n\nAdded --verbose; the tests are in main_test.go."
    )
    assert verbose.files == ("main.go", "main_test.go") and verbose.edited == ("main.go",)
    assert verbose.tools == ("view", "fetch", "edit", "agent", "glob") and verbose.tainted
    [edit] = edits(verbose.work)
    assert edit.path == "main.go" and edit.removed == ("func main() {",) and edit.added
    assert tests.work == "$ go test ./...\n! FAIL main_test.go:12: verbose is nil"
    assert not tests.tainted
    assert FORMATS["crush"].sessions_in(project / ".crush" / "crush.db") == 1


def test_crush_bad_parts_are_skipped_and_said(tmp_path: Path) -> None:
    path = crush_db(tmp_path / "cli")
    db = sqlite3.connect(path)
    db.execute("UPDATE messages SET parts = '[{\"type\": \"te' WHERE id = 'm6'")
    db.commit()
    db.close()
    report = read("crush", path)
    assert len(report.turns) == 2 and report.skipped == 1
    assert report.problems == ["A message of session s-crush-1 in crush.db has unreadable parts."]


# --- importing: again, grown, forgotten -----------------------------------------------------


def counts(index: HistoryIndex, fmt: str, path: Path) -> tuple[int, int, int]:
    summary = import_transcripts(index, [FORMATS[fmt]], path)
    return summary.new, summary.unchanged, summary.forgotten


@pytest.mark.parametrize(("fmt", "cut"), [("gemini", 9), ("qwen-code", 7)])
def test_jsonl_reimport_growth_and_forgetting(
    index: HistoryIndex, fmt: str, cut: int, tmp_path: Path
) -> None:
    source = GEMINI_STORE / GEMINI_JSONL if fmt == "gemini" else QWEN
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "chats" / source.name
    path.parent.mkdir()
    path.write_text("".join(lines[:cut]), encoding="utf-8")  # the file as a turn ended
    first = counts(index, fmt, path)
    assert first[0] >= 1 and counts(index, fmt, path) == (0, first[0], 0)
    path.write_text("".join(lines), encoding="utf-8")  # the agent appended the rest
    whole = len(read(fmt, path).turns)
    assert counts(index, fmt, path) == (whole - first[0], first[0], 0)
    session = read(fmt, path).turns[0].session_id
    assert index.forget_session(session) == whole
    assert counts(index, fmt, path) == (0, 0, whole)


def test_database_reimport_growth_and_forgetting(index: HistoryIndex, tmp_path: Path) -> None:
    path = opencode_db(tmp_path / "opencode")
    assert counts(index, "opencode", path) == (2, 0, 0)
    assert counts(index, "opencode", path) == (0, 2, 0)
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO message VALUES ('msg_06', 'ses_01JH0A', 1, 1, ?)",
        (json.dumps({"role": "user", "time": {"created": 1767261700000}}),),
    )
    db.execute(
        "INSERT INTO part VALUES ('prt_0100', 'msg_06', 'ses_01JH0A', 1, 1, ?)",
        (json.dumps({"type": "text", "text": "ship it"}),),
    )
    db.commit()
    db.close()
    assert counts(index, "opencode", path) == (1, 2, 0)
    assert index.forget_session("ses_01JH0A") == 3
    assert counts(index, "opencode", path) == (0, 0, 3)
    crush = crush_db(tmp_path / "cli")
    assert counts(index, "crush", crush) == (2, 0, 0)
    assert counts(index, "crush", crush) == (0, 2, 0)


# --- which agent wrote a file, and where each keeps its sessions ----------------------------


def test_import_auto_path_reads_each_file_as_its_own_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    mixed = tmp_path / "mixed"
    gemini_home(mixed)
    shutil.copy(QWEN, mixed / QWEN.name)
    shutil.copy(FIXTURES / "claude_edge.jsonl", mixed / "claude_edge.jsonl")
    opencode_db(mixed / "oc")
    for path, name in [
        (mixed / ".gemini" / GEMINI_JSONL, "gemini"),
        (mixed / ".gemini/tmp/shop/chats/s-gem-1/s-gem-sub.jsonl", "gemini"),
        (mixed / QWEN.name, "qwen-code"),
        (mixed / "claude_edge.jsonl", "claude-code"),
        (mixed / "oc" / "opencode.db", "opencode"),
    ]:
        found = owner(path, FORMATS.values())
        assert found is not None and found.name == name, path
    code, out, _ = recall(capsys, "import", "auto", str(mixed), "--json")
    summary = json.loads(out)
    # gemini (1 file, 3 turns), qwen (1, 2), claude_edge (1, 3), opencode.db (1, 2).
    assert (code, summary["files"], summary["turns"]["new"]) == (0, 4, 10)
    code, out, _ = recall(capsys, "import", "gemini", str(mixed), "--json")
    assert (json.loads(out)["files"], json.loads(out)["turns"]["unchanged"]) == (1, 3)


def layout(home: Path, system: str) -> Places:
    """A home as `system` lays out the stores of Gemini CLI, Qwen Code, OpenCode, Crush,
    Claude Code and Codex, each with one session."""
    env: dict[str, str] = {}
    if system == "Windows":
        env = {"USERPROFILE": str(home), "APPDATA": str(home / "AppData" / "Roaming"),
               "LOCALAPPDATA": str(home / "AppData" / "Local")}  # fmt: skip
        crush_data = home / "AppData" / "Local" / "crush"
    elif system == "Linux":
        env = {"XDG_DATA_HOME": str(home / "data"), "CODEX_HOME": str(home / "codex-home")}
        crush_data = home / "data" / "crush"
    else:
        crush_data = home / ".local" / "share" / "crush"
    gemini_home(home)
    qwen = home / ".qwen" / "projects" / "-home-dev-api" / "chats"
    qwen.mkdir(parents=True)
    shutil.copy(QWEN, qwen)
    opencode_db(Path(env.get("XDG_DATA_HOME", home / ".local" / "share")) / "opencode")
    project = home / "src" / "cli"
    crush_db(project)
    crush_data.mkdir(parents=True)
    listed = {"projects": [{"path": str(project), "data_dir": str(project / ".crush")}]}
    (crush_data / "projects.json").write_text(json.dumps(listed), encoding="utf-8")
    claude = home / ".claude" / "projects" / "-home-dev-shop"
    claude.mkdir(parents=True)
    shutil.copy(FIXTURES / "claude_edge.jsonl", claude)
    codex = Path(env.get("CODEX_HOME", home / ".codex")) / "sessions" / "2026" / "01" / "02"
    codex.mkdir(parents=True)
    shutil.copy(FIXTURES / "codex_edge.jsonl", codex / "rollout-x.jsonl")
    return Places(home, env, system)


@pytest.mark.parametrize("system", ["Linux", "Darwin", "Windows"])
def test_import_auto_finds_every_store_on_each_system(
    index: HistoryIndex, system: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no aider history, no .crush here
    places = layout(tmp_path / "home", system)
    found = with_sessions(FORMATS.values(), places)
    expected = ["claude-code", "codex", "qwen-code", "gemini", "opencode", "crush"]
    assert [fmt.name for fmt in found] == expected
    sessions = {agent.agent: agent.sessions for agent in survey(FORMATS.values(), places)}
    laid_out = {
        "claude-code": 1,
        "codex": 1,
        "qwen-code": 1,
        "gemini": 1,
        "opencode": 1,
        "crush": 1,
    }
    # The fake home lays out these agents' stores only; every other agent finds none.
    assert sessions == {name: laid_out.get(name, 0) for name in FORMATS}
    summary = import_transcripts(index, found, None, places=places)
    assert (summary.files, summary.new, summary.unreadable) == (6, 3 + 2 + 2 + 3 + 2 + 2, 0)
    assert import_transcripts(index, found, None, places=places).new == 0


def test_agent_home_variables_move_their_stores(tmp_path: Path) -> None:
    folders = {"GEMINI_CLI_HOME": "g", "CODEX_HOME": "c", "CLAUDE_CONFIG_DIR": "claude"}
    env = {name: str(tmp_path / folder) for name, folder in folders.items()}
    env["XDG_DATA_HOME"] = str(tmp_path / "d")
    places = Places(tmp_path / "home", env, "Linux")
    roots = {name: fmt.candidate_roots(places)[0] for name, fmt in FORMATS.items()}
    assert roots["gemini"] == tmp_path / "g" / ".gemini" / "tmp"
    assert roots["qwen-code"] == tmp_path / "home" / ".qwen" / "projects"
    assert roots["codex"] == tmp_path / "c" / "sessions"
    assert roots["claude-code"] == tmp_path / "claude" / "projects"
    assert roots["opencode"] == tmp_path / "d" / "opencode"


def test_vscode_global_storage_folders_per_system(tmp_path: Path) -> None:
    linux = vscode_global_storage(Places(tmp_path, {}, "Linux"), "ext.id")
    editions = ("Code", "Code - Insiders", "Cursor", "VSCodium")
    expected = [
        tmp_path / ".config" / edition / "User/globalStorage/ext.id" for edition in editions
    ]
    assert linux[:4] == expected
    mac = vscode_global_storage(Places(tmp_path, {}, "Darwin"), "ext.id")[0]
    assert mac == tmp_path / "Library/Application Support/Code/User/globalStorage/ext.id"
    appdata = tmp_path / "Roaming"
    windows = vscode_global_storage(Places(tmp_path, {"APPDATA": str(appdata)}, "Windows"), "e")
    assert windows[1] == appdata / "Code - Insiders" / "User" / "globalStorage" / "e"


def test_import_list_shows_every_agent_where_it_looked_and_what_it_found(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("XDG_DATA_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    code, out, _ = recall(capsys, "import", "--list")
    assert code == 1 and "gemini: nothing found\n  ~/.gemini/tmp: not there\n" in out
    gemini_home(tmp_path)
    code, out, _ = recall(capsys, "import", "--list")
    assert code == 0
    assert "gemini: 1 session\n  ~/.gemini/tmp: 1 session\n" in out
    assert (
        "qwen-code: nothing found\n  ~/.qwen/projects: not there\n  ~/.qwen/tmp: not there\n" in out
    )
    code, out, _ = recall(capsys, "import", "--list", "--json")
    agents = {agent["agent"]: agent for agent in json.loads(out)}
    assert set(agents) == set(FORMATS)
    assert agents["gemini"]["places"] == [
        {"path": str(tmp_path / ".gemini" / "tmp"), "exists": True, "files": 1, "sessions": 1}
    ]
    code, out, _ = recall(capsys, "import", "auto", "--json")
    assert (code, json.loads(out)["turns"]["new"]) == (0, 3)


RECORD_WORDS = st.sampled_from(
    ["id", "type", "user", "gemini", "content", "toolCalls", "name", "args", "status", "error",
     "$set", "$rewindTo", "messages", "sessionId", "projectHash", "uuid", "parentUuid",
     "message", "parts", "text", "functionCall", "functionResponse", "tool_result", "cwd"]
)  # fmt: skip
RECORD_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | RECORD_WORDS | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(RECORD_WORDS, inner, max_size=4),
    max_leaves=12,
)
RECORD_LINES = st.dictionaries(RECORD_WORDS, RECORD_VALUES, max_size=5).map(json.dumps) | st.text()


@given(st.lists(RECORD_LINES, max_size=12))
def test_any_gemini_or_qwen_lines_are_read_without_raising(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "chats" / "session-x.jsonl"
        path.parent.mkdir()
        path.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
        for fmt, name in (
            ("gemini", "session-x.jsonl"),
            ("qwen-code", "x.jsonl"),
            ("gemini", "session-y.json"),
        ):
            path = path.rename(path.with_name(name))
            report = read(fmt, path)
            assert report.skipped <= report.lines
            assert len({turn.turn_id for turn in report.turns}) == len(report.turns)
