"""Uploads WMT21 English→German through the REST API of a running stack (`make up`).

Source, references A, C and D and the 20 system outputs (1002 segments each) go into a new
campaign, one request per file; the script prints the wall time and checks that every
system is stored and has its metrics job queued. Target: under 10 s.

    .venv/bin/python bench/upload.py [--url http://127.0.0.1:8000] [--user manager]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from datetime import datetime
from http.client import HTTPConnection
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = [
    ROOT.parent / "shared" / "data" / "wmt21-en-de",
    ROOT / "tests" / "data" / "wmt21-en-de",
]


class Api:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.connection = HTTPConnection(parts.hostname, parts.port or 80, timeout=60)
        self.headers: dict[str, str] = {}

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        content_type: str = "application/json",
    ) -> tuple[int, object]:
        headers = {**self.headers, "Content-Type": content_type}
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"null")

    def post_json(self, path: str, data: dict) -> tuple[int, object]:
        return self.request("POST", path, json.dumps(data).encode())

    def upload(self, path: str, filename: str, data: bytes, **fields: str) -> tuple[int, object]:
        boundary = uuid.uuid4().hex
        disposition = "\r\nContent-Disposition: form-data; name="
        parts = [
            f'--{boundary}{disposition}"{key}"\r\n\r\n{value}\r\n'.encode()
            for key, value in fields.items()
        ]
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
            f'filename="{filename}"\r\nContent-Type: text/plain\r\n\r\n'.encode()
            + data
            + b"\r\n"
        )
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        return self.request("POST", path, body, f"multipart/form-data; boundary={boundary}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--user", default="manager")
    parser.add_argument("--password", default="manager-demo")
    parser.add_argument(
        "--watch",
        action="store_true",
        help="then wait for the metrics jobs, timing the campaign page meanwhile",
    )
    args = parser.parse_args()
    data = next((path for path in CANDIDATES if path.is_dir()), None)
    if data is None:
        print("no WMT21 data found", file=sys.stderr)
        return 2
    systems = sorted((data / "system-outputs").iterdir())
    files = {
        "source": data / "newstest2021.en-de.src.en",
        **{ref: data / f"newstest2021.en-de.ref.{ref}.de" for ref in "ACD"},
    }
    payloads = {key: path.read_bytes() for key, path in files.items()}
    system_payloads = [(path.name, path.read_bytes()) for path in systems]

    api = Api(args.url)
    status, token = api.post_json(
        "/api/v1/auth/token", {"username": args.user, "password": args.password}
    )
    if status != 200:
        print(f"login failed ({status}): {token}", file=sys.stderr)
        return 2
    api.headers["Authorization"] = f"Token {token['token']}"  # type: ignore[index]

    started = time.perf_counter()
    status, campaign = api.post_json(
        "/api/v1/campaigns",
        {
            "name": f"bench-upload {time.strftime('%Y-%m-%d %H:%M:%S')} {uuid.uuid4().hex[:6]}",
            "source_language": "en",
            "target_language": "de",
        },
    )
    assert status == 201, campaign
    base = f"/api/v1/campaigns/{campaign['id']}"  # type: ignore[index]
    status, body = api.upload(f"{base}/source", files["source"].name, payloads["source"])
    assert status == 201, body
    for ref in "ACD":
        status, body = api.upload(f"{base}/references", files[ref].name, payloads[ref], name=ref)
        assert status == 201, body
    for filename, payload in system_payloads:
        status, body = api.upload(f"{base}/systems/upload", filename, payload)
        assert status == 201, body
    elapsed = time.perf_counter() - started

    status, rows = api.request("GET", f"{base}/systems")
    assert status == 200, rows
    stored = {row["system"] for row in rows}  # type: ignore[union-attr]
    expected = {name.split(".hyp.")[1].rsplit(".", 1)[0] for name, _ in system_payloads}
    missing_jobs = [row["system"] for row in rows if row["job_state"] is None]  # type: ignore[union-attr]
    print(
        f"uploaded source, 3 references and {len(system_payloads)} systems "
        f"({sum(map(len, payloads.values())) + sum(len(p) for _, p in system_payloads)} bytes)"
        f" in {elapsed:.2f} s (target < 10 s)"
    )
    print(
        f"systems stored: {len(stored)}/{len(expected)}; metrics jobs queued: "
        f"{len(rows) - len(missing_jobs)}/{len(rows)}"
    )  # type: ignore[arg-type]
    ok = stored == expected and not missing_jobs
    if args.watch:
        ok = watch_jobs(api, args, base, campaign["id"]) and ok  # type: ignore[index]
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


def page_client(args: argparse.Namespace) -> tuple[Api, str]:
    """A logged-in browser-like session (cookies and CSRF token) for the HTML pages."""
    browser = Api(args.url)
    browser.connection.request("GET", "/login/")
    response = browser.connection.getresponse()
    html = response.read().decode()
    csrf = next(
        c.split("=", 1)[1].split(";")[0]
        for c in response.headers.get_all("Set-Cookie")
        if c.startswith("csrftoken=")
    )
    token = html.split('name="csrfmiddlewaretoken" value="', 1)[1].split('"', 1)[0]
    form = f"csrfmiddlewaretoken={token}&username={args.user}&password={args.password}"
    headers = {
        "Cookie": f"csrftoken={csrf}",
        "Content-Type": "application/x-www-form-urlencoded",
        "Referer": f"{args.url}/login/",
    }
    browser.connection.request("POST", "/login/", body=form.encode(), headers=headers)
    response = browser.connection.getresponse()
    response.read()
    session = next(
        c.split("=", 1)[1].split(";")[0]
        for c in response.headers.get_all("Set-Cookie")
        if c.startswith("sessionid=")
    )
    return browser, f"csrftoken={csrf}; sessionid={session}"


def watch_jobs(api: Api, args: argparse.Namespace, base: str, campaign_id: int) -> bool:
    """Waits for every metrics job, timing the manager's campaign page meanwhile."""
    browser, cookie = page_client(args)
    latencies: list[float] = []
    started = time.perf_counter()
    while time.perf_counter() - started < 600:
        before = time.perf_counter()
        browser.connection.request("GET", f"/campaigns/{campaign_id}/", headers={"Cookie": cookie})
        page = browser.connection.getresponse()
        page.read()
        latencies.append(time.perf_counter() - before)
        status, rows = api.request("GET", f"{base}/systems")
        if page.status != 200 or status != 200:
            print(f"page {page.status}, API {status}", file=sys.stderr)
            return False
        if all(row["job_state"] in {"done", "failed"} for row in rows):  # type: ignore[union-attr]
            break
        time.sleep(0.5)
    elapsed = time.perf_counter() - started
    durations = sorted(
        (
            datetime.fromisoformat(row["job_finished_at"])
            - datetime.fromisoformat(row["job_started_at"])
        ).total_seconds()
        for row in rows
        if row["job_state"] == "done"  # type: ignore[union-attr]
    )
    failed = [row["system"] for row in rows if row["job_state"] != "done"]  # type: ignore[union-attr]
    latencies.sort()
    if durations:
        median = durations[len(durations) // 2]
        print(
            f"all metrics jobs finished {elapsed:.1f} s after the upload; one job (BLEU, chrF "
            f"and TER with bootstrap intervals, then the campaign's paired tests): median "
            f"{median:.1f} s, max {durations[-1]:.1f} s"
        )
    print(
        f"campaign page while the jobs ran: {len(latencies)} loads, median "
        f"{1000 * latencies[len(latencies) // 2]:.0f} ms, max {1000 * latencies[-1]:.0f} ms"
    )
    if failed:
        print(f"failed jobs: {failed}", file=sys.stderr)
    return not failed


if __name__ == "__main__":
    sys.exit(main())
