# `make serve` and `make test` each bootstrap .venv on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8765

.PHONY: serve test lint typecheck pytest bench bench-1m clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $@

serve: $(VENV)/.installed
	$(BIN)/recall migrate
	$(BIN)/recall serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev lint typecheck pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check history tests alembic bench
	$(BIN)/ruff format --check history tests alembic bench

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy --strict history

pytest: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q

bench: $(VENV)/.installed-dev
	$(BIN)/python -m bench.run --sizes 10000 100000

bench-1m: $(VENV)/.installed-dev
	$(BIN)/python -m bench.run --sizes 10000 100000 1000000

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
