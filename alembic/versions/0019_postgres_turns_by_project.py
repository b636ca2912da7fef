"""PostgreSQL: `turns` partitioned by a hash of the project, so a forget rewrites only the
partitions that held its rows.

A forget makes its text unrecoverable by rewriting the table's files (history/store/postgres/
scrub.py). On one table that rewrite held every search and record for minutes at 1M turns; split
into PARTITIONS tables by `project`, it rewrites the few that held the forgotten rows, each in a
few seconds, and a search of another project never touches them (the planner keeps only the
partition of its project).

A partitioned table's unique index must hold the partition key, so `turn_id` stays unique
through `turn_ids` (turn id, project), kept by triggers: recording a turn id stored under another
project moves it (the old row is deleted). The primary key is (id, project) and the upsert's
target (project, turn_id). Each deleted row notes its partition in `scrub_partitions` (with the
deleting transaction's id): the scrub rewrites those. Every index of `turns` is made on each
partition. A live turn that meets its partition being rewritten waits in `turns_waiting` (as a
turn is stored: redacted, its ids masked) until upkeep moves it in. SQLite is unchanged.

Revision ID: 0019_postgres_turns_by_project
Revises: 0018_keys_and_audit
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0019_postgres_turns_by_project"
down_revision: str | None = "0018_keys_and_audit"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PARTITIONS = 64

_COLUMNS = (
    "id, turn_id, session_id, project, asked_at, tainted, asked, answered, files, edited, tools,"
    " work"
)
_VECTOR = (
    "setweight(to_tsvector('simple'::regconfig, recall_words(asked)), 'A')"
    " || setweight(to_tsvector('simple'::regconfig, recall_words(files)), 'B')"
    " || setweight(to_tsvector('simple'::regconfig, recall_words(answered)), 'C')"
    " || setweight(to_tsvector('simple'::regconfig, recall_words(work)), 'D')"
    " || setweight(to_tsvector('simple'::regconfig, 'p' || md5(project)), 'D')"
)


def _table(name: str, partitioned: bool) -> str:
    return f"""
    CREATE TABLE {name} (
        id integer NOT NULL DEFAULT nextval('turns_id_seq'::regclass),
        turn_id varchar NOT NULL,
        session_id varchar NOT NULL,
        project varchar NOT NULL,
        asked_at timestamp without time zone NOT NULL,
        tainted boolean NOT NULL,
        asked text NOT NULL,
        answered text NOT NULL,
        files text NOT NULL,
        edited text NOT NULL,
        tools text NOT NULL,
        project_tag varchar GENERATED ALWAYS AS ('p' || md5(project)) STORED,
        work text NOT NULL DEFAULT '',
        search_vector tsvector GENERATED ALWAYS AS ({_VECTOR}) STORED
    ){" PARTITION BY HASH (project)" if partitioned else ""}
    """


_STORAGE = (
    "ALTER TABLE turns ALTER COLUMN search_vector SET STATISTICS 1000",
    "ALTER TABLE turns ALTER COLUMN search_vector SET STORAGE MAIN",
)

# The indexes as revision 0015 left them (each partition gets its own).
_INDEXES = (
    "CREATE INDEX ix_turns_asked_at ON turns USING btree (asked_at)",
    "CREATE INDEX ix_turns_asked_words ON turns USING gin (recall_question(asked, project))",
    "CREATE INDEX ix_turns_project_asked_at ON turns USING btree (project, asked_at)",
    "CREATE INDEX ix_turns_project_words ON turns"
    " USING gin (recall_project_words(search_vector, project))",
    "CREATE INDEX ix_turns_search_vector ON turns USING gin (search_vector)"
    " WITH (fastupdate = on, gin_pending_list_limit = 4096)",
    "CREATE INDEX ix_turns_session_id_asked_at ON turns USING btree (session_id, asked_at)",
)

_SUMMARY_TRIGGERS = (
    "CREATE TRIGGER turns_summary_ad AFTER DELETE ON turns"
    " FOR EACH ROW EXECUTE FUNCTION turns_summary_ad()",
    "CREATE TRIGGER turns_summary_ai AFTER INSERT ON turns"
    " FOR EACH ROW EXECUTE FUNCTION turns_summary_ai()",
    "CREATE TRIGGER turns_summary_au AFTER UPDATE OF session_id, project, asked_at, tainted,"
    " edited ON turns FOR EACH ROW WHEN ("
    "old.session_id IS DISTINCT FROM new.session_id"
    " OR old.project IS DISTINCT FROM new.project"
    " OR old.asked_at IS DISTINCT FROM new.asked_at"
    " OR old.tainted IS DISTINCT FROM new.tainted"
    " OR old.edited IS DISTINCT FROM new.edited) EXECUTE FUNCTION turns_summary_au()",
)

# A turn id is stored under one project: recording it under another deletes the old row (whose
# delete trigger gives back its claim) before the new one claims it.
_CLAIM = """
CREATE FUNCTION turns_claim_turn_id() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE held varchar;
BEGIN
    SELECT project INTO held FROM turn_ids WHERE turn_id = new.turn_id;
    IF held IS NOT NULL AND held <> new.project THEN
        DELETE FROM turns WHERE project = held AND turn_id = new.turn_id;
        DELETE FROM turn_ids WHERE turn_id = new.turn_id;
    END IF;
    IF held IS NULL OR held <> new.project THEN
        INSERT INTO turn_ids (turn_id, project) VALUES (new.turn_id, new.project)
            ON CONFLICT (turn_id) DO UPDATE SET project = excluded.project;
    END IF;
    RETURN new;
