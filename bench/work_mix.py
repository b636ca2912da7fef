"""The standard corpus's turns with a work log each, as the importers write it
(history/importers/whole.py): the shell commands a turn ran, the first lines of a failed tool
result, and for each edited file the lines the edit added.

The turns are bench.corpus's, unchanged but for `work`, which is drawn from an RNG of its own
(so the asked, answered and file fields, and the standard queries, are the standard mix's).
Sizes follow what the real transcripts in tests/fixtures/corpus hold: 0-4 commands a turn, a
failure in one turn of eight, 2-40 added lines an edit (the importers kept 40 when this mix was
made, 10 since: the mix stays as it was, so its numbers compare with the earlier ones); about
340 characters a turn on average (the answers: about 635), at most ~4,200.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from datetime import datetime

from bench import corpus
from bench.corpus import GeneratedTurn
from bench.vocabulary import vocabulary

COMMANDS = (
    "pytest -q {path}",
    "git diff --stat",
    "ruff check {path}",
    "python -m {word}.{other}",
    "grep -rn {word} src",
    "git log --oneline -5 -- {path}",
    "npm test -- {word}",
    "ls {dir}",
    "cat {path}",
    "make {word}",
)
FAILURES = (
    "FAILED {path}::test_{word} - AssertionError: {word} != {other}",
    'Traceback (most recent call last):\n  File "{path}", line {n}, in {word}\n'
    "NameError: name '{other}' is not defined",
    "error: {path}:{n}: {word} has no attribute {other}",
    "command not found: {word}",
)
CODE = (
    "def {word}_{other}(self, {other}: str) -> bool:",
    "    return self.{word}.get({other!r}, None)",
    "    {word} = {other}({n})",
    "if not {word}:",
    '    raise ValueError("{word} {other}")',
    "from .{word} import {other}",
    "{word}_{other} = {n}",
    "    for {word} in {other}:",
)


def _fill(rng: random.Random, template: str, path: str, words: list[str]) -> str:
    word, other = rng.choice(words), rng.choice(words)
    directory = path.rsplit("/", 1)[0] if "/" in path else "."
    return template.format(path=path, dir=directory, word=word, other=other, n=rng.randint(1, 400))


def work_of(rng: random.Random, turn: GeneratedTurn, words: list[str]) -> str:
    """A work log for `turn`, in the importers' line format."""
    files = turn.files or ("README.md",)
    entries: list[str] = []
    for _ in range(rng.choices((0, 1, 2, 3, 4), weights=(30, 30, 20, 12, 8))[0]):
        entries.append("$ " + _fill(rng, rng.choice(COMMANDS), rng.choice(files), words))
    if rng.random() < 0.125:
        failure = _fill(rng, rng.choice(FAILURES), rng.choice(files), words)
        entries.append("\n".join("! " + line for line in failure.splitlines()))
    for path in turn.edited:
        added = [_fill(rng, rng.choice(CODE), path, words) for _ in range(rng.randint(2, 40))]
        entries.append("\n".join(["~ " + path, *("+ " + line for line in added)]))
    return "\n".join(entries)


def turns(seed: int = 7, end: datetime | None = None) -> Iterator[GeneratedTurn]:
    """bench.corpus.turns(seed, end), each with its work log."""
    rng = random.Random(f"work-{seed}")
    words = [word for word in vocabulary()[100:3000] if word.isidentifier()]
    for turn in corpus.turns(seed, end):
        yield dataclasses.replace(turn, work=work_of(rng, turn, words))
