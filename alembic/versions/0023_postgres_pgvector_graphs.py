"""PostgreSQL with pgvector: the server finds a query's nearest vectors, through a graph per
partition of the projects.

Where the server offers the `vector` extension (pgvector; Debian's postgresql-NN-pgvector),
`turn_neighbours` keeps each vector of `turn_vectors` (revision 0021) again, as a `halfvec(384)`:
the int8 values over 127, so the server's inner product is the in-memory matrix's score
(history/meaning/matrix.py). It is partitioned by a hash of the project as `turns` is (revision
0019), each partition with its own HNSW graph: a search of one project reads one partition's
graph, and a forget's scrub (history/store/postgres/scrub.py) rewrites, and so rebuilds the
graph of, only the partitions that held its turns, seconds each, where one graph of every turn
would take minutes at 1M turns and hold every search by meaning meanwhile. Each deleted row
notes its partition for the scrub, as a turn's does.

Kept by triggers: a vector written or replaced in `turn_vectors` writes its row (a vector of
another width than 384 is not kept: a search of such a model reads `turn_vectors`), and a
turn's deletion deletes it in the same statement as its vector.

A server without the extension, or a role that may not create it, gets nothing here (search
reads `turn_vectors` as before); installing pgvector later takes this revision run again
(`recall migrate --pgvector`, history/store/postgres/pgvector.py). SQLite is unchanged.

Revision ID: 0023_postgres_pgvector_graphs
Revises: 0022_masking_in_place
Create Date: 2026-12-07
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from alembic import op

revision: str = "0023_postgres_pgvector_graphs"
down_revision: str | None = "0022_masking_in_place"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger(__name__)

PARTITIONS = 64  # as turns' (revision 0019): the same project lands in the same number
DIMENSIONS = 384

_HALFVEC = f"""
CREATE FUNCTION recall_halfvec(v bytea) RETURNS halfvec({DIMENSIONS})
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT array_agg(((get_byte(v, i) + 128) % 256 - 128)::real / 127 ORDER BY i)::halfvec
    FROM generate_series(0, length(v) - 1) AS i
$$
"""
_TABLE = f"""
CREATE TABLE turn_neighbours (
    turn_id integer NOT NULL,
    project varchar NOT NULL,
    model varchar NOT NULL,
    nearby halfvec({DIMENSIONS}) NOT NULL,
    CONSTRAINT pk_turn_neighbours PRIMARY KEY (project, turn_id)
) PARTITION BY HASH (project)
"""
# Written after the existing vectors are copied: one graph build per partition, not inserts.
_GRAPH = (
    "CREATE INDEX ix_turn_neighbours_nearby ON turn_neighbours USING hnsw (nearby halfvec_ip_ops)"
)
_COPY = f"""
INSERT INTO turn_neighbours (turn_id, project, model, nearby)
SELECT v.turn_id, t.project, v.model, recall_halfvec(v.vector)
FROM turn_vectors AS v JOIN turns AS t ON t.id = v.turn_id WHERE length(v.vector) = {DIMENSIONS}
"""
_WRITTEN = f"""
CREATE FUNCTION turn_vectors_neighbours_aiu() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE of_project varchar;
BEGIN
    SELECT project INTO of_project FROM turns WHERE id = new.turn_id;
    IF of_project IS NULL THEN
        RETURN NULL;
    ELSIF length(new.vector) = {DIMENSIONS} THEN
        INSERT INTO turn_neighbours (turn_id, project, model, nearby)
            VALUES (new.turn_id, of_project, new.model, recall_halfvec(new.vector))
            ON CONFLICT (project, turn_id)
            DO UPDATE SET model = excluded.model, nearby = excluded.nearby;
    ELSE
        DELETE FROM turn_neighbours WHERE project = of_project AND turn_id = new.turn_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER turn_vectors_neighbours_aiu AFTER INSERT OR UPDATE ON turn_vectors
    FOR EACH ROW EXECUTE FUNCTION turn_vectors_neighbours_aiu();
"""
# Revision 0021's function, with the turn's row of turn_neighbours deleted too (by its project:
# one partition's key).
_FORGETS = """
CREATE OR REPLACE FUNCTION turns_vectors_ad() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM turn_vectors WHERE turn_id = old.id;
    {also}
    RETURN NULL;
END $$
"""
_ALSO = "DELETE FROM turn_neighbours WHERE project = old.project AND turn_id = old.id;"
_NOTED = """
CREATE FUNCTION turn_neighbours_ad() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO scrub_partitions AS s (partition, since_xid)
        VALUES (TG_TABLE_NAME, pg_current_xact_id()::text)
        ON CONFLICT (partition) DO UPDATE SET since_xid = excluded.since_xid
        WHERE s.since_xid <> excluded.since_xid;
    RETURN NULL;
END $$;
CREATE TRIGGER turn_neighbours_ad AFTER DELETE ON turn_neighbours
    FOR EACH ROW EXECUTE FUNCTION turn_neighbours_ad();
"""


def _with_pgvector() -> bool:
    """Whether the extension is there, or could be created (a failure is rolled back to a
    savepoint: the rest of the migration goes on). The SQL written offline (`alembic upgrade
    --sql`) asks no server: it makes the schema without it."""
    if op.get_context().as_sql:
        return False
    bind = op.get_bind()
    if bind.exec_driver_sql("SELECT 1 FROM pg_extension WHERE extname = 'vector'").first():
        return True
    offered = "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
    if not bind.exec_driver_sql(offered).first():
        return False
    bind.exec_driver_sql("SAVEPOINT recall_pgvector")
    try:
        bind.exec_driver_sql("CREATE EXTENSION vector")
    except Exception as exc:  # a role that may not create it
        bind.exec_driver_sql("ROLLBACK TO SAVEPOINT recall_pgvector")
        log.warning("pgvector is offered but could not be created: %s", exc)
        return False
    bind.exec_driver_sql("RELEASE SAVEPOINT recall_pgvector")
    return True


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql" or not _with_pgvector():
        return
    run = op.execute
    run(_HALFVEC)
    run(_TABLE)
    for n in range(PARTITIONS):
        run(
            f"CREATE TABLE turn_neighbours_p{n:02d} PARTITION OF turn_neighbours"
            f" FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {n})"
        )
    run(_COPY)
    run("SET LOCAL maintenance_work_mem = '256MB'")
    run(_GRAPH)
    run(_WRITTEN)
    run(_FORGETS.format(also=_ALSO))
    run(_NOTED)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql" or op.get_context().as_sql:
        return
    exists = "SELECT to_regclass('turn_neighbours') IS NOT NULL"
    if not op.get_bind().exec_driver_sql(exists).scalar_one():
        return
    run = op.execute
    run(_FORGETS.format(also=""))
    run("DROP TRIGGER turn_vectors_neighbours_aiu ON turn_vectors")
    run("DROP FUNCTION turn_vectors_neighbours_aiu()")
    run("DROP TABLE turn_neighbours")
    run("DROP FUNCTION turn_neighbours_ad()")
    run("DROP FUNCTION recall_halfvec(bytea)")
    run("DELETE FROM scrub_partitions WHERE partition LIKE 'turn\\_neighbours\\_p%'")
