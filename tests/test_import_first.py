"""Every selector and service module imports when it is the first of the project's modules a
process imports. test_import_cycles reads the import statements but leaves out the package
``__init__`` a dotted import runs first; importing ``selectors.human.loading`` runs
``selectors/human/__init__.py``, and a module that package imports back could once not be
imported first (``selectors.contrastive``: an ImportError, whole test files uncollectable)."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("annotation/selectors", "annotation/services")


def _modules() -> list[str]:
    names = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _import_first(module: str) -> tuple[str, str]:
    code = f"import django; django.setup(); import {module}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "evalsite.settings"}
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    return module, run.stderr.strip().splitlines()[-1] if run.returncode else ""


def test_every_selector_and_service_module_imports_first():
    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = {name: error for name, error in pool.map(_import_first, _modules()) if error}
    assert failed == {}
