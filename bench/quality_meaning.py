"""Search by meaning on the development sets: lexical (`recall --words-only`), dense (the nearest
vectors alone) and hybrid (what ships with the extra), full and 4-word queries, one command.

    python -m bench.quality_meaning [--sets datasette,tokio] [--out FILE]

Each set is recorded into its own index under bench/out/quality/meaning-<set>.db and embedded
there by the product's own background step (history/meaning/), once: a later run reuses the
vectors. Scored by ../shared/quality/eval.py's `evaluate`, as bench.quality_eval does; one JSON
line per (set, variant, length), then a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.quality_eval import SHORT_QUERY_WORDS, evaluator, table
from bench.quality_sets import OUT, set_dirs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default="datasette,tokio")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--model", default="minilm-int8", choices=["minilm-int8", "paraphrase-l3"])
    ap.add_argument("--model-file", type=Path, help="paraphrase-l3's ONNX file")
    ap.add_argument("--words-weight", type=float, help="the blend's lexical share (0.7 ships)")
    args = ap.parse_args(argv)
    if args.words_weight is not None:
        from history.meaning import blend

        blend.WORDS_WEIGHT = args.words_weight
    shared = evaluator()
    dirs = set_dirs()
    out = args.out or OUT / f"meaning-{datetime.now(UTC):%Y%m%dT%H%M%S}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    with out.open("w", encoding="utf-8") as sink:
        for set_name in args.sets.split(","):
            index = _recorded(set_name, dirs[set_name], args.model)
            meaning = index.meaning(_embedder(args.model, args.model_file))
            started, waiting = time.monotonic(), meaning.waiting()
            done = meaning.embed(
                lambda d, left, name=set_name: print(
                    f"{name}: {d} embedded, {left} left", file=sys.stderr, flush=True
                )
            )
            if done:
                rate = done / (time.monotonic() - started)
                print(
                    json.dumps({"set": set_name, "embedded": done, "turns_per_s": rate}),
                    file=sys.stderr,
                )
            assert meaning.waiting() == 0, waiting
            queries = shared.load_queries(dirs[set_name])
            searches = _searches(index, args.model)
            if args.words_weight is not None:  # the blend alone, with the weight in its name
                searches = {f"hybrid words {args.words_weight}": searches[f"hybrid {args.model}"]}
            for variant, search in searches.items():
                for max_words in (None, SHORT_QUERY_WORDS):
                    result = shared.evaluate(variant, search, queries, "all", max_words, [])
                    row = {"set": set_name, "words": max_words or "full", **result}
                    print(json.dumps(row), flush=True)
                    sink.write(json.dumps(row) + "\n")
                    rows.append(row)
    print(table(rows))
    return 0


def _embedder(model: str, model_file: Path | None) -> Any:
    """The shipped model, or the second candidate: paraphrase-MiniLM-L3-v2's fp32 ONNX file
    (bench/meaning_models.py), read with the same tokenizer."""
    from history.meaning.embedder import MiniLM

    embedder = MiniLM()
    if model == "paraphrase-l3":
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = False
        embedder._session = onnxruntime.InferenceSession(str(model_file), options)
        outputs = embedder._session.get_outputs()
        embedder._hidden = next(o.name for o in outputs if len(o.shape) == 3)
        embedder._inputs = {item.name for item in embedder._session.get_inputs()}
        embedder.model_id = "paraphrase-MiniLM-L3-v2-onnx"
    return embedder


def _recorded(set_name: str, data_dir: Path, model: str = "minilm-int8") -> Any:
    """The set's index, recorded the first time (as bench/quality_plugin.py records it)."""
    from history import HistoryIndex
    from history.importers.base import ImportedTurn

    suffix = "" if model == "minilm-int8" else f"-{model}"
    path = OUT / f"meaning-{set_name}{suffix}.db"
    index = HistoryIndex.open(path)
    if index.count():
        return index
    turns = []
    for line in (data_dir / "turns.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        t = json.loads(line)
        turns.append(
            ImportedTurn(
                turn_id=t["turn_id"],
                session_id=t["session_id"],
                project=t["project"],
                asked=t["asked"],
                answered=t["answered"],
                files=tuple(t["files"]),
                edited=(),
                tools=(),
                tainted=False,
                asked_at=datetime.fromisoformat(t["asked_at"]),
            )
        )
    index.record_many(turns)
    return index


def _searches(index: Any, model: str) -> dict[str, Any]:
    def lexical(query: str, k: int, project: str | None = None) -> list[str]:
        index.meaning_search = False
        return [hit.turn_id for hit in index.search(query, project=project, k=k)]

    def hybrid(query: str, k: int, project: str | None = None) -> list[str]:
        index.meaning_search = True
        return [hit.turn_id for hit in index.search(query, project=project, k=k)]

    def dense(query: str, k: int, project: str | None = None) -> list[str]:
        near = index.meaning().nearest(query, k)
        turns = index.turns_by_row([row for row, _score in near])
        return [turns[row].turn_id for row, _score in near if row in turns]

    return {"recall --words-only": lexical, f"dense {model}": dense, f"hybrid {model}": hybrid}


if __name__ == "__main__":
    sys.exit(main())
