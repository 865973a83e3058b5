# Two commands on a fresh machine: `make run` (the site with laptop defaults) and
# `make test` (every test). Both build .venv themselves; uv is used when present
# because it installs in seconds, pip otherwise.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test test-fast lint typecheck messages bench bench-load clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	if command -v uv >/dev/null 2>&1; then \
		uv pip install --python $(BIN)/python -e '.[dev]'; \
	else \
		$(BIN)/python -m pip install --quiet --upgrade pip && \
		$(BIN)/python -m pip install --quiet -e '.[dev]'; \
	fi
	touch $(STAMP)

run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py runserver $(HOST):$(PORT)

# Browser tests run in their own pytest process: sync Playwright and pytest-asyncio
# cannot share one event loop (FIELD-NOTES.md).
test: install
	$(BIN)/python -m pytest -m "not browser" $(PYTEST_ARGS)
	$(BIN)/python -m pytest -m browser $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -m "not browser and not stack" -q $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy --strict game/rules game/bots

typecheck: install
	$(BIN)/mypy --strict game/rules game/bots

bench: install
	$(BIN)/python -m game.rules.bench

# Needs PostgreSQL and Redis (their own database / Redis db: the script flushes it).
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/dobon_bench
BENCH_REDIS_URL ?= redis://127.0.0.1:6379/14
bench-load: install
	DATABASE_URL=$(BENCH_DATABASE_URL) REDIS_URL=$(BENCH_REDIS_URL) \
		$(BIN)/python -m game.bench_load $(BENCH_ARGS)

# After changing user-facing strings (needs GNU gettext); the compiled .mo is committed
# so that running the site needs no build step.
messages: install
	$(BIN)/python manage.py makemessages -l ja --no-obsolete \
		--ignore "game/rules/*" --ignore "staticfiles/*" --ignore "tests/*"
	$(BIN)/python manage.py compilemessages --ignore ".venv"

clean:
	rm -rf $(VENV) .pytest_cache
