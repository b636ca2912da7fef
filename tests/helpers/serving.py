"""`recall serve` as a real process on a free loopback port, told by its own start-up line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

RECALL = Path(sys.executable).parent / "recall"
LISTENING = re.compile(r"recall serve: listening on (http://127\.0\.0\.1:(\d+)) \((.*)\)$")


@dataclass
class Server:
    process: subprocess.Popen[str]
    base: str
    port: int
    serving: str
    lines: list[str] = field(default_factory=list)  # what it wrote on stderr, line by line

    def wait_for_line(self, needle: str, seconds: float = 10) -> str:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if needle in line:
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no line with {needle!r} in {self.lines}")


@contextmanager
def recall_serve(home: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """Start `recall serve --port 0 ARGS` over `home`; stop it (SIGTERM) afterwards."""
    process = subprocess.Popen(
        [str(RECALL), "serve", "--port", "0", *args],
        env={**os.environ, "RECALL_HOME": str(home), **(env or {})},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    threading.Thread(target=_collect, args=(process, lines), daemon=True).start()
    try:
        deadline = time.monotonic() + 60
        while not (found := next(filter(None, map(LISTENING.search, lines)), None)):
            assert process.poll() is None, f"recall serve ended: {lines}"
            assert time.monotonic() < deadline, f"recall serve did not start: {lines}"
            time.sleep(0.05)
        yield Server(process, found[1], int(found[2]), found[3], lines)
    finally:
        if process.poll() is None:
            process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _collect(process: subprocess.Popen[str], lines: list[str]) -> None:
    assert process.stderr is not None
    for line in process.stderr:
        lines.append(line.rstrip())
