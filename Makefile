# Two commands on a fresh machine: `make run` (the site with laptop defaults) and
# `make test` (every test). Both build .venv themselves from requirements.lock (exact
# versions with hashes, so every machine installs the same set); uv is used when present
# because it installs in seconds, pip otherwise. `make lock` regenerates the lock file
# after a change to pyproject.toml's dependencies.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
LOCK := requirements.lock
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install lock run test test-fast lint typecheck messages bench bench-variants bench-load deploy-check clean

install: $(STAMP)

# The locked set first (hash-checked), then the project itself without resolving again.
$(STAMP): pyproject.toml $(LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	if command -v uv >/dev/null 2>&1; then \
		uv pip install --python $(BIN)/python -r $(LOCK) && \
		uv pip install --python $(BIN)/python --no-deps -e .; \
	else \
		$(BIN)/python -m pip install --quiet --upgrade pip && \
		$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK) && \
		$(BIN)/python -m pip install --quiet --no-deps -e .; \
	fi
	touch $(STAMP)

# Needs uv (installed into .venv when it is not on the PATH).
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	if command -v uv >/dev/null 2>&1; then UV=uv; else \
		$(BIN)/python -m pip install --quiet uv && UV=$(BIN)/uv; fi; \
	$$UV pip compile pyproject.toml --extra dev --python-version 3.11 --universal \
		--generate-hashes -o $(LOCK)

run: install
	$(BIN)/python manage.py migrate --noinput
	DOBON_DEV_PORT=$(PORT) $(BIN)/python manage.py runserver $(HOST):$(PORT)

# Browser tests run in their own pytest process: sync Playwright and pytest-asyncio
# cannot share one event loop (FIELD-NOTES.md).
test: install
	$(BIN)/python -m pytest -m "not browser" $(PYTEST_ARGS)
	$(BIN)/python -m pytest -m browser $(PYTEST_ARGS)

test-fast: install
	$(BIN)/python -m pytest -m "not browser and not stack" -q $(PYTEST_ARGS)

# Modules checked by mypy --strict (Django-free, or typed throughout): one a line, so that
# branches adding modules merge cleanly.
STRICT := \
	game/rules \
	game/bots \
	game/history/replay.py \
	game/services/engines.py \
	game/live/sender.py \
	game/live/fanout.py \
	game/live/shared_reads.py \
	game/live/layer.py \
	game/live/budgets.py \
	game/instrument.py \
	game/docs_markdown.py \
	game/json_values.py \
	game/clock/heartbeat.py \
	game/metrics.py \
	game/logs.py \
	game/management/bench/cost.py \
	game/management/bench/players.py \
	game/management/bench/engines.py \
	game/management/bench/goals.py \
	game/management/bench/proxy.py \
	game/management/bench/variants.py \
	game/live/drain.py \
	game/clock/lease.py \
	game/ratings

lint: install
	$(BIN)/ruff check .
	$(BIN)/mypy --strict $(STRICT)
	# The deploy check's modules import each other by file (deploy/check/ is no package).
	MYPYPATH=deploy/check $(BIN)/mypy --strict --explicit-package-bases deploy/check/*.py

typecheck: install
	$(BIN)/mypy --strict $(STRICT)

bench: install
	$(BIN)/python -m game.management.bench.engines

# CPU time per rule variant against another tree's engines (docs/variants.md), e.g.
#   mkdir /tmp/base && git archive main game/rules game/__init__.py | tar -x -C /tmp/base
#   make bench-variants BASE=/tmp/base
bench-variants: install
	$(BIN)/python game/management/bench/variants.py --base $(BASE)

# Needs PostgreSQL and Redis (their own database / Redis db: the script flushes it).
BENCH_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/dobon_bench
BENCH_REDIS_URL ?= redis://127.0.0.1:6379/14
bench-load: install
	DATABASE_URL=$(BENCH_DATABASE_URL) REDIS_URL=$(BENCH_REDIS_URL) \
		SECRET_KEY=$${SECRET_KEY:-bench-$$($(BIN)/python -c "import secrets; print(secrets.token_hex(24))")} \
		$(BIN)/python manage.py bench_load $(BENCH_ARGS)

# The documented topology (docs/deploy.md) on this machine, as root: network namespaces
# as hosts, Debian's nginx, PostgreSQL, Redis, the systemd units' ExecStart lines.
deploy-check: install
	deploy/check/run

# After changing user-facing strings (needs GNU gettext); the compiled .mo is committed
# so that running the site needs no build step. One catalog, dobon_site/locale (the
# LOCALE_PATHS of settings.py): no app may have a locale/ of its own, or makemessages
# would move that app's strings there. Locations without line numbers keep merges small.
# The JS tables (static/js/table/strings.js) are not gettext; no djangojs domain.
# tests/test_translations.py runs this target in a copy and fails on any lost translation.
messages: install
	$(BIN)/python manage.py makemessages -l ja --no-obsolete --add-location file \
		--ignore "game/rules/*" --ignore "staticfiles/*" --ignore "tests/*"
	$(BIN)/python manage.py compilemessages --ignore ".venv"

clean:
	rm -rf $(VENV) .pytest_cache
