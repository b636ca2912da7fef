"""The lengths of real whole turns, measured once and resampled by the second corpus.

`python -m bench.corpus2.lengths [CORPUS]` reads every transcript of the shared corpus (default:
`../shared/corpus` beside the repository or its worktrees) through the project's own importers
(`history.importers.FORMATS[name].read`), counts the words of each turn as the index splits
them (`history.query.words`: asked; answered, every assistant text; work, the work log) and
writes them to `lengths.json` beside this file, one triple per turn, so that a generated turn
takes its three lengths from one real turn together.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
LENGTHS = HERE / "lengths.json"
JITTER = 0.1  # a resampled length moves by up to 10% either way, so lengths are not all repeats


@dataclass(frozen=True, slots=True)
class TurnLengths:
    asked: int
    answered: int
    work: int


def shared_corpus() -> Path:
    """The real sessions the repository keeps for its tests (tests/fixtures/corpus)."""
    return Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "corpus"


def measure(corpus: Path) -> list[dict[str, object]]:
    """One record per turn the importers read: its format, file and three word counts."""
    from history.importers import FORMATS
    from history.query import words

    measured: list[dict[str, object]] = []
    for name, fmt in sorted(FORMATS.items()):
        folder = corpus / name
        if not folder.is_dir():
            continue
        for path in sorted(fmt.discover(folder)):
            for turn in fmt.read(path).turns:
                counts = [len(words(text)) for text in (turn.asked, turn.answered, turn.work)]
                measured.append({"format": name, "file": path.name, "lengths": counts})
    return measured


@cache
def real_lengths() -> tuple[TurnLengths, ...]:
    records = json.loads(LENGTHS.read_text(encoding="utf-8"))["turns"]
    return tuple(TurnLengths(*record["lengths"]) for record in records)


def resample(rng: random.Random) -> TurnLengths:
    """The lengths of one real turn, drawn uniformly, each moved by up to `JITTER`."""
    real = rng.choice(real_lengths())

    def moved(length: int) -> int:
        return round(length * rng.uniform(1 - JITTER, 1 + JITTER))

    return TurnLengths(max(1, moved(real.asked)), moved(real.answered), moved(real.work))


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    corpus = Path(args[0]) if args else shared_corpus()
    measured = measure(corpus)
    if not measured:
        raise SystemExit(f"no turns read in {corpus}")
    note = "word counts (history.query.words) of asked, answered and work, one turn each"
    LENGTHS.write_text(
        json.dumps({"source": note, "turns": measured}, indent=1) + "\n", encoding="utf-8"
    )
    print(f"{len(measured)} turns measured in {corpus}")


if __name__ == "__main__":
    main()
