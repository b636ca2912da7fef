"""tantivy-py as the yardstick: a tantivy index over the same turns, searched with the same words.

The text fields are weighted as the shipped scoring weighs its columns (`COLUMN_WEIGHTS`, in the
order asked, answered, files, work: a weight for `work` joins once the scoring has one), each a
boost on that field's BM25; a query is every word OR-ed over every field (tantivy's BM25 and
block-max WAND, top k, no hit count, so that the top-k pruning runs). A one-project search adds
the project as a filter that scores nothing. Words are tokenized as FTS5's `porter unicode61
remove_diacritics 2` roughly does: split on what is not a letter or digit, lower-cased, folded
to ASCII, English stemming.

tantivy is a bench-only dependency (`pip install -e '.[bench]'`): the product never loads it.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.corpus import GeneratedTurn
from history.ranking import COLUMN_WEIGHTS

TANTIVY = "tantivy"
FIELDS = ("asked", "answered", "files", "work")  # the scoring's columns, in COLUMN_WEIGHTS order
ANALYZER = "fts5_like"
HEAP_BYTES = 256 * 1024 * 1024


def weighted_fields() -> dict[str, float]:
    """Each text field the shipped scoring weighs, with its weight (a zero weight drops it)."""
    return {name: w for name, w in zip(FIELDS, COLUMN_WEIGHTS, strict=False) if w > 0}


def _analyzer() -> Any:
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _field_text(turn: GeneratedTurn, name: str) -> str:
    if name == "files":
        return json.dumps(list(turn.files), ensure_ascii=False)  # as the baseline stores them
    return str(getattr(turn, name, ""))


class TantivyIndex:
    """A tantivy index in `directory`, built from turns and searched by query words."""

    def __init__(self, directory: Path) -> None:
        import tantivy

        self.directory = directory
        self.fields = weighted_fields()
        builder = tantivy.SchemaBuilder()
        for name in self.fields:
            builder.add_text_field(name, tokenizer_name=ANALYZER, index_option="freq")
        builder.add_text_field("project", tokenizer_name="raw", index_option="basic")
        builder.add_text_field("turn_id", stored=True, tokenizer_name="raw", index_option="basic")
        self.schema = builder.build()
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        self.index = tantivy.Index(self.schema, path=str(directory))
        self.analyzer = _analyzer()
        self.index.register_tokenizer(ANALYZER, self.analyzer)
        self._tantivy = tantivy

    def build(self, turns: Iterable[GeneratedTurn]) -> tuple[int, float]:
        """Adds every turn, commits and waits for the merges. Returns the turns added and the
        seconds the writes took (making the turns not counted)."""
        writer = self.index.writer(HEAP_BYTES)
        added, seconds = 0, 0.0
        for turn in turns:
            values: dict[str, Any] = {name: _field_text(turn, name) for name in self.fields}
            values |= {"project": turn.project, "turn_id": turn.turn_id}
            started = time.perf_counter()
            writer.add_document(self._tantivy.Document(**values))
            seconds += time.perf_counter() - started
            added += 1
        started = time.perf_counter()
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        seconds += time.perf_counter() - started
        self.searcher = self.index.searcher()
        return added, seconds

    def query(self, terms: Sequence[str], project: str | None) -> Any:
        tantivy = self._tantivy
        tokens = dict.fromkeys(token for term in terms for token in self.analyzer.analyze(term))
        clauses = [
            (
                tantivy.Occur.Should,
                tantivy.Query.boost_query(
                    tantivy.Query.term_query(self.schema, name, token), weight
                ),
            )
            for token in tokens
            for name, weight in self.fields.items()
        ]
        words = tantivy.Query.boolean_query(clauses)
        if project is None:
            return words
        only = tantivy.Query.const_score_query(
            tantivy.Query.term_query(self.schema, "project", project), 0.0
        )
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, words), (tantivy.Occur.Must, only)]
        )

    def search(self, terms: Sequence[str], project: str | None = None, k: int = 5) -> list[str]:
        """The top `k` turn ids by tantivy's BM25 over the weighted fields."""
        hits = self.searcher.search(self.query(terms, project), limit=k, count=False).hits
        return [self.searcher.doc(address)["turn_id"][0] for _, address in hits]

    def bytes(self) -> int:
        return sum(path.stat().st_size for path in self.directory.rglob("*") if path.is_file())
