"""A re-scan under new secret rules on PostgreSQL, on a bench database (`bench.pg_load`).

    python -m bench.pg_rescan --url postgresql+psycopg://root@127.0.0.1/recall_bench [--every 100]

It changes the database (load a new one after): one turn in `--every` gets a password in French
words appended (a form an older version's rules missed) and the database forgets which rules its
turns follow. Then the re-scan's steps run until none is left (`Maintenance.rescan_step`, what
the upkeep and `recall doctor --rescan` run), then the scrub they owe (`tidy`: the partitions
holding a masked turn rewritten). Measured: every transaction of the index's engine during the
steps that writes, from BEGIN to its end (a step's write holds the rows it masks locked that
long; nothing else waits on it: other turns are other rows), the step's whole time, the
scrub's, and the planted secrets left in the files of `turns` afterwards; the baseline reads
and redacts every turn in one pass, writing nothing. Prints JSON lines.
"""

from __future__ import annotations

import argparse
import threading
import time
from typing import Any

from sqlalchemy import event, text

from bench.measure import BASELINE, RECALL, Emitter, percentile
from history import HistoryIndex
from tests.helpers.engines import engine_of

SECRET = "quokkapgrescan"
_PLANT = text(
    "UPDATE turns SET asked = asked || ' Mot de passe : ' || :secret || id WHERE id % :every = 0"
)
_WRITES = {"UPDATE", "INSERT", "DELETE", "WITH"}
_TEXTS = text("SELECT asked, answered, work FROM turns")
_FORGET_RULES = text("DELETE FROM retention_settings WHERE project LIKE '(secret rules%'")


def _timed_writes(engine: Any) -> list[float]:
    """The ms of each transaction of `engine` that writes, from now on (BEGIN to its end): the
    rows it writes stay locked that long. A step's read of its batch (a snapshot, no lock) is
    left out."""
    held: list[float] = []

    def begun(conn: Any) -> None:
        conn.info["recall_began"] = time.monotonic()

    def statement(conn: Any, cursor: Any, sql: str, *args: Any) -> None:
        if sql.lstrip().split(None, 1)[0].upper() in _WRITES:
            conn.info["recall_wrote"] = True

    def ended(conn: Any) -> None:
        began = conn.info.pop("recall_began", None)
        if began is not None and conn.info.pop("recall_wrote", False):
            held.append((time.monotonic() - began) * 1000)

    event.listen(engine, "begin", begun)
    event.listen(engine, "before_cursor_execute", statement)
    event.listen(engine, "commit", ended)
    event.listen(engine, "rollback", ended)
    return held


def _baseline(engine: Any) -> float:
    """Every turn read and redacted in one pass, nothing written: the floor of the re-scan."""
    from history.redaction import redact

    began = time.monotonic()
    with engine.connect() as conn:
        found = conn.execution_options(stream_results=True).execute(_TEXTS)
        for row in found:
            for value in row:
                redact(value or "")
    return time.monotonic() - began


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--url", required=True)
    parser.add_argument("--every", type=int, default=100)
    args = parser.parse_args(argv)
    index = HistoryIndex.open(args.url)
    index._upkeep.close()
    engine = engine_of(index)
    url = engine.url.render_as_string(hide_password=False)
    with engine.begin() as conn:
        size = int(conn.execute(text("SELECT count(*) FROM turns")).scalar_one())
        planted = conn.execute(_PLANT, {"secret": SECRET, "every": args.every}).rowcount
        conn.execute(_FORGET_RULES)
    out = Emitter(size)
    out.emit("planted", RECALL, planted, "turns")
    out.emit("rescan", BASELINE, round(_baseline(engine), 1), "s")
    held = _timed_writes(engine)
    steps: list[float] = []
    masked = 0
    lock = threading.Lock()
    began = time.monotonic()
    while True:
        step_began = time.monotonic()
        step = index._maintenance.rescan_step(lock)
        if not step.more:
            break
        steps.append((time.monotonic() - step_began) * 1000)
        masked += step.masked
    rescanned = time.monotonic() - began
    transactions = list(held)
    began = time.monotonic()
    assert index.tidy(), "the scrub was left owed"
    scrubbed = time.monotonic() - began
    out.emit("masked", RECALL, masked, "turns")
    out.emit("rescan", RECALL, round(rescanned, 1), "s")
    out.emit("scrub", RECALL, round(scrubbed, 1), "s")
    out.emit("steps", RECALL, len(steps), "steps")
    for p in (50, 99, 100):
        out.emit(f"step p{p}", RECALL, round(percentile(steps, p), 1), "ms")
        out.emit(f"write p{p}", RECALL, round(percentile(transactions, p), 1), "ms")
    out.emit("writes", RECALL, len(transactions), "transactions")
    out.emit("writes over 50 ms", RECALL, sum(t > 50 for t in transactions), "transactions")
    index.close()
    from tests.helpers.pg_files import occurrences

    out.emit("secrets left in the files", RECALL, occurrences(url, SECRET.encode()), "occurrences")


if __name__ == "__main__":
    main()
