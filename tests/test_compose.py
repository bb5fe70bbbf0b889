"""docker-compose.yml keeps the scale-out rules: `docker compose up --scale web=2 --scale
worker=2` must start two of each without port clashes, migration races or a doubled
periodic dispatcher. Parsed, not run (no Docker daemon in CI)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
APP_SERVICES = ("migrate", "web", "worker", "beat")


def command(name: str) -> str:
    value = SERVICES[name].get("command", "")
    return " ".join(value) if isinstance(value, list) else value


def test_scaled_services_publish_no_host_port():
    for name in ("web", "worker", "beat"):
        assert "ports" not in SERVICES[name], name
    assert SERVICES["web"]["expose"] == ["8000"]


def test_the_load_balancer_publishes_8000_and_round_robins_over_web():
    lb = SERVICES["lb"]
    assert lb["ports"] == ["8000:8000"]
    assert lb["depends_on"]["web"]["condition"] == "service_healthy"
    mounted = [volume.split(":") for volume in lb["volumes"]]
    assert [ROOT / source for source, target, _ in mounted] == [ROOT / "deploy" / "nginx.conf"]
    assert mounted[0][1] == "/etc/nginx/conf.d/default.conf"
    config = (ROOT / "deploy" / "nginx.conf").read_text()
    assert re.search(r"upstream web \{\s*server web:8000\b", config)
    assert "listen 8000;" in config
    assert "proxy_pass http://web;" in config


def test_migrations_and_demo_data_only_in_the_one_shot_service():
    assert "manage.py migrate" in command("migrate")
    assert SERVICES["migrate"]["restart"] == "no"
    for name in SERVICES:
        if name != "migrate":
            assert "migrate" not in command(name), name
            assert "load_demo" not in command(name), name
    for name in ("web", "worker", "beat"):
        condition = SERVICES[name]["depends_on"]["migrate"]["condition"]
        assert condition == "service_completed_successfully", name


def test_one_beat_and_workers_without_it():
    beats = [name for name in SERVICES if re.search(r"\bcelery\b.*\bbeat\b", command(name))]
    assert beats == ["beat"]
    worker = command("worker").split()
    assert "worker" in worker
    assert "-B" not in worker and "--beat" not in worker


def test_app_services_share_one_image_and_the_environment():
    images = {SERVICES[name]["image"] for name in APP_SERVICES}
    assert len(images) == 1
    for name in APP_SERVICES:
        environment = SERVICES[name]["environment"]
        assert environment["DATABASE_URL"].endswith("@postgres:5432/evalsite"), name
        assert environment["REDIS_URL"] == "redis://redis:6379/0", name


def test_healthchecks_kept():
    for name in ("postgres", "redis", "web", "worker", "lb"):
        assert SERVICES[name]["healthcheck"]["test"], name
    assert "/healthz" in " ".join(SERVICES["web"]["healthcheck"]["test"])


def test_web_counts_the_client_address_lb_forwards():
    # lb appends the client's address to X-Forwarded-For (deploy/nginx.conf); without a trusted
    # proxy count every client would be lb's address to the per-address login limit.
    config = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "X-Forwarded-For $proxy_add_x_forwarded_for" in config
    assert SERVICES["web"]["environment"]["TRUSTED_PROXY_COUNT"] == "${TRUSTED_PROXY_COUNT:-1}"


def test_postgres_is_ready_only_once_it_listens_on_tcp():
    # The image's first-start temporary server answers on the Unix socket only.
    test = SERVICES["postgres"]["healthcheck"]["test"]
    assert test[:2] == ["CMD", "pg_isready"]
    assert test[test.index("-h") + 1] == "127.0.0.1"


def test_a_worker_replica_pings_its_own_node():
    kind, check = SERVICES["worker"]["healthcheck"]["test"]
    assert kind == "CMD-SHELL"
    assert "inspect ping" in check
    assert "-d celery@$$HOSTNAME" in check  # $$: compose's escape for the shell's $HOSTNAME


def test_the_healthchecks_host_is_always_allowed():
    for name in ("web", "lb"):
        assert "http://127.0.0.1:8000/healthz" in " ".join(SERVICES[name]["healthcheck"]["test"])
    assert SERVICES["web"]["environment"]["ALLOWED_HOSTS"].endswith(",127.0.0.1")


def test_web_replicas_log_their_requests():
    web = SERVICES["web"]["command"]
    assert web[web.index("--access-logfile") + 1] == "-"


def compose_program() -> list[str] | None:
    """The first compose implementation that answers ``version``: Debian's ``docker-compose``
    (which `make test` installs) or the ``docker compose`` plugin. Asking first tells "no
    compose here" from "compose rejects the file": a docker client without the plugin
    answers ``docker compose -f …`` with "unknown shorthand flag: 'f'"."""
    candidates = [["docker-compose"], ["docker", "compose"]]
    for candidate in candidates:
        if shutil.which(candidate[0]) is None:
            continue
        asked = subprocess.run([*candidate, "version"], capture_output=True, text=True)
        if asked.returncode == 0:
            return candidate
    return None


def compose_config(path: Path) -> subprocess.CompletedProcess:
    program = compose_program()
    if program is None:
        if os.environ.get("CI"):
            pytest.fail("no compose implementation answers `version`: `make test` installs one")
        pytest.skip("neither `docker-compose version` nor `docker compose version` answers")
    return subprocess.run(
        [*program, "-f", str(path), "config", "-q"],
        env={"SECRET_KEY": "compose-test", "PATH": "/usr/bin:/bin:/usr/local/bin"},
        capture_output=True,
        text=True,
    )


def test_compose_accepts_the_file():
    checked = compose_config(ROOT / "docker-compose.yml")
    assert checked.returncode == 0, checked.stderr


def test_compose_rejects_a_misspelled_key(tmp_path):
    # The check above is only worth having if the validator reads the file against the
    # Compose schema: the same file with one service key misspelled must be refused.
    text = (ROOT / "docker-compose.yml").read_text()
    broken = re.sub(
        r"(?m)^(  web:\n(?:    .*\n)*?)    healthcheck:", r"\1    healthchek:", text, count=1
    )
    assert broken != text
    (tmp_path / "docker-compose.yml").write_text(broken)
    shutil.copytree(ROOT / "deploy", tmp_path / "deploy")
    checked = compose_config(tmp_path / "docker-compose.yml")
    assert checked.returncode != 0
    assert "healthchek" in checked.stderr
