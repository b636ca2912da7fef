"""Storage, behind two ports: the data port (`repository.py`, TurnRepository) and the maintenance
port (`maintenance.py`, Maintenance), one adapter of each per backend (`sqlite/`, `postgres/`),
chosen by `backends.py`. What both SQL backends share sits here: the schema model (`models.py`),
the migrations runner, rows, views, hiding, retention, stats. Nothing above history/index.py
imports this package (docs/architecture.md)."""
