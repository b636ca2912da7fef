"""Transcript parsers: the real corpus, hand-made edge cases, grown files, and garbage."""

from __future__ import annotations

import json
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from history.importers import FORMATS, TAINTING_TOOLS, ReadReport, detect
from history.importers.aider import WATCH_REQUEST
from history.importers.base import is_tainting_tool
from history.importers.shell import shell_facts
from tests.helpers.corpus import CORPUS
from tests.helpers.importing import check_invariants
from tests.helpers.paths import IMPORTERS

FIXTURES = IMPORTERS

# Real prompts per corpus file, counted by reading each file (not by running the parser):
# - claude-code: user lines whose content is a plain string or text, minus isMeta "Stop hook
#   feedback" lines (reliability: 3 string lines, 2 of them isMeta) and minus sidechain lines
#   (the sub-agent file is all sidechain, its one "prompt" is the Task prompt).
# - codex: event_msg user_message lines; the AGENTS.md / environment_context user messages are
#   injected, not typed.
# - aider afi-core: 49 `####` blocks - 9 "Add file to the chat?" answers - 11 slash commands
#   (/add x3, /ls, /grep, /view, /mv, /find, /edit, /bye, /exit) - 1 `!find` = 28.
# - aider monochromatic: 26 `####` blocks - 2 answers - 1 /undo = 23 typed prompts, plus 18
#   "> Processing your request..." watch-files requests, 3 of which are followed by their own
#   `####` block (already counted) = 38.
# - aider zen-mcp-server: all 8 inputs are /add and /copy-context commands = 0.
# - claude-code entireio 37: 4 typed user lines - 1 "[Request interrupted by user for tool use]"
#   = 3; entireio 44: 1 typed user line.
# - gemini: the `user` messages (3 and 5); the rest are `gemini` messages.
CORPUS_TURNS = [
    ("claude-code", "claude-code/reliability-coverage-test-fix.jsonl", 1),
    ("claude-code", "claude-code/episodic-memory-tiny.jsonl", 2),
    ("claude-code", "claude-code/codemie-hello-files.jsonl", 3),
    ("claude-code", "claude-code/codemie-cli-spec.jsonl", 1),
    ("claude-code", "claude-code/codemie-cli-spec.subagent-a485154.jsonl", 0),
    ("claude-code", "claude-code/entireio-cli--37-995ebed6e4-3-full.jsonl", 3),
    ("claude-code", "claude-code/entireio-cli--44-54089969c1-0-full.jsonl", 1),
    ("codex", "codex/codemie-exec-repo-summary.jsonl", 1),
    ("codex", "codex/codemie-tui-compact-threshold.jsonl", 2),
    ("aider", "aider/afi-core.aider.chat.history.md", 28),
    ("aider", "aider/monochromatic.aider.chat.history.md", 38),
    ("aider", "aider/zen-mcp-server.aider.chat.history.md", 0),
    ("gemini", "gemini/codemie-ai-codemie-code--session-2025-12-01T21-45-5b959dae.json", 3),
    (
        "gemini",
        "gemini/codemie-ai-codemie-code--session-2026-01-16T11-01-file-ops-37b7abef.json",
        5,
    ),
]


def read(fmt: str, path: Path) -> ReadReport:
    return FORMATS[fmt].read(path)


def as_utc(text: str) -> datetime:
    """`text` in UTC; a naive time (aider's) is the importing machine's local time."""
    return datetime.fromisoformat(text).astimezone(UTC)


@pytest.mark.parametrize(("fmt", "name", "expected"), CORPUS_TURNS)
def test_corpus_files_give_one_turn_per_real_prompt(fmt: str, name: str, expected: int) -> None:
    started = time.perf_counter()
    report = read(fmt, CORPUS / name)
    assert time.perf_counter() - started < 1.0
    assert len(report.turns) == expected
    assert report.skipped == 0
    assert report.problems == []
    check_invariants(report.turns)
    assert report == read(fmt, CORPUS / name), "parsing the same file twice gives the same turns"