END $$
"""
# A deleted row gives back its turn id and notes its partition (TG_TABLE_NAME: the trigger runs
# on the partition) as holding dead rows of this transaction.
_RELEASE = """
CREATE FUNCTION turns_release_turn_id() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM turn_ids WHERE turn_id = old.turn_id AND project = old.project;
    INSERT INTO scrub_partitions AS s (partition, since_xid)
        VALUES (TG_TABLE_NAME, pg_current_xact_id()::text)
        ON CONFLICT (partition) DO UPDATE SET since_xid = excluded.since_xid
        WHERE s.since_xid <> excluded.since_xid;
    RETURN NULL;
END $$
"""
_ID_TRIGGERS = (
    "CREATE TRIGGER turns_claim_turn_id BEFORE INSERT ON turns"
    " FOR EACH ROW EXECUTE FUNCTION turns_claim_turn_id()",
    "CREATE TRIGGER turns_release_turn_id AFTER DELETE ON turns"
    " FOR EACH ROW EXECUTE FUNCTION turns_release_turn_id()",
)


def _is_postgres() -> bool:
    return bool(op.get_bind().dialect.name == "postgresql")


def upgrade() -> None:
    if not _is_postgres():
        return
    run = op.execute
    run("ALTER TABLE turns RENAME TO turns_unpartitioned")
    run("ALTER SEQUENCE turns_id_seq OWNED BY NONE")
    run("ALTER TABLE turns_unpartitioned ALTER COLUMN id DROP DEFAULT")
    for name in (
        "ix_turns_asked_at",
        "ix_turns_asked_words",
        "ix_turns_project_asked_at",
        "ix_turns_project_words",
        "ix_turns_search_vector",
        "ix_turns_session_id_asked_at",
    ):
        run(f"DROP INDEX {name}")
    run("ALTER TABLE turns_unpartitioned DROP CONSTRAINT uq_turns_turn_id")
    run("ALTER TABLE turns_unpartitioned DROP CONSTRAINT pk_turns")
    run(_table("turns", partitioned=True))
    for n in range(PARTITIONS):
        run(
            f"CREATE TABLE turns_p{n:02d} PARTITION OF turns"
            f" FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {n})"
        )
    for statement in _STORAGE:
        run(statement)
    run(f"INSERT INTO turns ({_COLUMNS}) SELECT {_COLUMNS} FROM turns_unpartitioned")
    run(
        "CREATE TABLE turn_ids (turn_id varchar NOT NULL, project varchar NOT NULL,"
        " CONSTRAINT pk_turn_ids PRIMARY KEY (turn_id))"
    )
    run("INSERT INTO turn_ids (turn_id, project) SELECT turn_id, project FROM turns_unpartitioned")
    run(
        "CREATE TABLE scrub_partitions (partition varchar NOT NULL, since_xid varchar NOT NULL,"
        " CONSTRAINT pk_scrub_partitions PRIMARY KEY (partition))"
    )
    run(
        "CREATE TABLE turns_waiting (id integer GENERATED ALWAYS AS IDENTITY,"
        " turn_id varchar NOT NULL, session_id varchar NOT NULL, project varchar NOT NULL,"
        " asked_at timestamp without time zone NOT NULL, tainted boolean NOT NULL,"
        " asked text NOT NULL, answered text NOT NULL, files text NOT NULL, edited text NOT NULL,"
        " tools text NOT NULL, work text NOT NULL, CONSTRAINT pk_turns_waiting PRIMARY KEY (id))"
    )
    run("DROP TABLE turns_unpartitioned")
    run("ALTER SEQUENCE turns_id_seq OWNED BY turns.id")
    run("ALTER TABLE turns ADD CONSTRAINT pk_turns PRIMARY KEY (id, project)")
    run("ALTER TABLE turns ADD CONSTRAINT uq_turns_project_turn_id UNIQUE (project, turn_id)")
    run("SET LOCAL maintenance_work_mem = '256MB'")
    for statement in _INDEXES:
        run(statement)
    for statement in (*_SUMMARY_TRIGGERS, _CLAIM, _RELEASE, *_ID_TRIGGERS):
        run(statement)
    run("ANALYZE turns")


def downgrade() -> None:
    if not _is_postgres():
        return
    run = op.execute
    run("ALTER TABLE turns RENAME TO turns_partitioned")
    run("ALTER SEQUENCE turns_id_seq OWNED BY NONE")
    run("ALTER TABLE turns_partitioned ALTER COLUMN id DROP DEFAULT")
    for name in (
        "ix_turns_asked_at",
        "ix_turns_asked_words",
        "ix_turns_project_asked_at",
        "ix_turns_project_words",
        "ix_turns_search_vector",
        "ix_turns_session_id_asked_at",
    ):
        run(f"DROP INDEX {name}")
    run("ALTER TABLE turns_partitioned DROP CONSTRAINT uq_turns_project_turn_id")
    run("ALTER TABLE turns_partitioned DROP CONSTRAINT pk_turns")
    run(_table("turns", partitioned=False))
    for statement in _STORAGE:
        run(statement)
    run(f"INSERT INTO turns ({_COLUMNS}) SELECT {_COLUMNS} FROM turns_partitioned ORDER BY id")
    run(
        f"INSERT INTO turns ({_COLUMNS[4:]}) SELECT DISTINCT ON (turn_id) {_COLUMNS[4:]}"
        " FROM turns_waiting WHERE turn_id NOT IN (SELECT turn_id FROM turns)"
        " ORDER BY turn_id, id DESC"
    )
    run("DROP TABLE turns_partitioned")
    run("DROP TABLE turns_waiting")
    run("DROP FUNCTION turns_claim_turn_id()")
    run("DROP FUNCTION turns_release_turn_id()")
    run("DROP TABLE turn_ids")
    run("DROP TABLE scrub_partitions")
    run("ALTER SEQUENCE turns_id_seq OWNED BY turns.id")
    run("ALTER TABLE turns ADD CONSTRAINT pk_turns PRIMARY KEY (id)")
    run("ALTER TABLE turns ADD CONSTRAINT uq_turns_turn_id UNIQUE (turn_id)")
    run("SET LOCAL maintenance_work_mem = '256MB'")
    for statement in _INDEXES:
        run(statement)
    for statement in _SUMMARY_TRIGGERS:
        run(statement)
    run("ANALYZE turns")
