#!/bin/sh
# Makes sure a Redis server answers on localhost:6379 (installed through apt when missing).
# With REDIS_URL set, that server is used as it is and nothing is started.
set -eu
if [ -n "${REDIS_URL:-}" ]; then
    echo "redis: using REDIS_URL"
    exit 0
fi
if ! command -v redis-server >/dev/null 2>&1; then
    echo "redis: installing redis-server through apt"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi
if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    echo "redis: already answering on 127.0.0.1:6379"
    exit 0
fi
mkdir -p var/run var/log var/redis
redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --dir "$PWD/var/redis" \
    --pidfile "$PWD/var/run/redis.pid" --logfile "$PWD/var/log/redis.log" \
    --appendonly yes --save ""
for _ in $(seq 1 50); do
    redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break
    sleep 0.1
done
redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null
echo "redis: started on 127.0.0.1:6379"