def test_discover_finds_every_corpus_file_once() -> None:
    found = {fmt: list(FORMATS[fmt].discover(CORPUS / fmt)) for fmt in FORMATS}
    assert sorted(str(p.relative_to(CORPUS)) for ps in found.values() for p in ps) == sorted(
        name for _, name, _ in CORPUS_TURNS
    )
    assert found["aider"] == sorted(found["aider"])


def test_claude_code_corpus_turns() -> None:
    hello = read("claude-code", CORPUS / "claude-code/codemie-hello-files.jsonl").turns
    assert [turn.asked for turn in hello] == [
        "create hello.py, md and js",
        "update py with one liner comment",
        "delete js",
    ]
    first, second, third = hello
    assert first.turn_id == (
        "claude-code:4c2ddfdc-b619-4525-8d03-1950fb1b0257:40523152-693d-4e07-8434-7f0c8f28cc05"
    )
    assert first.project == "/tmp/private"
    assert first.asked_at == as_utc("2025-12-10T19:37:45.343+00:00")
    assert first.files == first.edited == ("hello.py", "hello.md", "hello.js")
    assert first.tools == ("Write",)
    # The whole answer: what it said before its tool calls, then after them.
    assert first.answered.startswith("I'll create three simple files: hello.py, hello.md")
    assert "\n\nDone! I've created three files:" in first.answered
    assert (second.files, second.edited, second.tools) == (
        ("hello.py",),
        ("hello.py",),
        ("Read", "Edit"),
    )
    assert (third.edited, third.tools) == (("hello.js",), ("Bash",))  # `rm hello.js`
    assert not any(turn.tainted for turn in hello)

    # Two isMeta "Stop hook feedback" lines keep the work inside the one real turn.
    (fix,) = read("claude-code", CORPUS / "claude-code/reliability-coverage-test-fix.jsonl").turns
    assert fix.asked.startswith("Add a function called multiply_numbers(a: int, b: int)")
    assert fix.tools == ("Glob", "Read", "Edit", "Bash")
    assert fix.files == ("src/math_utils.py", "tests/test_math_utils.py", ".gitignore")
    assert fix.edited == fix.files
    assert "The `.gitignore` was already committed" in fix.answered
    assert fix.answered.startswith("I'll start by exploring the codebase")

    (spec,) = read("claude-code", CORPUS / "claude-code/codemie-cli-spec.jsonl").turns
    assert spec.tools == ("Task", "Bash", "Read", "Glob", "Write")
    assert spec.edited == ("SPEC-NEW-CLI-COMMANDS.md",)
    assert spec.files[0] == "src/cli/index.ts"
    assert "\n\n## Summary" in spec.answered

    tiny = read("claude-code", CORPUS / "claude-code/episodic-memory-tiny.jsonl").turns
    assert tiny[1].asked == "What's the right way to fix the instructions?"
    assert tiny[1].tools == ("mcp__private-journal__process_thoughts",)
    assert not tiny[1].tainted


def test_codex_corpus_turns() -> None:
    (summary,) = read("codex", CORPUS / "codex/codemie-exec-repo-summary.jsonl").turns
    assert summary.turn_id == "codex:019b7f94-51b4-7593-922e-ba12b5b73b52:0"
    assert summary.asked == "what is current repository about? summarize purpuse and explain goals"
    assert summary.asked_at == as_utc("2026-01-02T16:39:45.350+00:00")
    assert summary.project == "/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code"
    assert (summary.tools, summary.files, summary.edited) == (("shell",), ("README.md",), ())
    assert summary.answered == ""  # the capture stops before the final answer

    show, update = read("codex", CORPUS / "codex/codemie-tui-compact-threshold.jsonl").turns
    assert show.asked == "show tools"
    assert show.answered.startswith("Available tool groups in this session:")
    assert not show.tainted
    assert update.asked == "let's update the defailt context compart to 90 in env var"
    assert update.tools == (
        "exec_command",
        "write_stdin",
        "web_search",
        "update_plan",
        "apply_patch",
    )
    assert update.edited == (
        "src/agents/plugins/__tests__/codemie-code-reasoning.test.ts",
        "src/agents/plugins/codemie-code.plugin.ts",
        "src/agents/plugins/opencode/opencode.plugin.ts",
    )
    assert "src/utils/config.ts" in update.files  # `sed -n '1,240p' src/utils/config.ts`
    assert update.tainted  # web_search_call
    assert update.answered.startswith("Using `superpowers:brainstorming` briefly")
    assert "\n\nImplemented the default context compaction setting" in update.answered
    # Each text arrives twice (a response_item message and an agent_message event): kept once.
    assert update.answered.count("The RED check failed exactly because") == 1


