"""A team's service for the tests of posting turns: a real `recall serve` on one free loopback
port that can be stopped and started again on the same port (a restart), a Claude Code
transcript to feed `recall hook`, and a tap that keeps every byte a client sends."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from history import HistoryIndex
from tests.helpers.ports import free_port
from tests.helpers.serving import Server, recall_serve
from tests.helpers.templates import migrated_copy

TOKEN = "team-token-for-tests"
HOOK = [sys.executable, "-m", "history.cli", "hook", "claude-code"]


class Service:
    """`recall serve` over `home` on `port`, needing TOKEN; `start` and `stop` at will."""

    def __init__(self, home: Path, port: int | None = None, *allow_hosts: str) -> None:
        self.home, self.port, self.allow_hosts = home, port or free_port(), allow_hosts
        self.url = f"http://127.0.0.1:{self.port}"
        self._running: ExitStack | None = None
        self.server: Server | None = None

    def start(self) -> None:
        assert self._running is None
        database = self.home / "history.db"
        if not database.exists():  # a new team's database: copied at head, not migrated
            migrated_copy(database)
        stack = ExitStack()
        env = {"RECALL_TOKEN": TOKEN}
        self.server = stack.enter_context(
            recall_serve(
                self.home,
                "--port",
                str(self.port),
                *(f"--allow-host={host}" for host in self.allow_hosts),
                env=env,
            )
        )
        assert self.server.port == self.port
        self._running = stack

    def stop(self) -> None:
        if self._running is not None:
            self._running.close()
            self._running, self.server = None, None

    def turns(self) -> dict[str, dict[str, Any]]:
        """Every turn the service stored, by turn id, read from its database file."""
        index = HistoryIndex.open(self.home / "history.db")
        try:
            found = {}
            for session_id in index.session_ids():
                for turn in index.conversation(session_id):
                    found[turn.turn_id] = {"asked": turn.asked, "answered": turn.answered}
            return found
        finally:
            index.close()

    def stored_bytes(self) -> bytes:
        return b"".join(p.read_bytes() for p in self.home.glob("history.db*") if p.is_file())


@contextlib.contextmanager
def running(service: Service) -> Iterator[Service]:
    service.start()
    try:
        yield service
    finally:
        service.stop()


def prompt(session: str, n: int, text: str) -> dict[str, Any]:
    return {
        "type": "user",
        "uuid": f"{session}-u{n}",
        "sessionId": session,
        "cwd": "/home/dev/shop",
        "timestamp": f"2026-03-01T10:{n:02d}:00Z",
        "message": {"role": "user", "content": text},
    }


def reply(session: str, n: int, text: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "uuid": f"{session}-a{n}",
        "sessionId": session,
        "cwd": "/home/dev/shop",
        "timestamp": f"2026-03-01T10:{n:02d}:30Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }


def add_turn(transcript: Path, session: str, n: int, asked: str, answered: str) -> str:
    """One more finished turn in the transcript; its turn id."""
    with transcript.open("a", encoding="utf-8") as out:
        for line in (prompt(session, n, asked), reply(session, n, answered)):
            out.write(json.dumps(line) + "\n")
    return f"claude-code:{session}:{session}-u{n}"


def hook_input(transcript: Path, session: str) -> str:
    return json.dumps(
        {
            "transcript_path": str(transcript),
            "session_id": session,
            "cwd": "/home/dev/shop",
            "hook_event_name": "Stop",
        }
    )


def hook_env(home: Path, key: str | None = TOKEN, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RECALL_SERVER", "RECALL_KEY")}
    env["RECALL_HOME"] = str(home)
    if key is not None:
        env["RECALL_KEY"] = key
    return {**env, **more}


def run_hook(
    home: Path, transcript: Path, session: str, server: str, key: str | None = TOKEN
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*HOOK, "--server", server],
        input=hook_input(transcript, session),
        env=hook_env(home, key),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def waiting(home: Path) -> list[Path]:
    """The turns queued in the outbox (not a draft), oldest first."""
    folder = home / "outbox"
    found = folder.glob("*.json") if folder.exists() else []
    return sorted(p for p in found if not p.name.startswith("."))


TAP_HOST = "127.0.0.2"  # another loopback address: the service is told to answer to it


class WireTap:
    """A TCP proxy on TAP_HOST in front of 127.0.0.1's `target_port`, on the same port number
    (the service answers only to its own port), keeping what clients send."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.sent = bytearray()
        self._lock = threading.Lock()
        self._listener = socket.create_server((TAP_HOST, target_port))
        self.url = f"http://{TAP_HOST}:{target_port}"
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
            except OSError:
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, keep: bool) -> None:
        try:
            while chunk := source.recv(65536):
                if keep:
                    with self._lock:
                        self.sent += chunk
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
