#!/bin/sh
# Makes sure PostgreSQL runs and the evalsite role and database exist.
# With DATABASE_URL set, that server is used as it is and nothing is started.
set -eu
if [ -n "${DATABASE_URL:-}" ]; then
    echo "postgres: using DATABASE_URL"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "postgres: not root, so not starting a cluster; set DATABASE_URL to a server you run." >&2
    exit 1
fi
if ! command -v pg_lsclusters >/dev/null 2>&1; then
    echo "postgres: installing postgresql through apt"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
cluster=$(pg_lsclusters --no-header | head -n 1)
if [ -z "$cluster" ]; then
    version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
    pg_createcluster "$version" main >/dev/null
    cluster=$(pg_lsclusters --no-header | head -n 1)
fi
set -- $cluster
version=$1 name=$2 status=$4
if [ "$status" != online ]; then
    pg_ctlcluster "$version" "$name" start
    mkdir -p var/run && echo "$version $name" > var/run/postgres-started-by-evalsite
fi
for _ in $(seq 1 50); do
    runuser -u postgres -- pg_isready -q -h 127.0.0.1 -p "$3" && break
    sleep 0.2
done
port=$3
psql_su() { runuser -u postgres -- psql -p "$port" -v ON_ERROR_STOP=1 -qtAc "$1"; }
if [ -z "$(psql_su "SELECT 1 FROM pg_roles WHERE rolname = 'evalsite'")" ]; then
    psql_su "CREATE ROLE evalsite LOGIN PASSWORD 'evalsite' CREATEDB"
fi
if [ -z "$(psql_su "SELECT 1 FROM pg_database WHERE datname = 'evalsite'")" ]; then
    psql_su "CREATE DATABASE evalsite OWNER evalsite"
fi
echo "postgres: cluster $version/$name online on port $port, database evalsite ready"
