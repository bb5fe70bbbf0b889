"""Runs bench/load.py as a subprocess and reads its figures (side_by_side.py, scaleout.py).

load.py prints one JSON line per run with ``--json``; a load.py from before that option
prints text, which is read as well (its p99 is then per request, not per judgment)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

LOAD_PY = Path(__file__).resolve().parent / "load.py"


def load_py_speaks_json() -> bool:
    helptext = subprocess.run(
        [sys.executable, str(LOAD_PY), "--help"], capture_output=True, text=True
    ).stdout
    return "--json" in helptext


def last_json_line(output: str) -> dict | None:
    lines = [line for line in output.splitlines() if line.startswith("{")]
    return json.loads(lines[-1]) if lines else None


def from_text(output: str) -> dict | None:
    """The figures of a load.py that prints only text: judgments/s, errors, exactness, and
    the p99 of single requests (next or submit), which is not a judgment's."""
    rate = re.search(r"(\d+) judgments, ([\d.]+) judgments/s", output)
    if not rate:
        return None
    p99 = re.search(r"p99 ([\d.]+) ms", output)
    errors = re.search(r"errors: (\d+)", output)
    return {
        "judgments": int(rate.group(1)),
        "judgments_per_s": float(rate.group(2)),
        "p99_ms": float(p99.group(1)) if p99 else None,
        "errors": int(errors.group(1)) if errors else 0,
        "exact": "exactly the acknowledged judgments: yes" in output,
        "p99_per_request": True,
    }


def run_figures(command: list[str], parse) -> dict:
    finished = subprocess.run(command, capture_output=True, text=True)
    figures = parse(finished.stdout)
    if figures is None:
        raise SystemExit(
            f"no figures from {' '.join(command)}:\n{finished.stdout}\n{finished.stderr}"
        )
    return figures


def load_py(urls: list[str], annotators: int, seconds: float, speaks_json: bool) -> dict:
    """One closed-loop run of load.py round-robin over ``urls``. A load.py without --json
    takes one URL: then one process per URL, each with its share of the annotators."""
    command = [sys.executable, str(LOAD_PY), "--seconds", str(seconds)]
    if speaks_json:
        command += ["--annotators", str(annotators), "--runs", "1", "--json"]
        for url in urls:
            command += ["--url", url]
        return run_figures(command, last_json_line)
    shares = [annotators // len(urls) + (i < annotators % len(urls)) for i in range(len(urls))]
    processes = [
        subprocess.Popen(
            [*command, "--url", url, "--annotators", str(share)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for url, share in zip(urls, shares, strict=True)
    ]
    parts = []
    for process in processes:
        out, err = process.communicate()
        figures = from_text(out)
        if figures is None:
            raise SystemExit(f"no figures from {process.args}:\n{out}\n{err}")
        parts.append(figures)
    p99s = [part["p99_ms"] for part in parts if part["p99_ms"] is not None]
    return {
        "judgments": sum(part["judgments"] for part in parts),
        "judgments_per_s": round(sum(part["judgments_per_s"] for part in parts), 2),
        "p99_ms": max(p99s) if p99s else None,
        "errors": sum(part["errors"] for part in parts),
        "exact": all(part["exact"] for part in parts),
        "p99_per_request": True,
    }