def test_aider_corpus_turns() -> None:
    afi = read("aider", CORPUS / "aider/afi-core.aider.chat.history.md").turns
    assert afi[0].asked.startswith("add a comment at the top of schemas/pipeline_config_schema.ts")
    assert afi[0].asked_at == as_utc("2025-07-15 11:38:37")
    assert afi[0].project == str(CORPUS / "aider")
    scripts = afi[2]
    assert scripts.asked == "sync-afi\naider-afi"
    assert scripts.files == ("init_repo.sh", "sync-afi.sh", "aider-afi.sh")
    assert scripts.edited == ("aider-afi.sh", "sync-afi.sh")
    assert scripts.tools == ("edit", "shell")
    # The reply before aider added the files, then the one after: one answer.
    assert scripts.answered.startswith("Please add the following files to the chat if you want")
    assert "\n\nTo implement the `sync-afi` and `aider-afi` commands" in scripts.answered
    index = next(turn for turn in afi if turn.asked == "> schemas/index.ts")
    assert index.tools == ("/add", "/ls", "edit")  # /grep and /view were invalid commands
    assert "validators/PoIValidator.ts" in index.files  # brought in by the /add before it
    commit = next(turn for turn in afi if turn.asked.startswith("git add schemas/"))
    assert commit.answered.endswith("create a commit with the specified message.")
    for turn in afi:
        assert not turn.asked.startswith(("/", "!", "Add file to the chat?"))

    mono = read("aider", CORPUS / "aider/monochromatic.aider.chat.history.md").turns
    assert sum(turn.asked == WATCH_REQUEST for turn in mono) == 15
    watched = next(turn for turn in mono if turn.asked == WATCH_REQUEST)
    assert watched.edited == ("packages/module/es/src/index.ts",)
    assert "<thinking-content" not in mono[2].answered
    assert mono[2].answered.startswith("You haven't shared the full contents")
    assert not any("SearchReplaceNoExactMatch" in turn.answered for turn in mono)
    assert not any(turn.tainted for turn in mono)


def test_claude_code_edge_cases() -> None:
    report = read("claude-code", FIXTURES / "claude_edge.jsonl")
    # Garbage, a JSON array and an unknown type; summaries, system lines, tool results,
    # sidechain, meta, caveat, command wrappers, interruptions, compaction and a
    # task-notification are known and simply not prompts.
    assert report.skipped == 3
    assert len(report.problems) == 2
    assert not any("port" in problem for problem in report.problems)
    port, notes, bump = report.turns
    assert port.turn_id == "claude-code:s-edge:u1"
    assert port.answered == "Reading it.\n\nThe port is 8080."  # never the sub-agent's words
    assert port.files == ("conf/app.toml",)
    assert port.tools == ("Read", "WebFetch")  # the sidechain's fetch counts for the turn
    assert port.tainted
    assert notes.asked == "Look up the release notes and update the changelog"
    assert notes.files == ("CHANGELOG.md", "/etc/hostname", "build/stale.txt")
    assert notes.edited == ("CHANGELOG.md", "build/stale.txt")
    assert notes.answered == "First part of the answer.\n\nSecond part of the answer."
    assert bump.asked == "also bump the version"  # queued while Claude was busy
    assert bump.asked_at == as_utc("2026-02-02T09:00:08+00:00")
    assert (bump.edited, bump.tainted) == (("/elsewhere/VERSION",), False)
    check_invariants(report.turns)


