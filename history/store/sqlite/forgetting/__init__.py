"""Forgetting on SQLite in steps that each hold the write lock briefly, so a live agent's
records get through a forget of any size.

A small forget deletes its turns in one transaction, FTS5's secure-delete scrubbing each row from
the full-text index (a few ms a row). A large one first tombstones its conversations and lists
them in `forget_work` (one short transaction: search hides them all from then on), then deletes
their turns in batches with secure-delete off, which leaves their words in the index's old
segments: the owed scrub then rewrites the index, a few hundred pages a step, zeroes the pages
that rewrite left free (zeroing.py), and finally copies the WAL back into the database and cuts
it to zero (checkpoints.py). Each step is its own transaction; every piece of what is owed is in
the database (history/store/owed.py), so any process resumes it after a crash. An expiry goes
the same way, its turns emptied first (blanking.py).

A live record does not wait for a step: past SPOOL_AFTER_MS it writes its turn to the spool
(spool.py), whose turns move in between two steps. So the steps can be long enough that their
commits cost little; where there is no spool (no file to put it beside), they stay short.
Between two steps the forget lets the writers waiting on the lock through (writers.py).

The modules: forget.py (`Forgetting`: what the repository and the maintenance share), steps.py
(one step of the owed work and its `Work`), checkpoints.py, spool.py, writers.py, blanking.py,
zeroing.py. Nothing is imported here: the engine announces its writers through writers.py.
"""
