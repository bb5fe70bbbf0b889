# gunicorn settings for `make up`; the command line adds bind, pid and log files.
import os

workers = int(os.environ.get("WEB_WORKERS", "3"))
threads = int(os.environ.get("WEB_THREADS", "4"))
worker_class = "gthread"
timeout = 60
graceful_timeout = 20
max_requests = 20000
max_requests_jitter = 2000
# Django logs request errors (with tracebacks) to stderr; a daemonised gunicorn would send
# them to /dev/null, so they go to the error log instead.
capture_output = True
