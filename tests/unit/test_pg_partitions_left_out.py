"""An every-project search beside a partition being rewritten reads the other partitions only
(history/store/postgres/rewriting.py): the statement's `turns` becomes their union."""

from __future__ import annotations

from history.store.postgres.rewriting import without


def test_the_table_read_becomes_the_union_of_the_partitions_left() -> None:
    statement = "SELECT turns.id FROM turns WHERE turns.id IN (1, 2)"
    assert without(statement, ["turns_p01", "turns_p02"]) == (
        "SELECT turns.id FROM (SELECT * FROM turns_p01 UNION ALL SELECT * FROM turns_p02)"
        " AS turns WHERE turns.id IN (1, 2)"
    )


def test_other_tables_are_read_as_they_were() -> None:
    statement = "SELECT count(*) FROM turns_waiting JOIN turn_ids USING (turn_id)"
    assert without(statement, ["turns_p01"]) == statement


def test_with_every_partition_held_nothing_is_read() -> None:
    assert without("SELECT id FROM turns", []) == (
        "SELECT id FROM (SELECT * FROM ONLY turns) AS turns"
    )
