"""The README's fenced blocks, read as the tests that run them read them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.helpers.paths import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


NOT_RUN = re.compile(r"<!-- not run here: [^>]+-->\s*$")


@dataclass(frozen=True)
class Block:
    language: str
    text: str
    skipped: bool


def blocks() -> list[Block]:
    found = []
    for match in re.finditer(r"^```(\w+)\n(.*?)^```$", README, flags=re.S | re.M):
        before = README[: match.start()].rstrip("\n")
        skipped = bool(NOT_RUN.search(before.splitlines()[-1] if before else ""))
        found.append(Block(match.group(1), match.group(2), skipped))
    return found
