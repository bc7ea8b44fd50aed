# Two commands: `make run` serves the site on the embedded default (SQLite, in-memory channel layer);
# `make test` installs what the tests need (Chromium and Node.js included) and runs the whole suite.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# apt-get needs root; use sudo when make runs as someone else.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test lint check-system-deps bench bench-load clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py certify_daily_deals
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

check-system-deps:
	@command -v node >/dev/null && command -v chromium >/dev/null || \
		( $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq nodejs chromium )

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .

test: $(VENV)/.installed-dev check-system-deps lint
	$(BIN)/python manage.py makemigrations --check --dry-run
	node --test frontend/tests/
	$(BIN)/pytest

bench: $(VENV)/.installed-run
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/hints.py

# Many players at once: a two-process cluster on PostgreSQL and Redis, about a minute (docs/performance.md).
# Options pass through, e.g. make bench-load LOAD_ARGS="--players 200".
bench-load: $(VENV)/.installed-dev
	$(BIN)/python bench/load.py $(LOAD_ARGS)

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
