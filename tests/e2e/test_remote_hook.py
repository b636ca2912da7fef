"""`recall hook claude-code --server URL`: the finished turn goes to a real `recall serve` on
127.0.0.1, redacted before it leaves; while the service is down it waits in the outbox (0600
files in a 0700 folder) and goes with the next hook, so no turn is lost across a restart."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.ports import free_port
from tests.helpers.remote_service import (
    HOOK,
    TAP_HOST,
    Service,
    WireTap,
    add_turn,
    hook_env,
    hook_input,
    run_hook,
    running,
    waiting,
)

GITHUB_TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
DB_PASSWORD = "Sup3rS3cretPw"
SECRETS = (GITHUB_TOKEN.encode(), DB_PASSWORD.encode())


@pytest.fixture
def service(tmp_path: Path) -> Service:
    return Service(tmp_path / "server")


@pytest.fixture
def client_home(tmp_path: Path) -> Path:
    return tmp_path / "client"


def test_the_hook_posts_the_turn_to_the_service_and_writes_no_local_history(
    service: Service, client_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    turn = add_turn(transcript, "s1", 1, "how should login hash passwords", "with argon2id")
    with running(service):
        done = run_hook(client_home, transcript, "s1", service.url)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert service.turns()[turn] == {
            "asked": "how should login hash passwords",
            "answered": "with argon2id",
        }
    assert not (client_home / "history.db").exists()
    assert waiting(client_home) == []


def test_turns_wait_while_the_service_is_down_and_none_is_lost_across_a_restart(
    service: Service, client_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    first = add_turn(transcript, "s1", 1, "add a cart total test", "added it")
    with running(service):
        assert run_hook(client_home, transcript, "s1", service.url).returncode == 0
    # Stopped: the next two turns wait, redacted, in private files.
    second = add_turn(transcript, "s1", 2, "rename the checkout button", "renamed it")
    down = run_hook(client_home, transcript, "s1", service.url)
    third = add_turn(transcript, "s1", 3, "speed up the cart page", "cached the cart")
    down_again = run_hook(client_home, transcript, "s1", service.url)
    assert (down.returncode, down.stdout, down_again.stdout) == (0, "", "")
    assert "cannot take turns now" in down.stderr and "1 turn waits" in down.stderr
    assert "2 turns wait" in down_again.stderr
    queued = waiting(client_home)
    assert [json.loads(p.read_bytes())["turn_id"] for p in queued] == [second, third]
    assert stat.S_IMODE((client_home / "outbox").stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in queued} == {0o600}
    # Started again on the same port: the next hook takes what waited, and its own turn.
    fourth = add_turn(transcript, "s1", 4, "add a coupon field", "added the coupon field")
    with running(service):
        back = run_hook(client_home, transcript, "s1", service.url)
        assert (back.returncode, back.stdout) == (0, "")
        assert set(service.turns()) == {first, second, third, fourth}
    assert waiting(client_home) == []


def test_a_turn_asked_again_with_a_longer_answer_reaches_the_service_in_its_last_version(
    service: Service, client_home: Path, tmp_path: Path
) -> None:
    """Versions of one turn queued while the service was down go in order: the last wins."""
    transcript = tmp_path / "s1.jsonl"
    turn = add_turn(transcript, "s1", 1, "fix the flaky login test", "looking")
    run_hook(client_home, transcript, "s1", service.url)
    with transcript.open("a") as out:  # the same turn's answer grows
        line = {**json.loads(transcript.read_text().splitlines()[1]), "uuid": "s1-a1b"}
        line["message"] = {"role": "assistant", "content": [{"type": "text", "text": "fixed"}]}
        out.write(json.dumps(line) + "\n")
    run_hook(client_home, transcript, "s1", service.url)
    assert len(waiting(client_home)) == 2
    with running(service):
        run_hook(client_home, transcript, "s1", service.url)
        assert service.turns()[turn]["answered"].endswith("fixed")


def test_no_secret_reaches_the_outbox_the_wire_or_the_services_database(
    client_home: Path, tmp_path: Path
) -> None:
    service = Service(tmp_path / "server", None, TAP_HOST)
    transcript = tmp_path / "s1.jsonl"
    asked = f"deploy with {GITHUB_TOKEN} please"
    answered = f"connected to postgres://admin:{DB_PASSWORD}@db.internal/prod"
    add_turn(transcript, "s1", 1, asked, answered)
    with running(service):
        tap = WireTap(service.port)
        try:
            tapped = tap.url
            assert run_hook(client_home, transcript, "s1", tapped).returncode == 0
            assert b"[redacted:github-token]" in tap.sent  # it did go through the tap
            assert not any(secret in bytes(tap.sent) for secret in SECRETS)
            # While the service is away, the next turn waits in the outbox, redacted.
            unreachable = f"http://127.0.0.1:{free_port()}"
            again = f"postgres://ops:{DB_PASSWORD}@db2/prod"
            add_turn(transcript, "s1", 2, f"and {GITHUB_TOKEN} again", again)
            assert run_hook(client_home, transcript, "s1", unreachable).returncode == 0
            [queued] = waiting(client_home)
            assert not any(secret in queued.read_bytes() for secret in SECRETS)
            assert run_hook(client_home, transcript, "s1", tapped).returncode == 0
            assert waiting(client_home) == []
            assert b"[redacted:github-token]" in tap.sent  # it did go through the tap
            assert not any(secret in bytes(tap.sent) for secret in SECRETS)
        finally:
            tap.close()
        assert len(service.turns()) == 2
    assert not any(secret in service.stored_bytes() for secret in SECRETS)
    private = b"".join(p.read_bytes() for p in client_home.rglob("*") if p.is_file())
    assert not any(secret in private for secret in SECRETS)


def test_a_wrong_key_keeps_the_turn_waiting_until_the_key_is_right(
    service: Service, client_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    turn = add_turn(transcript, "s1", 1, "which key", "the right one")
    with running(service):
        wrong = run_hook(client_home, transcript, "s1", service.url, key="not-the-key")
        assert wrong.returncode == 0 and "refused the key (401" in wrong.stderr
        assert len(waiting(client_home)) == 1
        assert not (client_home / "outbox" / "refused").exists()
        right = run_hook(client_home, transcript, "s1", service.url)
        assert "1 turn that waited was delivered" in right.stderr
        assert turn in service.turns()
    assert waiting(client_home) == []


def test_a_turn_the_service_refuses_is_said_once_kept_aside_and_not_sent_again(
    service: Service, client_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    # A thousand long tool names and edited files: past the service's 2 MB body, a 413.
    transcript.write_text("\n".join(_lines_of_a_huge_turn(tmp_path)) + "\n")
    ordinary = add_turn(transcript, "s1", 2, "a small question", "a small answer")
    with running(service):
        first = run_hook(client_home, transcript, "s1", service.url)
        assert first.returncode == 0
        assert first.stderr.count("the service refused turn") == 1 and "413" in first.stderr
        again = run_hook(client_home, transcript, "s1", service.url)
        assert "refused" not in again.stderr
        assert set(service.turns()) == {ordinary}
    [kept] = (client_home / "outbox" / "refused").glob("*.json")
    assert json.loads(kept.read_text())["status"] == 413
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert waiting(client_home) == []


def _lines_of_a_huge_turn(tmp_path: Path) -> list[str]:
    big = tmp_path / "big.jsonl"
    add_turn(big, "s1", 1, "touch every file", "done")
    user, assistant = big.read_text().splitlines()
    tools = [
        {"type": "tool_use", "id": f"t{i}", "name": f"Tool{i}-" + "x" * 900, "input": {}}
        for i in range(1000)
    ] + [
        {
            "type": "tool_use",
            "id": f"e{i}",
            "name": "Edit",
            "input": {"file_path": f"/home/dev/shop/{i:04d}-" + "y" * 900 + ".py"},
        }
        for i in range(1000)
    ]
    said = json.loads(assistant)
    said["message"]["content"] = [*said["message"]["content"], *tools]
    return [user, json.dumps(said)]


def test_hooks_at_once_lose_no_turn_and_leave_no_draft(
    service: Service, client_home: Path, tmp_path: Path
) -> None:
    sessions = [f"s{n}" for n in range(4)]
    transcripts = {s: tmp_path / f"{s}.jsonl" for s in sessions}
    expected = {add_turn(transcripts[s], s, 1, f"question of {s}", "answer") for s in sessions}

    def all_at_once(server: str) -> None:
        hooks = [
            subprocess.Popen(
                [*HOOK, "--server", server],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=hook_env(client_home),
                text=True,
            )
            for _ in range(2)
            for s in sessions
        ]
        for hook, s in zip(hooks, sessions * 2, strict=True):
            out, _err = hook.communicate(hook_input(transcripts[s], s), timeout=120)
            assert (hook.returncode, out) == (0, "")

    all_at_once(service.url)  # down: every turn queued once per version, whole
    assert len(waiting(client_home)) in range(len(sessions), 2 * len(sessions) + 1)
    for path in waiting(client_home):
        assert json.loads(path.read_bytes())["turn_id"] in expected
    expected |= {add_turn(transcripts[s], s, 2, f"second of {s}", "again") for s in sessions}
    with running(service):
        all_at_once(service.url)
        assert set(service.turns()) == expected
    assert waiting(client_home) == []
    assert list((client_home / "outbox").glob(".draft-*")) == []


def test_hooks_killed_at_any_moment_leave_whole_files_and_lose_nothing(
    service: Service, client_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    expected = set()
    for n in range(1, 7):
        expected.add(add_turn(transcript, "s1", n, f"question {n}", f"answer {n}"))
        hook = subprocess.Popen(
            [*HOOK, "--server", service.url],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=hook_env(client_home),
        )
        assert hook.stdin is not None
        hook.stdin.write(hook_input(transcript, "s1").encode())
        hook.stdin.close()
        time.sleep(0.15 * n)  # from before the outbox exists to well after the write
        hook.kill()
        hook.wait()
    for path in waiting(client_home):
        assert json.loads(path.read_bytes())["turn_id"] in expected  # whole, or not there
    with running(service):
        assert run_hook(client_home, transcript, "s1", service.url).returncode == 0
        assert set(service.turns()) == expected
    assert waiting(client_home) == []


def test_a_hook_with_a_bad_address_keeps_the_turn_and_says_why(
    client_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    add_turn(transcript, "s1", 1, "where to", "nowhere yet")
    done = run_hook(client_home, transcript, "s1", "http://team.example.com")  # key, no TLS
    assert (done.returncode, done.stdout) == (0, "")
    assert "cannot be used as the service's address" in done.stderr and "https://" in done.stderr
    assert len(waiting(client_home)) == 1


def test_the_hook_to_a_service_imports_neither_the_index_nor_the_service(
    client_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    add_turn(transcript, "s1", 1, "hash the passwords", "with argon2id")
    listing = tmp_path / "modules.json"
    driver = (
        "import json, sys\nfrom history.cli import main\ntry:\n    main(sys.argv[2:])\n"
        "finally:\n    json.dump(sorted(sys.modules), open(sys.argv[1], 'w'))\n"
    )
    address = f"http://127.0.0.1:{free_port()}"
    subprocess.run(
        [sys.executable, "-c", driver, str(listing), "hook", "claude-code", "--server", address],
        input=hook_input(transcript, "s1"),
        env=hook_env(client_home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    modules = set(json.loads(listing.read_text()))
    assert "history.remote.client" in modules  # it did try to post
    heavy = ("sqlalchemy", "history.index", "history.store", "fastapi", "pydantic", "rich")
    assert sorted(m for m in modules if m.split(".")[0] in heavy or m in heavy) == []
    assert not [m for m in modules if m.startswith("history.store.") or m == "history.index"]


def test_the_environment_names_the_service_and_its_key(
    service: Service, client_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "s1.jsonl"
    turn = add_turn(transcript, "s1", 1, "from the environment", "yes")
    with running(service):
        done = subprocess.run(
            HOOK,
            input=hook_input(transcript, "s1"),
            env=hook_env(client_home, RECALL_SERVER=service.url),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        assert turn in service.turns()
    assert os.listdir(client_home / "outbox") != []  # the ledger of what went
    assert waiting(client_home) == []
