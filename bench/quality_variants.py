"""Ranking variants as plug-ins of the search-quality evaluator, each re-runnable by name.

    python -m bench.quality_eval VARIANT ...                          # every development set
    python ../shared/quality/eval.py DATA_DIR --method bench/quality_variants.py:VARIANT

`recall` is the project's own `HistoryIndex.search` as checked out (`recall_work`: the same, each
turn with its commit's added lines as its work log, bench.quality_work); every other name is a
stand-alone ranker over an in-memory FTS5 table, so a variant means the same whatever ships:
- `unicode61`: what shipped before stemming (FTS5 bm25, asked 3, answered 1, files 1, words OR-ed);
- `porter`: the same over `porter unicode61 remove_diacritics 2`;
- `porter_exact_B`: porter, then the best k + 20 re-ranked with B x idf added for each query word
  the turn holds in the very form typed (what ships, with B = EXACT_FORM_BONUS);
- `porter_family`: porter, each query word also matching every word its stem begins (multipl*);
- `bm25f_blend`: porter, the best 200 re-ranked by BM25F (per-field length) with the exact-form
  bonus 0.5 and idf blended half from the asked column's own document frequency: the first
  round's best.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from history.query import stem, terms, words
from history.ranking import COLUMN_WEIGHTS, K1, exact_form_bonus, idf, length_norm, term_score

Search = Callable[..., list[str]]
TIE_MARGIN = 60  # as history/store/sqlite/fts_search.py


@dataclass(frozen=True)
class Variant:
    tokenize: str = "unicode61 remove_diacritics 2"
    exact_bonus: float = 0.0  # x idf, per query word held in the form typed
    family: bool = False  # each stem also as a prefix
    bm25f_candidates: int = 0  # re-rank this many by BM25F (0: FTS5's bm25 decides)
    asked_idf_blend: float = 0.0


PORTER = "porter unicode61 remove_diacritics 2"
VARIANTS: dict[str, Variant] = {
    "unicode61": Variant(),
    "porter": Variant(tokenize=PORTER),
    "porter_family": Variant(tokenize=PORTER, family=True),
    "porter_family_exact_0.25": Variant(tokenize=PORTER, family=True, exact_bonus=0.25),
    "bm25f_blend": Variant(
        tokenize=PORTER, exact_bonus=0.5, bm25f_candidates=200, asked_idf_blend=0.5
    ),
    "bm25f": Variant(tokenize=PORTER, exact_bonus=0.5, bm25f_candidates=200),
    **{
        f"porter_exact_{bonus}": Variant(tokenize=PORTER, exact_bonus=bonus)
        for bonus in (0.1, 0.25, 0.5, 1.0)
    },
}


def __getattr__(name: str) -> Callable[[str], Search]:
    """`eval.py --method bench/quality_variants.py:NAME` finds each variant's factory here."""
    if name in ("recall", "recall_work"):
        from bench import quality_plugin

        if name == "recall_work":
            return quality_plugin.make_search_with_work
        return quality_plugin.make_search
    if name not in VARIANTS:
        raise AttributeError(name)
    return lambda data_dir: make_search(data_dir, VARIANTS[name])


def make_search(data_dir: str, variant: Variant) -> Search:
    from bench.quality_eval import load_turns

    return Ranker(load_turns(data_dir), variant).search


