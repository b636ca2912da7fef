"""Search by meaning on the development sets: lexical (`recall --words-only`), dense (the nearest
vectors alone) and hybrids (fusions of the two), full and 4-word queries, one command.

    python -m bench.quality_meaning --prepare [--sets a,b]   # record and embed (long, once)
    python -m bench.quality_meaning [--sets a,b] [--approximate] [--out FILE]

Each set is recorded into its own index under bench/out/quality/meaning-<set>.db and embedded
there by the product's own step (history/meaning/), once: a later run reuses the vectors; a set
not fully embedded is skipped (and said). For every query (full, and cut to 4 words by the
shared evaluator) the candidates are asked once, through the product: the lexical ranking at
10, 20 and 50 (with scores) and the nearest 50 vectors (with cosines); every fusion is then
computed from them, so weights and fusions cost no model run. The shipped blend
(history/meaning/blend.py with the index's own candidate count) is checked against a live
blended search on the first queries. Scored by ../shared/quality/eval.py's `evaluate`, as
bench.quality_eval does; one JSON line per (set, variant, length), a Markdown table, and which
hybrids gain hit@5 and MRR@10 on every set at both lengths.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.quality_eval import SHORT_QUERY_WORDS, evaluator, scored, table
from bench.quality_plugin import imported_turns
from bench.quality_sets import OUT, check_dirs, set_dirs

LEXICAL_DEPTHS = (10, 20, 50)
DENSE_DEPTH = 50
WEIGHTS = (0.5, 0.6, 0.7, 0.8, 0.9)
RRF_K = 60
CHECKED = 20  # queries whose live blended search is compared with the offline blend

Ranked = list[tuple[str, float]]
Candidates = dict[str, Any]  # "lexical": {depth: Ranked}, "dense": Ranked


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", help="comma-separated (default: every set)")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--prepare", action="store_true", help="record and embed the sets only")
    ap.add_argument("--model", default="minilm-int8", choices=["minilm-int8", "paraphrase-l3"])
    ap.add_argument("--model-file", type=Path, help="paraphrase-l3's ONNX file")
    ap.add_argument(
        "--candidates",
        type=Path,
        help="a folder: each set's candidates saved there as <set>.json, and read back next time",
    )
    ap.add_argument(
        "--approximate",
        action="store_true",
        help="the dense side through the approximate index, at any size (as past 50,000 turns)",
    )
    args = ap.parse_args(argv)
    dirs = set_dirs() | check_dirs()  # by name; every run's default is the development sets
    chosen = args.sets.split(",") if args.sets else list(set_dirs())
    embedder = _embedder(args.model, args.model_file)
    if args.prepare:
        for set_name in chosen:
            _prepared(set_name, dirs[set_name], args.model, embedder)
        return 0
    shared = evaluator()
    out = args.out or OUT / f"meaning-{datetime.now(UTC):%Y%m%dT%H%M%S}.jsonl"
    out.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    with out.open("w", encoding="utf-8") as sink:
        for set_name in chosen:
            index = _recorded(set_name, dirs[set_name], args.model)
            meaning = index.meaning(embedder)
            if args.approximate:
                _approximate(meaning)
            left = meaning.waiting()
            if left:
                print(f"{set_name}: {left} turns not embedded: skipped", file=sys.stderr)
                continue
            queries = shared.load_queries(dirs[set_name])
            saved = args.candidates / f"{set_name}.json" if args.candidates else None
            if saved is not None and saved.exists():
                cache = _read(saved)
            else:
                cache = _candidates(shared, index, queries)
                _check_live(index, queries[:CHECKED], cache)
                if saved is not None:
                    saved.parent.mkdir(parents=True, exist_ok=True)
                    saved.write_text(json.dumps(cache), encoding="utf-8")
            for variant, search in variants(cache).items():
                rows += scored(shared, set_name, variant, search, queries, sink)
    print(table(rows))
    print(verdict(rows))
    return 0


def _prepared(set_name: str, data_dir: Path, model: str, embedder: Any) -> None:
    started = time.monotonic()
    index = _recorded(set_name, data_dir, model)
    meaning = index.meaning(embedder)
    recorded, started = time.monotonic() - started, time.monotonic()
    done = meaning.embed(batch=256)  # the model sorts a batch's texts by length: less padding
    spent = time.monotonic() - started
    line = {"set": set_name, "record_s": round(recorded, 1), "embedded": done}
    line |= {"embed_s": round(spent, 1), "turns_per_s": round(done / max(spent, 1e-9), 1)}
    print(json.dumps(line), flush=True)


def _candidates(shared: Any, index: Any, queries: list[dict[str, Any]]) -> dict[str, Candidates]:
    """Every query's candidates (full and cut), by its text, asked once through the product."""
    from history.index import MEANING_CANDIDATES

    assert MEANING_CANDIDATES in LEXICAL_DEPTHS, MEANING_CANDIDATES
    meaning, cache = index.meaning(), {}

    def ask(query: str, k: int, project: str | None = None) -> list[str]:
        if query not in cache:
            index.meaning_search = False
            lexical = {
                depth: [(hit.turn_id, hit.score) for hit in index.search(query, k=depth)]
                for depth in LEXICAL_DEPTHS
            }
            near = meaning.nearest(query, DENSE_DEPTH)
            turns = index.turns_by_row([row for row, _score in near])
            dense = [(turns[row].turn_id, score) for row, score in near if row in turns]
            cache[query] = {"lexical": lexical, "dense": dense}
        return []

    for max_words in (None, SHORT_QUERY_WORDS):
        shared.evaluate("asking", ask, queries, "all", max_words, [])
    return cache