def test_claude_code_sub_agent_files_feed_their_parent_turn() -> None:
    root = FIXTURES / "claude_subagents"
    assert list(FORMATS["claude-code"].discover(root)) == [root / "sess-1.jsonl"]
    (turn,) = read("claude-code", root / "sess-1.jsonl").turns
    assert turn.tools == ("Task", "WebSearch", "Read")
    assert turn.files == ("pyproject.toml",)
    assert turn.tainted
    assert turn.answered == "Here is what the sub-agent found."
    sidechain = read("claude-code", root / "sess-1" / "subagents" / "agent-abc123.jsonl")
    assert sidechain.turns == []


def test_codex_edge_cases() -> None:
    report = read("codex", FIXTURES / "codex_edge.jsonl")
    assert (report.skipped, len(report.problems)) == (2, 2)
    health, test = report.turns
    assert health.turn_id == "codex:cx-1:0"
    assert health.asked == "check the health endpoint and fix the handler"
    assert health.tools == ("exec_command", "shell", "apply_patch")
    assert health.files == ("src/handler.py", "src/new.py", "src/old.py", "src/gone.py")
    assert health.edited == ("src/new.py", "src/old.py", "src/gone.py")
    assert health.tainted  # curl in exec_command
    assert health.answered == "Working on it.\n\nFixed the handler."  # the event repeats it
    assert test.edited == ("tests/test_handler.py",)
    assert test.tools == ("apply_patch", "web_search")
    assert test.tainted


def test_aider_edge_cases() -> None:
    report = read("aider", FIXTURES / "edge.aider.chat.history.md")
    assert report.skipped == 1  # the stray line before the first session
    loop, upstream, watch, question = report.turns
    assert loop.asked == "fix the off-by-one\nin the loop"
    assert loop.asked_at == as_utc("2025-05-01 09:30:00")
    assert loop.files == ("NOTES.md", "src/app.py", "src/util.py")
    assert loop.edited == ("src/app.py",)
    assert loop.tools == ("/add", "edit")
    # The first reply, the corrected block after aider's "failed to match", and the reply after
    # the file was added: one answer; aider's own echo of the failed block is not in it.
    assert loop.answered.startswith("I will fix the loop bound.\n\nsrc/app.py")
    assert "\n\nHere is the corrected block:\n\nsrc/app.py" in loop.answered
    assert loop.answered.endswith("\n\nThanks, the helper in src/util.py is fine as it is.")
    assert "SearchReplaceNoExactMatch" not in loop.answered
    assert upstream.asked == "/ask what changed upstream?"
    assert upstream.tools == ("/web", "shell")
    assert upstream.tainted
    assert upstream.answered == "The changelog lists a new `--strict` flag."
    assert watch.asked == WATCH_REQUEST
    assert watch.session_id != loop.session_id
    assert watch.edited == ("src/app.py",)
    assert "private reasoning" not in watch.answered
    assert question.asked.endswith("why is n global?")
    assert question.answered == "Because it is read by two functions."


@pytest.mark.parametrize(
    ("fmt", "name", "cut"),
    [
        ("claude-code", "claude_edge.jsonl", 20),
        ("codex", "codex_edge.jsonl", 12),
        ("aider", "edge.aider.chat.history.md", 60),
    ],
)
def test_a_grown_file_keeps_its_earlier_turn_ids(
    fmt: str, name: str, cut: int, tmp_path: Path
) -> None:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines(keepends=True)
    copy = tmp_path / name
    copy.write_text("".join(lines[:cut]), encoding="utf-8")
    before = [turn.turn_id for turn in read(fmt, copy).turns]
    copy.write_text("".join(lines), encoding="utf-8")
    after = [turn.turn_id for turn in read(fmt, copy).turns]
    assert 0 < len(before) < len(after)
    assert after[: len(before)] == before


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_unreadable_files_give_a_problem_not_an_exception(fmt: str, tmp_path: Path) -> None:
    for path in (tmp_path / "missing.jsonl", tmp_path):
        report = read(fmt, path)
        assert report.turns == []
        assert len(report.problems) == 1
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(bytes(range(256)) * 4)
    assert read(fmt, binary).turns == []


