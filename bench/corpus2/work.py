"""The second corpus's work logs: what a turn ran, what failed and what it edited, in the
importers' line format (history/importers/whole.py), up to the work length of the real turn
its other lengths came from (`lengths.json`; a quarter of real turns did no work).

Commands and failures are the project's own (bench.corpus2.world); an edit names a file of the
session's working set (the turn's edited files first) and adds or removes lines of code built
from the session's identifiers, the project's dotted names and exceptions, and its prose words.
Drawn from an RNG of their own, so the asked and answered texts are the same with or without.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bench.corpus2.world import Project, command, error_lines
from history.importers.whole import ADDED, EDIT_LINES, EDITED, FAILED, FAILURE_LINES, RAN, REMOVED
from history.query import words as index_words

# Shares of the entries: a command, a failure, an edit.
ENTRY_WEIGHTS = (45, 10, 45)
# Tries to fit the last entry into the words left before the log stops short of them.
FIT_TRIES = 12


def _code_line(rng: random.Random, project: Project, names: Sequence[str], prose: list[str]) -> str:
    name, other = rng.choice(names), rng.choice(names)
    word = rng.choice(prose).lower()
    dotted, exception = rng.choice(project.dotted), rng.choice(project.exceptions)
    return rng.choice(
        (
            f"{name} = {dotted}({other})",
            f"def {name}(self, {other}: str) -> bool:",
            f"    return self.{name}.get({word!r})",
            f"if not {name}:",
            f'    raise {exception}("{word} {rng.choice(prose).lower()}")',
            f"from {project.package} import {name}",
            f"    for {word} in {other}:",
            f"# {' '.join(rng.choices(prose, k=rng.randint(3, 8))).lower()}",
        )
    )


def _entry(
    rng: random.Random,
    project: Project,
    files: Sequence[str],
    names: Sequence[str],
    prose: list[str],
) -> list[str]:
    kind = rng.choices(range(3), weights=ENTRY_WEIGHTS)[0]
    if kind == 0:
        return [RAN + command(rng, project)]
    if kind == 1:
        return [FAILED + line for line in error_lines(rng, project, prose)[:FAILURE_LINES]]
    lines = [EDITED + rng.choice(files)]
    for prefix in (REMOVED, ADDED):
        if prefix == ADDED or rng.random() < 0.4:
            count = rng.randint(1, EDIT_LINES)
            lines += [prefix + _code_line(rng, project, names, prose) for _ in range(count)]
    return lines


def work_log(
    rng: random.Random,
    wanted: int,
    project: Project,
    files: Sequence[str],
    names: Sequence[str],
    prose: list[str],
) -> str:
    """Entries until `wanted` words (as the index splits them); the last one cut to fit, or
    left out when even its first line does not."""
    lines: list[str] = []
    count = tries = 0
    while count < wanted and tries < FIT_TRIES:
        entry = _entry(rng, project, files, names, prose)
        sizes = [len(index_words(line)) for line in entry]
        kept = 0
        while kept < len(entry) and count + sum(sizes[: kept + 1]) <= wanted:
            kept += 1
        if kept < len(entry):
            tries += 1
            if kept == 0 or (kept == 1 and entry[0].startswith(EDITED)):
                continue
        lines += entry[:kept]
        count += sum(sizes[:kept])
    return "\n".join(lines)
