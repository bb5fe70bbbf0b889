"""Waits until the URL answers 200 (at most 60 s) and prints its JSON; exits 1 otherwise."""

import json
import sys
import time
import urllib.error
import urllib.request

url = sys.argv[1]
deadline = time.monotonic() + 60
last = "no answer"
while time.monotonic() < deadline:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 (local URL)
            print(f"healthy: {json.dumps(json.load(response))}")
            sys.exit(0)
    except urllib.error.HTTPError as error:
        last = error.read().decode(errors="replace")
    except OSError as error:
        last = str(error)
    time.sleep(0.5)
print(f"{url} is not healthy after 60 s: {last}\nSee `make logs`.", file=sys.stderr)
sys.exit(1)
