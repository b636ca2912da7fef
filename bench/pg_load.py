"""Fill a PostgreSQL bench database with the generated corpus quickly, for measuring at 1M.

    python -m bench.pg_load SIZE --url postgresql+psycopg://root@127.0.0.1/recall_pg_1m
        [--seed N] [--end ISO] [--mix standard|common]

Each turn goes through the same preparation as `record_many` (redaction, id masking, caps), then
rows go in with COPY while the full-text indexes and the summary triggers are off: the generated
`search_vector` is still computed by PostgreSQL for each row, the three GIN indexes (the vector's,
the question's, each project's words) are built once at the end (far cheaper than SIZE
insertions into them), the summary rows come from the migration's own backfill and the sample of
each project's common words from upkeep's. The database ends as `record_many` would leave it;
this is a way to set up a large bench database, not a measure of import speed
(`bench.importer` measures that).
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from datetime import UTC, datetime

from sqlalchemy import text

from bench.corpus import default_end
from bench.measure import RECALL, Emitter
from bench.mixes import MIXES, turns
from bench.world import projects, word_weights
from history import HistoryIndex
from history.prepare import as_turn, prepare
from history.store.models import TURN_COLUMNS
from history.store.postgres import project_index, project_words, question_index, schema, summaries
from history.store.rows import row_values
from tests.helpers.engines import engine_of

BATCH = 5_000
_COLUMNS = [column.key for column in TURN_COLUMNS]


def _copy_rows(index: HistoryIndex, size: int, seed: int, end: datetime, mix: str) -> None:
    stream = turns(mix, seed, end)
    ids = index._ids.mask()
    copy = f"COPY turns ({', '.join(_COLUMNS)}) FROM STDIN"
    written = 0
    raw = engine_of(index).raw_connection()
    try:
        connection = raw.driver_connection
        assert connection is not None
        while written < size:
            chunk = list(itertools.islice(stream, min(BATCH, size - written)))
            with connection.cursor() as cursor, cursor.copy(copy) as rows:
                for item in chunk:
                    turn = prepare(as_turn(item), ids)
                    values = row_values(turn)
                    values["asked_at"] = turn.asked_at.astimezone(UTC).replace(tzinfo=None)
                    rows.write_row([values[column] for column in _COLUMNS])
            connection.commit()
            written += len(chunk)
            if written % 100_000 == 0:
                print(json.dumps({"loaded": written, "at": datetime.now(UTC).isoformat()}))
    finally:
        raw.close()


def load(url: str, size: int, seed: int, end: datetime, mix: str) -> None:
    out = Emitter(size)
    projects(seed), word_weights()
    index = HistoryIndex.open(url)
    started = time.perf_counter()
    with engine_of(index).begin() as conn:
        if conn.execute(text("SELECT count(*) FROM turns")).scalar_one():
            raise SystemExit("the database already holds turns: load into an empty one")
        conn.execute(text(f"DROP INDEX {schema.VECTOR_INDEX}"))
        conn.execute(text(f"DROP INDEX {schema.ASKED_INDEX}"))
        conn.execute(text(f"DROP INDEX {project_index.INDEX}"))
        conn.execute(text("ALTER TABLE turns DISABLE TRIGGER USER"))
    _copy_rows(index, size, seed, end, mix)
    copied = time.perf_counter()
    _finish(index)
    index.close()
    out.emit("bench_load_copy", RECALL, size / (copied - started), "turns/s")
    out.emit("bench_load_total", RECALL, time.perf_counter() - started, "s")


def _finish(index: HistoryIndex) -> None:
    """Summary rows, the full-text index and the triggers, once every row is in."""
    with engine_of(index).connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        # Without statistics the backfill's per-conversation lookups scan whole projects.
        conn.execute(text("ANALYZE turns"))
    with engine_of(index).begin() as conn:
        conn.execute(text("SET LOCAL maintenance_work_mem = '512MB'"))
        for statement in summaries.backfill_statements():
            conn.execute(text(statement))
        conn.execute(text(schema.index_statement()))
        conn.execute(text(question_index.index_statement()))
        conn.execute(text(project_index.index_statement()))
        conn.execute(text(schema.pending_list_statement(schema.PENDING_LIST_KB)))
        # The triggers that keep each turn id once (revision 0019) were off with the others.
        conn.execute(text("INSERT INTO turn_ids SELECT turn_id, project FROM turns"))
        conn.execute(text("ALTER TABLE turns ENABLE TRIGGER USER"))
    with engine_of(index).connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text("VACUUM ANALYZE"))
    with engine_of(index).begin() as conn:
        project_words.refill(conn)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pg_load", description=__doc__)
    parser.add_argument("size", type=int)
    parser.add_argument("--url", required=True)
    parser.add_argument("--end", type=datetime.fromisoformat, default=default_end())
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--mix", choices=tuple(MIXES), default="standard")
    args = parser.parse_args(argv)
    load(args.url, args.size, args.seed, args.end, args.mix)


if __name__ == "__main__":
    main()
