# Two commands: `make run` serves the site on the embedded default (SQLite, in-memory channel layer;
# `make dev` adds Django's debug pages);
# `make test` installs what the tests need (Chromium and Node.js included) and runs the whole suite.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# apt-get needs root; use sudo when make runs as someone else.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run dev serve-prod test screenshots lint check-system-deps check-gettext messages translations bench bench-load bench-race bench-watch bench-leaderboard clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-run

# Development only: the development defaults (DEVELOPMENT) and Django's debug pages (DEBUG) are off unless
# a command turns them on, so a forgotten variable fails closed. `make run` serves the site as players
# see it, its own error pages included; `make dev` is the same with Django's debug pages.
run: export DEVELOPMENT = 1
run: $(VENV)/.installed-run translations
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py certify_daily_deals
	$(BIN)/python manage.py schedule_arenas
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

dev: export DEBUG = 1
dev: run

# Production settings on this machine: PROCESSES Daphne processes (default 2) from port 8001, against
# DATABASE_URL and REDIS_URL, e.g. make serve-prod DATABASE_URL=postgres://… REDIS_URL=redis://… (docs/deploy.md).
serve-prod: $(VENV)/.installed-run check-gettext
	deploy/serve-prod.sh

# nginx and openssl: a test runs the shipped deploy/nginx.conf in front of the site (tests/faults).
# redis-server: the fault tests and the rehearsal start Redis servers of their own. pgbouncer and
# iproute2 (`ip netns`): the rehearsal of several hosts (tests/hosts) starts its own PgBouncer and puts
# each host in a network namespace. Debian's pgbouncer and redis-server packages also enable a
# service, which the tests never use, so a service installed here is disabled again. Only what is
# missing is installed: a Node.js from another source brings its own npm, which Debian's npm package
# conflicts with.
check-system-deps: check-gettext
	@missing=""; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v nginx >/dev/null || test -x /usr/sbin/nginx || missing="$$missing nginx-light"; \
	command -v openssl >/dev/null || missing="$$missing openssl"; \
	command -v pgbouncer >/dev/null || test -x /usr/sbin/pgbouncer || missing="$$missing pgbouncer"; \
	command -v ip >/dev/null || test -x /usr/sbin/ip || missing="$$missing iproute2"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	[ -z "$$missing" ] || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; }; \
	for service in pgbouncer redis-server; do \
		case "$$missing" in *$$service*) $(SUDO) systemctl disable --now $$service >/dev/null 2>&1 || true;; esac; \
	done

# GNU gettext compiles the .po catalogues (locale/) into the .mo files Django reads; they are built, never committed.
check-gettext:
	@command -v msgfmt >/dev/null || ( $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq gettext )

translations: $(VENV)/.installed-run check-gettext
	DEBUG=1 $(BIN)/python manage.py compilemessages --ignore=.venv --ignore=node_modules

# After changing a page's wording: refresh locale/*/LC_MESSAGES/*.po, then translate what is new or fuzzy.
messages: $(VENV)/.installed-run check-gettext
	DEBUG=1 $(BIN)/python manage.py update_translations

# The Node.js tools of the tests (package.json pins them): axe-core, the accessibility checker the
# browser tests inject into pages, and ESLint for the site's JavaScript (eslint.config.js).
node_modules/axe-core/axe.min.js: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

lint: $(VENV)/.installed-dev node_modules/axe-core/axe.min.js
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	npx --no-install eslint frontend/
	$(BIN)/lint-imports

test: $(VENV)/.installed-dev check-system-deps lint translations node_modules/axe-core/axe.min.js
	DEBUG=1 $(BIN)/python manage.py makemigrations --check --dry-run
	node --test frontend/tests/
	$(BIN)/pytest -n 2 --dist loadgroup --durations=25

# The README's screenshots (docs/screenshots/): the browser tests that take them, told to save them.
# A plain `make test` never writes them.
screenshots: $(VENV)/.installed-dev check-system-deps translations node_modules/axe-core/axe.min.js
	SCREENSHOTS=1 $(BIN)/pytest tests/e2e/test_languages_in_browser.py tests/e2e/test_phone_race_in_browser.py \
		-k "daily_deal_is_played or 360x740"

bench: $(VENV)/.installed-run
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/solver.py
	$(BIN)/python bench/hints.py

# Many players at once: a two-process cluster on PostgreSQL and Redis, about a minute (docs/performance.md).
# Options pass through, e.g. make bench-load LOAD_ARGS="--players 200".
bench-load: $(VENV)/.installed-dev
	$(BIN)/python bench/load.py $(LOAD_ARGS)

# Races at once: 50 races of 4 bot racers on two Daphne processes, PostgreSQL and Redis (docs/performance.md).
# Options pass through, e.g. make bench-race RACE_ARGS="--races 25".
bench-race: $(VENV)/.installed-dev
	$(BIN)/python bench/race.py $(RACE_ARGS)

# Watching at scale: 1,000 watchers on one game, then 100 games with 10 watchers each, on two Daphne
# processes, against a plain websockets broadcast server (docs/performance.md); about four minutes.
# Options pass through, e.g. make bench-watch WATCH_ARGS="--scenarios one".
bench-watch: $(VENV)/.installed-dev
	$(BIN)/python bench/watch.py $(WATCH_ARGS)

# The leaderboard's reads on a day of 100,000 players, on a fresh PostgreSQL database (docs/performance.md).
# Options pass through, e.g. make bench-leaderboard BOARD_ARGS="--players 20000 --explain".
bench-leaderboard: $(VENV)/.installed-run
	$(BIN)/python bench/leaderboard.py $(BOARD_ARGS)

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