def test_tainting_tools() -> None:
    assert {"WebFetch", "WebSearch", "web_search", "/web"} <= TAINTING_TOOLS
    assert is_tainting_tool("mcp__fetch__fetch")
    assert is_tainting_tool("mcp__playwright__browser_navigate")
    assert not is_tainting_tool("mcp__private-journal__process_thoughts")
    assert not is_tainting_tool("Read")


def test_shell_commands_name_only_what_they_clearly_touch() -> None:
    facts = shell_facts("nl -ba src/a.ts | sed -n '9,20p' && head -n 5 b.txt 2>/dev/null")
    assert (facts.read, facts.edited, facts.tainted) == (["src/a.ts", "b.txt"], [], False)
    facts = shell_facts("sed -i 's/a/b/' c.py; rm -f d.py; echo x > e.txt; cat *.md $F")
    assert (facts.read, facts.edited) == ([], ["c.py", "d.py", "e.txt"])
    facts = shell_facts("cat <<'EOF' > notes.md\nrm not-a-command\nEOF\nwget -q https://x.y")
    assert (facts.edited, facts.tainted) == (["notes.md"], True)
    assert shell_facts("rg -n 'curly' src; ls; git status") == shell_facts("")


def test_detect_finds_formats_with_transcripts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert detect() == []
    sessions = tmp_path / ".codex" / "sessions" / "2026" / "01" / "02"
    sessions.mkdir(parents=True)
    (sessions / "rollout-x.jsonl").write_text("{}\n", encoding="utf-8")
    (tmp_path / ".aider.chat.history.md").write_text("", encoding="utf-8")
    assert [fmt.name for fmt in detect()] == ["codex", "aider"]


# fmt: off
JSON_WORDS = st.sampled_from([
    "type", "message", "content", "role", "text", "name", "input", "payload", "isSidechain",
    "isMeta", "uuid", "sessionId", "timestamp", "attachment", "toolUseResult", "agentId",
    "file_path", "command", "arguments", "cmd", "id", "kind", "prompt", "user", "assistant",
    "tool_use", "tool_result", "session_meta", "event_msg", "response_item", "user_message",
    "function_call", "custom_tool_call", "message", "queued_command", "2026-01-01T00:00:00Z",
])
# fmt: on
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | JSON_WORDS | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(JSON_WORDS, inner, max_size=5),
    max_leaves=16,
)
JSON_LINES = st.dictionaries(JSON_WORDS, JSON_VALUES, max_size=6).map(json.dumps) | st.text()
AIDER_LINES = st.sampled_from(
    [
        "# aider chat started at 2025-01-01 10:00:00",
        "#### hello",
        "#### /add a.py",
        "####",
        "> Processing your request...",
        "> Added a.py to the chat",
        "> Applied edit to a.py",
        "> # 1 SEARCH/REPLACE block failed to match!",
        "> Running curl x",
        "<<<<<<< SEARCH",
        "```",
        "<thinking-content-1>",
        "",
        "words",
    ]
) | st.text(max_size=30)


@given(st.lists(JSON_LINES, max_size=12), st.lists(AIDER_LINES, max_size=30))
def test_any_input_is_read_without_raising(json_lines: list[str], aider_lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        jsonl = Path(folder) / "t.jsonl"
        jsonl.write_text("\n".join(json_lines), encoding="utf-8", errors="surrogatepass")
        history = Path(folder) / ".aider.chat.history.md"
        history.write_text("\n".join(aider_lines), encoding="utf-8", errors="surrogatepass")
        for fmt, path in (("claude-code", jsonl), ("codex", jsonl), ("aider", history)):
            report = read(fmt, path)
            assert report.skipped <= report.lines
            check_invariants(report.turns)