class Ranker:
    def __init__(self, turns: Sequence[dict[str, Any]], variant: Variant) -> None:
        self.variant = variant
        self.db = sqlite3.connect(":memory:")
        self.db.executescript(
            "CREATE TABLE turns (id INTEGER PRIMARY KEY, turn_id TEXT, project TEXT,"
            " asked TEXT, answered TEXT, files TEXT);"
            "CREATE VIRTUAL TABLE turns_fts USING fts5(asked, answered, files, content='turns',"
            f" content_rowid='id', tokenize='{variant.tokenize}');"
        )
        self.db.executemany(
            "INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?)",
            [
                (i, t["turn_id"], t["project"], t["asked"], t["answered"], " ".join(t["files"]))
                for i, t in enumerate(turns, 1)  # oldest first: a higher id is a newer turn
            ],
        )
        self.db.execute("INSERT INTO turns_fts(turns_fts) VALUES ('rebuild')")
        self.rows = len(turns)
        self.db.execute("CREATE VIRTUAL TABLE vocab_col USING fts5vocab(turns_fts, col)")
        self._fields: dict[int, tuple[list[str], ...]] = {}
        self._average: list[float] = []

    def _count(self, match: str) -> int:
        found = self.db.execute("SELECT count(*) FROM turns_fts WHERE turns_fts MATCH ?", (match,))
        return int(found.fetchone()[0])

    def search(self, query: str, k: int, project: str | None = None) -> list[str]:
        words_asked = terms(query)
        if not words_asked:
            return []
        family = [_quote(stem(w)) + " *" for w in words_asked] if self.variant.family else []
        match = " OR ".join([_quote(w) for w in words_asked] + family)
        wanted = max(k + TIE_MARGIN, self.variant.bm25f_candidates)
        where = "turns_fts MATCH ?" + (" AND t.project = ?" if project else "")
        found = self.db.execute(
            "SELECT t.id, -bm25(turns_fts, 3.0, 1.0, 1.0), t.asked, t.answered, t.files"
            f" FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid WHERE {where}"
            " ORDER BY bm25(turns_fts, 3.0, 1.0, 1.0), t.id DESC LIMIT ?",
            (match, *([project] if project else []), wanted),
        ).fetchall()
        term_idf = {w: idf(self.rows, self._count(_quote(w))) for w in words_asked}
        scored: list[tuple[float, int]] = []
        for rowid, score, asked, answered, files in found:
            if self.variant.bm25f_candidates:
                score = self._bm25f(rowid, words_asked, term_idf)
            if self.variant.exact_bonus:
                texts = (asked, answered, files)
                score += exact_form_bonus(words_asked, texts, term_idf, self.variant.exact_bonus)
            scored.append((score, rowid))
        scored.sort(key=lambda pair: (-pair[0], -pair[1]))
        ids = [rowid for _, rowid in scored[:k]]
        names = dict(
            self.db.execute(
                f"SELECT id, turn_id FROM turns WHERE id IN ({','.join(map(str, ids))})"
            )
        )
        return [names[i] for i in ids]

    def _fields_of(self, rowid: int) -> tuple[list[str], ...]:
        if rowid not in self._fields:
            row = self.db.execute("SELECT asked, answered, files FROM turns WHERE id = ?", (rowid,))
            self._fields[rowid] = tuple([stem(w) for w in words(text)] for text in row.fetchone())
        return self._fields[rowid]

    def _bm25f(self, rowid: int, query_words: Sequence[str], term_idf: dict[str, float]) -> float:
        if not self._average:
            totals = [0, 0, 0]
            for asked, answered, files in self.db.execute(
                "SELECT asked, answered, files FROM turns"
            ):
                for i, text in enumerate((asked, answered, files)):
                    totals[i] += len(words(text))
            self._average = [total / max(self.rows, 1) for total in totals]
        fields = self._fields_of(rowid)
        score = 0.0
        for w in query_words:
            s = stem(w)
            weighted = sum(
                weight * Counter(field)[s] / length_norm(len(field), average) * K1
                for weight, field, average in zip(
                    COLUMN_WEIGHTS, fields, self._average, strict=True
                )
            )
            blended = term_idf[w]
            if self.variant.asked_idf_blend:
                asked_df = self.db.execute(
                    "SELECT doc FROM vocab_col WHERE term = ? AND col = 'asked'", (s,)
                ).fetchone()
                blend = self.variant.asked_idf_blend
                blended = (1 - blend) * blended + blend * idf(
                    self.rows, asked_df[0] if asked_df else 0
                )
            score += term_score(blended, weighted, K1)
        return score


def _quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'
