import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
application = get_wsgi_application()
# Import every view now rather than on the first request, which would otherwise wait about a
# second for them (and every request queued behind it). gunicorn.conf.py preloads this module,
# so each worker, and each one restarted after max_requests, is forked warm.
get_resolver().url_patterns  # noqa: B018 (reading it imports every view)
