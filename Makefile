# The two commands that matter: `make up` (whole stack with demo data) and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help
.PHONY: help up down logs test lint services venv migrate demo browser test-tools bench-upload

PORT ?= 8000
VENV := .venv
PY := $(VENV)/bin/python
RUN := var/run
LOG := var/log
# A secret key made once per checkout; DEBUG stays off, as in production.
export SECRET_KEY ?= $(shell mkdir -p var && { test -s var/secret_key || head -c 48 /dev/urandom | base64 | tr -d '\n/+=' > var/secret_key; } && cat var/secret_key)
export DJANGO_SETTINGS_MODULE := evalsite.settings

help:
	@echo "make up     start PostgreSQL, Redis, a Celery worker and the web server, with demo data"
	@echo "make down   stop what make up started"
	@echo "make logs   follow the web and worker logs"
	@echo "make test   run the test suite against real PostgreSQL and Redis"
	@echo "make lint   ruff, mypy and the migrations check"

$(VENV)/.installed: pyproject.toml
	@test -x $(PY) || $$(sh scripts/find-python.sh) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

venv: $(VENV)/.installed

services:
	@sh scripts/ensure-postgres.sh
	@sh scripts/ensure-redis.sh

migrate: venv services
	$(PY) manage.py migrate --noinput -v 0
	$(PY) manage.py collectstatic --noinput -v 0

demo: migrate
	$(PY) manage.py load_demo

up: demo
	@mkdir -p $(RUN) $(LOG)
	@sh scripts/stop.sh $(RUN)/web.pid $(RUN)/worker.pid
	$(VENV)/bin/celery -A evalsite worker -B --loglevel=INFO --concurrency=2 \
		--schedule=$(RUN)/celerybeat-schedule --pidfile=$(CURDIR)/$(RUN)/worker.pid \
		--logfile=$(CURDIR)/$(LOG)/worker.log --detach
	$(VENV)/bin/gunicorn evalsite.wsgi -c evalsite/gunicorn.conf.py --bind 127.0.0.1:$(PORT) \
		--pid $(RUN)/web.pid --access-logfile $(LOG)/web-access.log \
		--error-logfile $(LOG)/web.log --daemon
	@$(PY) scripts/wait_healthy.py http://127.0.0.1:$(PORT)/healthz
	@$(PY) manage.py demo_summary --url http://127.0.0.1:$(PORT)

down:
	@sh scripts/stop.sh $(RUN)/web.pid $(RUN)/worker.pid
	@if [ -f $(RUN)/redis.pid ]; then sh scripts/stop.sh $(RUN)/redis.pid; fi
	@if [ -f $(RUN)/postgres-started-by-evalsite ]; then \
		pg_ctlcluster $$(cat $(RUN)/postgres-started-by-evalsite) stop && \
		rm -f $(RUN)/postgres-started-by-evalsite && echo "stopped postgres"; fi

logs:
	tail -n 50 -F $(LOG)/web.log $(LOG)/web-access.log $(LOG)/worker.log

browser:
	@command -v chromium >/dev/null || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Programs the suite runs itself, installed here so that no test depends on what happens to
# be on the machine (scripts/ensure-test-programs.sh says which and why).
test-tools: browser
	@sh scripts/ensure-test-programs.sh

lint: venv services
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy metrics annotation/services
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) manage.py spectacular --validate --fail-on-warn --file /dev/null

# Tests use their own Redis database so that they never touch a running stack's queue.
test: venv services test-tools
	$(PY) manage.py collectstatic --noinput -v 0
	REDIS_URL=$${REDIS_URL:-redis://127.0.0.1:6379/15} $(VENV)/bin/pytest $(PYTEST_ARGS)

bench-upload: venv
	$(PY) bench/upload.py