def _read(saved: Path) -> dict[str, Candidates]:
    """Candidates saved as JSON (whose keys are text: the lexical depths made numbers again)."""
    cache: dict[str, Candidates] = json.loads(saved.read_text(encoding="utf-8"))
    for found in cache.values():
        found["lexical"] = {int(depth): ranked for depth, ranked in found["lexical"].items()}
    return cache


def variants(cache: dict[str, Candidates]) -> dict[str, Callable[..., list[str]]]:
    """Each ranking compared, as a search the evaluator calls (from the cached candidates)."""
    from history.index import MEANING_CANDIDATES
    from history.meaning import blend

    def of(rank: Callable[[Candidates], Ranked]) -> Callable[..., list[str]]:
        def search(query: str, k: int, project: str | None = None) -> list[str]:
            return [key for key, _score in rank(cache[query])][:k]

        return search

    def weighted(weight: float, depth: int) -> Callable[[Candidates], Ranked]:
        # Both sides scaled over their own candidates (what shipped before the fifth slice).
        return lambda c: blend.weighted(
            blend.scaled(c["lexical"][depth]), blend.scaled(c["dense"]), weight
        )

    found = {
        "recall --words-only": of(lambda c: c["lexical"][10]),
        "dense": of(lambda c: c["dense"]),
        "rrf 60": of(lambda c: rrf(c["lexical"][50], c["dense"])),
        "hybrid as shipped": of(
            lambda c: blend.blended(c["lexical"][MEANING_CANDIDATES], c["dense"])
        ),
    }
    for weight in WEIGHTS:
        found[f"hybrid {weight} words, 50"] = of(weighted(weight, 50))
    for depth in LEXICAL_DEPTHS[:-1]:
        found[f"hybrid 0.7 words, {depth}"] = of(weighted(0.7, depth))
    found[f"hybrid 0.6 words, {MEANING_CANDIDATES}"] = of(weighted(0.6, MEANING_CANDIDATES))
    for weight, depth in ((0.7, 50), (0.8, 50), (0.7, 10), (0.6, 50)):
        found[f"hybrid {weight} words, {depth}, first kept"] = of(
            first_kept(weighted(weight, depth))
        )
    for weight, floor in ((0.7, 0.3), (0.7, 0.4), (0.6, 0.4), (0.7, 0.5), (0.6, 0.5)):
        for depth in (10, 50):
            name = f"hybrid {weight} words, {depth}, cosines from {floor}"
            found[name] = of(absolute(weight, depth, floor))
    for weight in (0.8, 0.85, 0.9, 0.95):
        found[f"hybrid {weight} words, 10"] = of(weighted(weight, 10))
    return found | {name: of(rank) for name, rank in words_scaled_otherwise().items()}


def words_scaled_otherwise() -> dict[str, Callable[[Candidates], Ranked]]:
    """Blends whose lexical scores are not scaled over the candidates asked for, so that the
    lexical side's depth (50 costs a search of every project more than 25 ms) matters less."""
    found = {}
    for weight in (0.7, 0.8, 0.85, 0.9):
        for depth in (10, 20, 50):
            found[f"hybrid {weight} words, {depth}, from 0"] = from_zero(weight, depth)
    for weight in (0.5, 0.6, 0.7, 0.8, 0.9):
        found[f"hybrid {weight} words, 10, shares as they are"] = as_shares(weight, 10)
    return found


