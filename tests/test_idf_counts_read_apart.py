"""Regression: four writers and four readers in threads, a search read the index's row count
(30), then a word's count after writers had added rows (57), and raised "math domain error"."""

from history.ranking import idf


def test_a_word_counted_in_more_rows_than_the_index_counted_ranks_as_in_every_row() -> None:
    assert idf(30, 57) == idf(30, 30) > 0
    assert idf(30, 3) > idf(30, 30)
