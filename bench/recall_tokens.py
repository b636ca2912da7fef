"""What a model pays for a recall: the tokens of a `recall_history` answer, per hit and for k
hits, against the whole turns it points to.

    python -m bench.recall_tokens --home DIR [--queries 200]
    python -m bench.recall_tokens --corpus ../shared/corpus [--queries 200]

Tokens are counted as characters / 4 (no tokenizer is installed here): a stated estimate, the
same for the answer and for the turn. Queries are two of the longer words of a turn's question,
taken from turns drawn at random from the index (seeded), searched in every project. A whole
turn is what it holds: its question, answer, work and file lists, as `recall_turn` gives them
back. One JSON line on stdout.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from history import HistoryIndex
from history.domain import Turn
from history.query import words
from history.tools import RecallHistoryTool

CHARS_PER_TOKEN = 4


def tokens(text: str) -> float:
    return len(text) / CHARS_PER_TOKEN


def whole_turn(turn: Turn) -> str:
    return "\n".join([turn.asked, turn.answered, turn.work, *turn.files, *turn.edited])


def sample_turns(index: HistoryIndex, count: int, seed: int) -> list[Turn]:
    rng = random.Random(seed)
    conversations = index.conversations(limit=1_000)
    drawn: list[Turn] = []
    for _ in range(count * 3):
        if len(drawn) == count or not conversations:
            break
        turns = index.conversation(rng.choice(conversations).session_id)
        if turns:
            drawn.append(rng.choice(turns))
    return drawn


def query_of(turn: Turn) -> str | None:
    found = sorted(set(words(turn.asked)), key=lambda word: (-len(word), word))
    return " ".join(found[:2]) if len(found) >= 2 else None


def measure(index: HistoryIndex, count: int, seed: int) -> dict[str, object]:
    tool = RecallHistoryTool(index, "/", language="en")
    per_hit: list[float] = []
    answers: dict[int, list[float]] = {1: [], 5: []}
    turns_whole: list[float] = []
    hit_counts: list[int] = []
    for turn in sample_turns(index, count, seed):
        query = query_of(turn)
        if query is None:
            continue
        answer = ""
        for k in (1, 5):
            answer = tool.run(query, k=k, everywhere=True)
            answers[k].append(tokens(answer))
        hits = index.search(query, k=5)
        if not hits:
            continue
        hit_counts.append(len(hits))
        _header, *blocks = answer.split("\n\n")  # the k = 5 answer: a header, then a block a hit
        per_hit.extend(tokens(block) for block in blocks)
        for hit in hits:
            stored = index.turn(hit.turn_id)
            if stored is not None:
                turns_whole.append(tokens(whole_turn(stored)))
    median_hit, median_turn = statistics.median(per_hit), statistics.median(turns_whole)
    return {
        "turns": index.count(),
        "queries": len(answers[5]),
        "tokens": f"characters / {CHARS_PER_TOKEN}",
        "hit_median": round(median_hit, 1),
        "hit_p90": round(statistics.quantiles(per_hit, n=10)[-1], 1),
        "answer_k1_median": round(statistics.median(answers[1]), 1),
        "answer_k5_median": round(statistics.median(answers[5]), 1),
        "answer_k5_max": round(max(answers[5]), 1),
        "whole_turn_median": round(median_turn, 1),
        "whole_turn_p90": round(statistics.quantiles(turns_whole, n=10)[-1], 1),
        "whole_k5_median": round(median_turn * statistics.median(hit_counts), 1),
        "hit_to_whole_turn": round(median_hit / median_turn, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--home", type=Path, help="an index home holding history.db")
    where.add_argument("--corpus", type=Path, help="transcripts to import (recall import auto)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        home = args.home
        if home is None:
            home = Path(scratch)
            for fmt in sorted(p.name for p in args.corpus.iterdir() if p.is_dir()):
                subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "history.cli",
                        "--home",
                        str(home),
                        "import",
                        fmt,
                        str(args.corpus / fmt),
                    ],
                    check=False,
                    capture_output=True,
                )
        index = HistoryIndex.open(home / "history.db")
        try:
            print(
                json.dumps(
                    {
                        "home": str(args.home or args.corpus),
                        **measure(index, args.queries, args.seed),
                    }
                ),
                flush=True,
            )
        finally:
            index.close()


if __name__ == "__main__":
    main()
