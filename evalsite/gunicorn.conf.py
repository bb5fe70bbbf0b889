# gunicorn settings for `make up`; the command line adds bind, pid and log files.
# The shape was chosen by measurement with bench/load.py on a 2-core machine: 2 gthread
# workers x 8 threads (a process per core; threads overlap the database round trips).
# WEB_WORKER_CLASS, WEB_WORKERS and WEB_THREADS override it.
import os

worker_class = os.environ.get("WEB_WORKER_CLASS", "gthread")
workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "8"))
# Kept-alive connections save a TCP handshake per judgment (sync workers close them anyway).
keepalive = 30
timeout = 60
graceful_timeout = 20
# Workers are forked from a master that has imported the app (evalsite/wsgi.py), so a restart
# after max_requests costs a fork, not a second of imports. Code changes need a restart, not HUP.
preload_app = True
# A restart (leak insurance) still drops the worker's kept-alive connections and database
# sessions: at full load on 2 cores this is about once in 7 minutes per worker, spread apart.
max_requests = 100000
max_requests_jitter = 20000
# Django logs request errors (with tracebacks) to stderr; a daemonised gunicorn would send
# them to /dev/null, so they go to the error log instead.
capture_output = True
# The access log ends with the request's time in milliseconds (%(M)s), for finding slow ones.
access_log_format = '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(M)sms'
