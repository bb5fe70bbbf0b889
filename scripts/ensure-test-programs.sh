#!/bin/sh
# Installs through apt the programs that tests run, when they are missing:
# - docker-compose (Debian's) validates docker-compose.yml in tests/test_compose.py; it needs
#   no Docker daemon, so the check is real on every machine instead of skipped;
# - redis-server and PostgreSQL's server binaries, from which the fault tests start private
#   servers (a machine that reaches its servers through REDIS_URL/DATABASE_URL may lack them);
# - pdftoppm (poppler-utils) renders the ranking tables' PDF to PNG in tests/metrics/test_tables.py.
# Chromium is the `browser` target's.
set -eu
missing=""
command -v docker-compose >/dev/null 2>&1 || missing="$missing docker-compose"
command -v redis-server >/dev/null 2>&1 || missing="$missing redis-server"
command -v pdftoppm >/dev/null 2>&1 || missing="$missing poppler-utils"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
if [ -n "$missing" ]; then
    echo "test programs: installing through apt:$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
