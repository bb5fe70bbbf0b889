#!/bin/sh
# Stops the processes whose pid files are given, waiting until each has exited, and leaves
# none of their children behind.
#
# TERM first: gunicorn finishes its requests, the Celery worker its jobs (warm shutdown).
# A worker still busy after 10 s has its pool processes killed: the worker then hands their
# jobs back to the broker at once (reject on worker lost, acks late), so the next worker runs
# them again from the start, instead of waiting for the visibility timeout. Whatever is left
# after that is killed, children included: killing only the parent would orphan its pool and
# its embedded beat, which would go on running (two beats, jobs nobody can stop).
wait_gone() {
    for _ in $(seq 1 "$2"); do
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.1
    done
    return 1
}

for pidfile in "$@"; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        if ! wait_gone "$pid" 100; then
            pkill -KILL -P "$pid"
            if ! wait_gone "$pid" 50; then
                pkill -KILL -P "$pid"
                kill -KILL "$pid" 2>/dev/null
            fi
        fi
        echo "stopped $(basename "$pidfile" .pid) (pid $pid)"
    fi
    rm -f "$pidfile"
done
