"""Benchmarks for recall-history: corpus generator, raw-sqlite3 baseline, runners, results."""
