"""`recall blame`: from a file, or a line of it, to the turns that wrote it, on a real git
repository built here (commits made by the test at set times, edits recorded as turns with
their work logs), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from history import HistoryIndex, blame
from history.blame_paths import locate, split_lines
from tests.helpers.cli_runs import recall
from tests.helpers.git_repo import LOGIN, at, edit, git

pytestmark = pytest.mark.both_backends


def test_a_file_gives_the_turns_that_edited_it_newest_first_with_their_added_and_removed_lines(
    shop: Path, index: HistoryIndex, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    code, out, _ = recall(capsys, "--database-url", database_url, "blame", str(shop / LOGIN))
    assert code == 0
    assert "2 turns edited src/auth/login.py" in out
    assert out.index("turn t2") < out.index("turn t1")
    assert "asked: Add login" in out and "please" not in out
    assert "+     return check(user)" in out
    # t2's edit, as a diff: the line it removed, then those it added.
    t2 = out[out.index("turn t2") : out.index("turn t1")]
    assert t2.index("-     return check(user)\n") < t2.index("+     return check(user, strict")
    assert "r1" not in out and "other" not in out  # read only; another project's file


def test_read_adds_the_turns_that_only_read_it(
    shop: Path, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    code, out, _ = recall(
        capsys, "--database-url", database_url, "blame", str(shop / LOGIN), "--read"
    )
    assert code == 0
    assert "3 turns edited or read" in out
    assert out.index("turn r1") < out.index("turn t2")
    assert "read: src/auth/login.py" in out


def test_a_path_relative_to_the_current_directory_inside_the_project(
    shop: Path,
    capsys: pytest.CaptureFixture[str],
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(shop / "src")
    code, out, _ = recall(
        capsys, "--database-url", database_url, "blame", "auth/login.py", "--json"
    )
    assert code == 0
    found = json.loads(out)
    assert found["path"] == LOGIN and found["project"] == str(shop)
    assert [turn["turn_id"] for turn in found["turns"]] == ["t2", "t1"]
    assert found["turns"][1]["added"] == ["def login(user):", "    return check(user)"]
    assert found["turns"][0]["removed"] == ["    return check(user)"]
    assert found["turns"][1]["removed"] == []
    assert found["removed_lines_recorded"] is True


def test_a_file_no_turn_touched_exits_1_and_says_so(
    shop: Path, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    (shop / "README").write_text("hi\n")
    code, out, err = recall(capsys, "--database-url", database_url, "blame", str(shop / "README"))
    assert code == 1 and out == ""
    assert f"No recorded turn edited README ({shop})." in err


def test_each_line_gets_the_turn_that_wrote_it_and_how_sure_that_is(
    shop: Path, index: HistoryIndex
) -> None:
    target = blame.find(index, str(shop / LOGIN), shop)
    turns = blame.file_turns(index, target)
    lines = blame.current_lines(target, 1, 5)
    origins = {o.number: o for o in blame.line_origins(target, turns, lines, 1, follow=False)}
    # The line no turn wrote: committed before any turn.
    assert origins[1].origin is None and origins[1].commit is not None
    # Written by t1; t2 wrote the same text again, but git dates the line from t1's commit.
    assert origins[2].origin is not None and origins[2].origin.turn.turn_id == "t1"
    assert origins[2].how == ("exact text", "same commit")
    # Edited by t1, then by t2: the later one wins.
    assert origins[3].origin is not None and origins[3].origin.turn.turn_id == "t2"
    assert origins[3].how == ("exact text", "same commit")
    # Its text is in no work log: git's commit, the first after t2.
    assert origins[4].origin is not None and origins[4].origin.turn.turn_id == "t2"
    assert origins[4].how == ("same commit",)
    # A commit after another one of the file: the nearest turn before it, said to be a guess.
    assert origins[5].origin is not None and origins[5].how == ("nearest in time",)
    assert origins[5].origin.turn.turn_id == "t2"


def test_a_line_by_the_cli_says_who_wrote_it_and_a_line_no_turn_wrote(
    shop: Path, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    code, out, _ = recall(capsys, "--database-url", database_url, "blame", f"{shop / LOGIN}:1-2")
    assert code == 0
    assert "Who wrote lines 1 to 2 of src/auth/login.py" in out
    first, second = out.split("\n1: ")[1].split("\n2: ")
    assert "no recorded turn wrote this line" in first and "commit " in first
    assert "turn t1" in second and "exact text + same commit" in second
    code, out, _ = recall(
        capsys, "--database-url", database_url, "blame", f"{shop / LOGIN}:1", "--json"
    )
    assert code == 1
    assert json.loads(out)["lines"][0]["turn"] is None


def test_a_line_past_the_end_is_a_usage_error(
    shop: Path, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    code, _, err = recall(capsys, "--database-url", database_url, "blame", f"{shop / LOGIN}:99")
    assert code == 2 and err.strip() == f"recall blame: {shop / LOGIN} has 5 lines"


def test_lines_without_git_go_by_the_text_alone_the_later_turn_winning(
    tmp_path: Path, index: HistoryIndex
) -> None:
    plain = tmp_path / "plain"
    (plain / "src/auth").mkdir(parents=True)
    (plain / LOGIN).write_text("def login(user):\nx = 1\n")
    edit(index, "p1", plain, ["def login(user):"], 2, "login")
    edit(index, "p2", plain, ["  def login(user):  "], 1, "login again")
    target = blame.find(index, LOGIN, plain)
    origins = blame.line_origins(
        target, blame.file_turns(index, target), blame.current_lines(target, 1, 2), 1, False
    )
    assert origins[0].origin is not None and origins[0].origin.turn.turn_id == "p2"
    assert origins[0].how == ("exact text",)
    assert origins[1].origin is None and origins[1].commit is None


def test_a_renamed_file_is_found_with_follow(
    shop: Path, capsys: pytest.CaptureFixture[str], database_url: str
) -> None:
    git(shop, "mv", LOGIN, "src/auth/signin.py")
    git(shop, "commit", "-q", "-m", "rename", when=at(0.1))
    signin = str(shop / "src/auth/signin.py")
    code, _, _ = recall(capsys, "--database-url", database_url, "blame", signin)
    assert code == 1
    code, out, _ = recall(capsys, "--database-url", database_url, "blame", signin, "--follow")
    assert code == 0
    assert "turn t2" in out and "turn t1" in out
    assert "edited: src/auth/login.py" in out


def test_a_forgotten_turn_is_gone_from_blame(shop: Path, index: HistoryIndex) -> None:
    assert index.forget_session("conv-t2") == 1
    target = blame.find(index, str(shop / LOGIN), shop)
    turns = blame.file_turns(index, target)
    assert [turn.turn.turn_id for turn in turns] == ["t1"]
    lines = blame.current_lines(target, 3, 3)
    (origin,) = blame.line_origins(target, turns, lines, 3, follow=False)
    assert origin.origin is not None and origin.origin.turn.turn_id == "t1"
    assert origin.how == ("nearest in time",)


def test_a_path_belongs_to_the_longest_project_holding_it() -> None:
    projects = ["/code/shop", "/code/shop/vendor/lib", "/code/sho"]
    assert locate(Path("/code/shop/vendor/lib/x.py"), projects) == ("/code/shop/vendor/lib", "x.py")
    assert locate(Path("/code/shop/src/a.py"), projects) == ("/code/shop", "src/a.py")
    assert locate(Path("/elsewhere/a.py"), projects) == (None, "/elsewhere/a.py")


def test_lines_are_read_from_the_path() -> None:
    assert split_lines("a.py:12") == ("a.py", (12, 12))
    assert split_lines("a.py:3-9") == ("a.py", (3, 9))
    assert split_lines("a.py") == ("a.py", None)
    with pytest.raises(ValueError):
        split_lines("a.py:9-3")