def from_zero(weight: float, depth: int) -> Callable[[Candidates], Ranked]:
    """The blend, with the lexical scores scaled from 0 (0) to the best (1) instead of over
    its own candidates: how far the lexical best stand apart does not hang on how many of them
    were asked for."""
    from history.meaning import blend

    def ranked(candidates: Candidates) -> Ranked:
        by_words = blend.from_best(candidates["lexical"][depth])
        return blend.weighted(by_words, blend.scaled(candidates["dense"]), weight)

    return ranked


def as_shares(weight: float, depth: int) -> Callable[[Candidates], Ranked]:
    """The blend, with the lexical scores as the search gives them (each a share, 0..1, of
    the most any turn could score for the query's words) instead of scaled over the candidates."""
    from history.meaning import blend

    def ranked(candidates: Candidates) -> Ranked:
        by_words = dict(candidates["lexical"][depth])
        return blend.weighted(by_words, blend.scaled(candidates["dense"]), weight)

    return ranked


def absolute(weight: float, depth: int, floor: float) -> Callable[[Candidates], Ranked]:
    """The blend, with the dense side's cosines scaled from `floor` (0) to 1 (1) instead of
    over its own candidates: a dense side that finds nothing close adds little."""
    from history.meaning import blend

    def ranked(candidates: Candidates) -> Ranked:
        by_words = blend.scaled(candidates["lexical"][depth])
        by_meaning = {
            key: max(0.0, (cosine - floor) / (1 - floor)) for key, cosine in candidates["dense"]
        }
        return blend.weighted(by_words, by_meaning, weight)

    return ranked


def first_kept(rank: Callable[[Candidates], Ranked]) -> Callable[[Candidates], Ranked]:
    """`rank`, with the lexical ranking's best kept first."""

    def ranked(candidates: Candidates) -> Ranked:
        fused, lexical = rank(candidates), candidates["lexical"][10]
        if not lexical:
            return fused
        first = lexical[0][0]
        return [(first, float("inf")), *[(key, s) for key, s in fused if key != first]]

    return ranked


def rrf(*rankings: Sequence[tuple[str, float]]) -> Ranked:
    """Reciprocal-rank fusion: each candidate's sum of 1 / (RRF_K + its rank) over the lists."""
    total: dict[str, float] = {}
    for ranking in rankings:
        for rank, (key, _score) in enumerate(ranking, 1):
            total[key] = total.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(total.items(), key=lambda item: -item[1])


def _check_live(index: Any, queries: list[dict[str, Any]], cache: dict[str, Candidates]) -> None:
    """The offline blend ranks as a live blended search does (the shipped weight and depth)."""
    from history.index import MEANING_CANDIDATES
    from history.meaning import blend

    index.meaning_search = True
    for q in queries:
        live = [hit.turn_id for hit in index.search(q["query"], k=10)]
        c = cache[q["query"]]
        ranked = blend.blended(c["lexical"][MEANING_CANDIDATES], c["dense"], blend.WORDS_WEIGHT)
        offline = [key for key, _score in ranked][:10]
        if live != offline:
            print(f"warning: live blend differs on {q['query_id']}", file=sys.stderr)
    index.meaning_search = False


def verdict(rows: list[dict[str, Any]]) -> str:
    """Which hybrids gain hit@5 and MRR@10 over the lexical ranking on every set, both lengths."""
    base = {(r["set"], str(r["words"])): r for r in rows if r["method"] == "recall --words-only"}
    lines = []
    for method in dict.fromkeys(r["method"] for r in rows):
        if method in ("recall --words-only", "dense"):
            continue
        mine = [r for r in rows if r["method"] == method]
        gains = [
            min(r[m] - base[(r["set"], str(r["words"]))][m] for m in ("hit@5", "mrr@10"))
            for r in mine
        ]
        ok = all(gain > 0 for gain in gains)
        lines.append(f"{method}: least gain {100 * min(gains):+.1f} points; every set: {ok}")
    return "\n".join(lines)


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


def _approximate(meaning: Any) -> None:
    """The set's vectors searched through the approximate index, once it is built."""
    from history.meaning.matrix import VectorMatrix

    meaning.matrix = VectorMatrix(approximate_from=1)
    with meaning.engine.connect() as conn:
        meaning.matrix.refresh(conn, meaning.model_id)
    while not meaning.matrix.approximate:
        time.sleep(0.1)


def _recorded(set_name: str, data_dir: Path, model: str = "minilm-int8") -> Any:
    """The set's index, recorded the first time (as bench/quality_plugin.py records it)."""
    from history import HistoryIndex

    suffix = "" if model == "minilm-int8" else f"-{model}"
    index = HistoryIndex.open(OUT / f"meaning-{set_name}{suffix}.db")
    if not index.count():
        index.record_many(imported_turns(data_dir))
    return index


if __name__ == "__main__":
    sys.exit(main())
