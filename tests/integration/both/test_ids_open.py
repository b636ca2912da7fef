"""An id that search prints opens what it names: whole ids everywhere a turn is named, and the
start of an id (8 characters or more) opening its one turn in `recall show`, recall_turn and
GET /api/code/turns/{id}; an ambiguous start names its candidates."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text

from history import HistoryIndex
from history.api import create_app
from history.cli import main
from history.index import AmbiguousTurnId
from history.tools.recall_history import RecallHistoryTool
from history.tools.recall_turn import RecallTurnTool
from tests.helpers.engines import engine_of

pytestmark = pytest.mark.both_backends

NOW = datetime.now(UTC)
SESSION = "c64cc478-5d3e-4f4a-9a43-0b8f3c1d2e4f"
# Claude Code's shape: the agent, the conversation, the prompt's uuid (85 characters).
CLAUDE_IDS = [f"claude-code:{SESSION}:{n}b4951f2-dc07-4a1e-8c3b-5e6f7a8b9c0d" for n in range(3)]


def record(index: HistoryIndex, turn_id: str, session_id: str = SESSION, **extra: Any) -> None:
    extra.setdefault("project", "/w/shop")
    extra.setdefault("asked", f"asked in {turn_id}")
    extra.setdefault("answered", f"answered in {turn_id}")
    extra.setdefault("asked_at", NOW - timedelta(hours=1))
    assert index.record(turn_id=turn_id, session_id=session_id, **extra)


@pytest.fixture
def claude(index: HistoryIndex) -> HistoryIndex:
    for turn_id in CLAUDE_IDS:
        record(index, turn_id)
    record(index, "rate_100%:a", "conv-2")
    record(index, "rateX100Y:a", "conv-2")
    return index


def test_a_unique_start_of_eight_characters_or_more_opens_its_turn(claude: HistoryIndex) -> None:
    whole = CLAUDE_IDS[1]
    for start in (whole[:-1], whole[:-20], f"{whole[:-1]}…"):
        found = claude.turn(start, prefix=True)
        assert found is not None and found.turn_id == whole
    # `%` and `_` are characters of the id, not patterns.
    found = claude.turn("rate_100", prefix=True)
    assert found is not None and found.turn_id == "rate_100%:a"
    assert claude.turn_ids_by_prefix("rate_100%") == ["rate_100%:a"]


def test_an_exact_id_comes_first_and_a_short_or_unknown_start_opens_nothing(
    claude: HistoryIndex,
) -> None:
    record(claude, "abcdefgh", "conv-3")
    record(claude, "abcdefgh-2", "conv-3")
    exact = claude.turn("abcdefgh", prefix=True)
    assert exact is not None and exact.turn_id == "abcdefgh"
    assert claude.turn("rate_10", prefix=True) is None  # 7 characters: not a start
    assert claude.turn("claude-code:ffff", prefix=True) is None
    assert claude.turn(CLAUDE_IDS[0][:-1]) is None  # without prefix=True, exact ids only
    assert claude.turn("abc\x00defghij", prefix=True) is None


def test_an_ambiguous_start_names_the_first_ten_candidates_and_counts_them(
    claude: HistoryIndex,
) -> None:
    many = [f"claude-code:{SESSION}:zz{n:02}" for n in range(12)]
    for turn_id in many:
        record(claude, turn_id)

    with pytest.raises(AmbiguousTurnId) as raised:
        claude.turn(f"claude-code:{SESSION}:zz", prefix=True)
    assert raised.value.candidates == many[:10] and raised.value.count == 12
    assert raised.value.counted

    with pytest.raises(AmbiguousTurnId) as raised:
        claude.turn("claude-code:c64cc478", prefix=True)
    assert raised.value.candidates == sorted([*CLAUDE_IDS, *many])[:10]
    assert raised.value.count == 15


def test_a_turn_a_forget_is_still_deleting_is_never_opened_by_its_start(
    claude: HistoryIndex,
) -> None:
    # A forget cut short: its work is owed. (PostgreSQL deletes a forgotten conversation's
    # turns in one transaction, but its views read forget_work as SQLite's do.)
    with engine_of(claude).begin() as conn:
        conn.execute(
            text(
                "INSERT INTO forget_work (session_id, project, owed_at)"
                " VALUES (:session, NULL, :now)"
            ),
            {"session": SESSION, "now": NOW},
        )
    assert claude.turn("claude-code:c64cc478", prefix=True) is None
    assert claude.turn_ids_by_prefix("claude-code:") == []
    assert claude.turn_ids_by_prefix("rate_100") == ["rate_100%:a"]


def test_recall_show_opens_a_start_and_lists_an_ambiguous_ones_candidates(
    claude: HistoryIndex, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    def show(*args: str) -> tuple[int, str, str]:
        code = main(["--database-url", database_url, "show", *args])
        out, err = capsys.readouterr()
        return code, out, err

    code, out, _ = show(CLAUDE_IDS[2][:60], "--json")
    assert code == 0 and json.loads(out)["turn_id"] == CLAUDE_IDS[2]

    code, out, err = show("claude-code:c64cc478")
    assert code == 2 and not out
    lines = err.splitlines()
    assert lines[0] == (
        "recall show: 'claude-code:c64cc478' starts 3 turn ids; give more of the one you mean:"
    )
    assert lines[1:] == [f"  {turn_id}" for turn_id in CLAUDE_IDS]

    code, _, err = show("claude-")
    assert code == 1 and "no turn has the id 'claude-'" in err


def test_recall_turn_opens_a_start_and_names_an_ambiguous_ones_candidates_in_one_line(
    claude: HistoryIndex,
) -> None:
    tool = RecallTurnTool(claude, "/w/shop")
    opened = tool.run(CLAUDE_IDS[0][:-3])
    assert opened.splitlines()[0].startswith(f"turn {CLAUDE_IDS[0]} · ")
    around = tool.run(CLAUDE_IDS[1][:-3], radius=1)
    assert f"turn {CLAUDE_IDS[1]} · " in around and "← this one" in around

    several = tool.run("claude-code:c64cc478")
    assert several == (
        'error: turn_id "claude-code:c64cc478" starts 3 turn ids: '
        + ", ".join(CLAUDE_IDS)
        + "; pass a whole id."
    )
    assert tool.run("claude-").startswith("error: no turn has the id")


def test_the_http_turn_view_opens_a_start_and_answers_409_with_the_candidates(
    claude: HistoryIndex,
) -> None:
    with TestClient(create_app(claude)) as client:
        opened = client.get(f"/api/code/turns/{quote(CLAUDE_IDS[0][:60], safe='')}")
        assert opened.status_code == 200 and opened.json()["turn_id"] == CLAUDE_IDS[0]

        several = client.get("/api/code/turns/claude-code:c64cc478")
        assert several.status_code == 409
        body = several.json()
        assert body["candidates"] == CLAUDE_IDS and body["count"] == 3 and body["counted"]
        assert body["detail"].startswith("more than one turn id starts with this")

        assert client.get("/api/code/turns/claude-").status_code == 404
        spoken = client.get(
            "/api/code/turns/claude-code:c64cc478", headers={"Accept-Language": "fr"}
        )
        assert spoken.status_code == 409 and spoken.headers["Vary"] == "Accept-Language"


def test_search_names_a_claude_code_turn_whole_in_text_and_json(
    claude: HistoryIndex, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    words = ["--database-url", database_url, "search", "asked", "--project", "/w/shop"]
    assert main(words) == 0
    out = capsys.readouterr().out
    for turn_id in CLAUDE_IDS:
        assert f"turn {turn_id} · conversation {SESSION}" in out
    assert "…" not in out.split("\n\n", 1)[1].splitlines()[0]

    assert main([*words, "--json"]) == 0
    assert {hit["turn_id"] for hit in json.loads(capsys.readouterr().out)} >= set(CLAUDE_IDS)


def test_recall_show_prints_long_file_paths_whole(
    index: HistoryIndex, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "/w/shop/" + "/".join(f"level{n}" for n in range(30)) + "/settings.py"
    record(index, CLAUDE_IDS[0], edited=[deep], files=["/elsewhere/" + "x" * 120 + ".md"])
    assert main(["--database-url", database_url, "show", CLAUDE_IDS[0]]) == 0
    out = capsys.readouterr().out
    assert f"edited: {deep.removeprefix('/w/shop/')}\n" in out
    assert "read: /elsewhere/" + "x" * 120 + ".md\n" in out


def test_an_outlandishly_long_id_is_shown_cut_and_its_shown_form_opens_it(
    index: HistoryIndex,
) -> None:
    long_id = "t-" + "9" * 300
    record(index, long_id, asked="the rotation of keys")
    tool = RecallTurnTool(index, "/w/shop")
    found = RecallHistoryTool(index, "/w/shop").run("rotation")
    shown = found.split(" · turn ", 1)[1].split(" · conversation ", 1)[0]
    assert shown.endswith("…") and len(shown) == 120
    assert tool.run(shown).splitlines()[0].startswith(f"turn {long_id} · ")


def test_a_path_into_the_turn_view_keeps_its_own_characters(claude: HistoryIndex) -> None:
    with TestClient(create_app(claude)) as client:
        for start in ("rate_100%", "rate_100"):
            found = client.get(f"/api/code/turns/{quote(start, safe='')}")
            assert found.status_code == 200 and found.json()["turn_id"] == "rate_100%:a"
