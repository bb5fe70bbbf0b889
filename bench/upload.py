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
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
