"""Scale-out on one machine: two web instances and two Celery workers on one PostgreSQL and
one Redis, against one instance; judgments/s rises, nothing is lost and every job runs once.

    .venv/bin/python bench/scaleout.py [--annotators 50] [--seconds 20] [--runs 1]
        [--web-workers 2] [--host-cpu 0.5] [--ports 8201 8202] [--jobs 10]

It uses the database, Redis and secret key of the environment (DATABASE_URL, REDIS_URL,
SECRET_KEY, or var/secret_key as `make up` writes it), migrated beforehand (`make up`, or
`manage.py migrate`); PostgreSQL and Redis must be running. It starts, and stops at the end:

1. web: one gunicorn with --web-workers workers on the first port, then one with twice as
   many workers, then two gunicorns (first and second port) with --web-workers each; for
   each shape, `bench/load.py` drives the annotators round-robin over the instances' URLs
   (a stand-in for the load balancer) and checks that the database holds exactly the
   judgments the servers acknowledged. Each instance stands for a web host: it runs in a
   cgroup of its own that lets it use at most --host-cpu cores (a CFS quota; needs root and
   the cgroup cpu controller, v1 or v2). Without that, one instance on this 2-core machine
   already takes what PostgreSQL and the load generator leave, and a second one can only
   share the same cores; --host-cpu 0 runs the instances unbounded.
2. jobs: two Celery workers (named scaleout1@ and scaleout2@, one process each, no -B) and
   one separate `celery beat` (the outbox dispatcher, so scaling workers never runs it
   twice); a campaign with --jobs systems and a reference queues that many metrics jobs
   through the services, and all of them are run again (the "rerun metrics" service);
   the job table is watched while they run, to see which worker took each, and at the end
   every job must be done, started once (attempts = 1), by one worker, with both workers
   having taken jobs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from _common import ROOT, Client, django_setup
from _loadrun import load_py, load_py_speaks_json

RUN, LOG = ROOT / "var" / "run", ROOT / "var" / "log"
VENV_BIN = Path(sys.executable).parent
CORPUS = ROOT / "demo" / "wmt21-en-de"
# The demo's 100 segments are the first 100 of WMT21 en-de: its 20 systems' first 100 lines.
SYSTEM_FILES = sorted((ROOT / "tests" / "data" / "wmt21-en-de" / "system-outputs").glob("*.de"))


class Processes:
    """What this script started, stopped in reverse order at the end (SIGTERM: gunicorn and
    Celery shut down warm)."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen] = []

    def start(self, name: str, command: list[str], cgroup: Path | None = None) -> subprocess.Popen:
        if cgroup is not None:
            # The process joins the cgroup before it execs, so every worker it forks is in it.
            command = ["sh", "-c", f'echo $$ > {cgroup}/cgroup.procs && exec "$@"', "sh", *command]
        log = (LOG / f"scaleout-{name}.log").open("w")
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.started.append(process)
        return process

    def stop(self, process: subprocess.Popen) -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.started.remove(process)

    def stop_all(self) -> None:
        for process in reversed(list(self.started)):
            self.stop(process)


CGROUP_V1_CPU, CGROUP_V2 = Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup")
CFS_PERIOD_US = 100_000


def host_cgroup(name: str, cores: float) -> Path:
    """A cgroup whose processes together get at most ``cores`` CPUs' time: one web host."""
    quota = int(cores * CFS_PERIOD_US)
    try:
        if (CGROUP_V1_CPU / "cpu.cfs_quota_us").exists():
            group = CGROUP_V1_CPU / name
            group.mkdir(exist_ok=True)
            (group / "cpu.cfs_period_us").write_text(str(CFS_PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(quota))
            return group
        if "cpu" in (CGROUP_V2 / "cgroup.controllers").read_text().split():
            subtree = CGROUP_V2 / "cgroup.subtree_control"
            if "cpu" not in subtree.read_text().split():
                subtree.write_text("+cpu")
            group = CGROUP_V2 / name
            group.mkdir(exist_ok=True)
            (group / "cpu.max").write_text(f"{quota} {CFS_PERIOD_US}")
            return group
    except OSError as error:
        raise SystemExit(
            f"cannot make a cgroup with a CPU quota ({error}); run as root, or pass "
            "--host-cpu 0 to run the web instances without a per-host budget"
        ) from error
    raise SystemExit("no cgroup cpu controller here; pass --host-cpu 0")


def host_cgroup_remove(group: Path) -> None:
    with contextlib.suppress(OSError):
        group.rmdir()


def wait_answering(url: str, seconds: float = 60) -> None:
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        try:
            Client(url).request("ping", "GET", "/healthz")  # 503 without a worker is fine
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"{url} does not answer; see {LOG}/scaleout-web-*.log")


def wait_logged(path: Path, text: str, seconds: float = 60) -> None:
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        if path.exists() and text in path.read_text(errors="replace"):
            return
        time.sleep(0.2)
    raise SystemExit(f"{path} never said {text!r}")


def web_shape(
    processes: Processes, args: argparse.Namespace, instances: int, workers: int
) -> list[subprocess.Popen]:
    started = []
    for port in args.ports[:instances]:
        command = [str(VENV_BIN / "gunicorn"), "evalsite.wsgi", "-c", "evalsite/gunicorn.conf.py"]
        command += ["--bind", f"127.0.0.1:{port}", "--workers", str(workers)]
        cgroup = host_cgroup(f"evalsite-host-{port}", args.host_cpu) if args.host_cpu else None
        started.append(processes.start(f"web-{port}", command, cgroup))
    for port in args.ports[:instances]:
        wait_answering(f"http://127.0.0.1:{port}")
    return started


def measure_web(processes: Processes, args: argparse.Namespace) -> list[tuple[str, list[dict]]]:
    speaks_json = load_py_speaks_json()
    host = f", {args.host_cpu:g} cores per host" if args.host_cpu else ", no CPU budget"
    shapes = [
        (f"one instance, {args.web_workers} workers{host}", 1, args.web_workers),
        (f"one instance, {2 * args.web_workers} workers{host}", 1, 2 * args.web_workers),
        (f"two instances, {args.web_workers} workers each{host}", 2, args.web_workers),
    ]
    results = []
    for title, instances, workers in shapes:
        started = web_shape(processes, args, instances, workers)
        urls = [f"http://127.0.0.1:{port}" for port in args.ports[:instances]]
        runs = []
        for number in range(1, args.runs + 1):
            figures = load_py(urls, args.annotators, args.seconds, speaks_json)
            runs.append(figures)
            print(
                f"{title}, run {number}: {figures['judgments_per_s']:.1f} judgments/s, "
                f"p99 {figures['p99_ms']} ms, errors {figures['errors']}, "
                f"database holds exactly the acknowledged judgments: {figures['exact']}",
                flush=True,
            )
        results.append((title, runs))
        for process in started:
            processes.stop(process)
    return results


def jobs_campaign(systems: int) -> tuple[int, list[int]]:
    """A campaign from the demo corpus with ``systems`` WMT21 system runs and its reference,
    through the services: each system upload queues its run's metrics job on commit."""
    import uuid

    from django.contrib.auth import get_user_model

    from annotation.models import SystemRun
    from annotation.services.campaigns import campaign_create
    from annotation.services.imports import upload_import

    tag = uuid.uuid4().hex[:6]
    owner = get_user_model().objects.create_user(f"scaleout-manager-{tag}")
    campaign = campaign_create(
        name=f"scaleout {tag}", source_language="en", target_language="de", owner=owner
    )
    upload_import(
        campaign=campaign,
        kind="source",
        user=owner,
        files=[("source.en", (CORPUS / "source.en").read_bytes())],
    )
    upload_import(
        campaign=campaign,
        kind="reference",
        name="A",
        user=owner,
        files=[("reference.A.de", (CORPUS / "reference.A.de").read_bytes())],
    )
    for path in SYSTEM_FILES[:systems]:
        name = path.name.removeprefix("newstest2021.en-de.hyp.").removesuffix(".de")
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)[:100]
        upload_import(
            campaign=campaign,
            kind="system",
            name=name,
            user=owner,
            files=[(f"{name}.de", "".join(lines).encode())],
        )
    run_ids = list(SystemRun.objects.filter(campaign=campaign).values_list("id", flat=True))
    return campaign.id, run_ids


def watch_jobs(run_ids: list[int], seconds: float) -> dict[int, set[str]]:
    """Polls the job table until every job of these runs is finished; returns, per job, the
    workers seen running it (the worker field is cleared when a job is done)."""
    from annotation.models import Job

    seen: dict[int, set[str]] = defaultdict(set)
    give_up = time.monotonic() + seconds
    while time.monotonic() < give_up:
        rows = list(
            Job.objects.filter(kind=Job.Kind.RUN_METRICS, target_id__in=run_ids).values_list(
                "id", "state", "worker"
            )
        )
        for job_id, state, worker in rows:
            if state == Job.State.RUNNING and worker:
                seen[job_id].add(worker.split("@")[0])
        if len(rows) == len(run_ids) and all(state in ("done", "failed") for _, state, _ in rows):
            return seen
        time.sleep(0.05)
    raise SystemExit(f"jobs not finished within {seconds} s")


def succeeded_in_log(worker: str) -> int:
    """Celery's own count: the run_job tasks this worker logged as succeeded."""
    text = (LOG / f"scaleout-worker-{worker}.log").read_text(errors="replace")
    return sum("run_job[" in line and "succeeded" in line for line in text.splitlines())


def measure_jobs(processes: Processes, args: argparse.Namespace) -> bool:
    from annotation.models import Job, RunScore
    from annotation.services.jobs import campaign_metrics_recompute

    schedule = RUN / "scaleout-celerybeat-schedule"
    for name in ("scaleout1", "scaleout2"):
        processes.start(
            f"worker-{name}",
            [str(VENV_BIN / "celery"), "-A", "evalsite", "worker", "-n", f"{name}@%h",
             "--concurrency", "1", "--loglevel", "INFO"],
        )  # fmt: skip
    processes.start(
        "beat",
        [str(VENV_BIN / "celery"), "-A", "evalsite", "beat", "--loglevel", "INFO",
         "--schedule", str(schedule)],
    )  # fmt: skip
    for name in ("scaleout1", "scaleout2"):
        wait_logged(LOG / f"scaleout-worker-{name}.log", "ready.")

    from annotation.models import Campaign

    campaign_id, run_ids = jobs_campaign(args.jobs)
    seen = watch_jobs(run_ids, seconds=600)
    asked = campaign_metrics_recompute(campaign=Campaign.objects.get(id=campaign_id))
    seen_rerun = watch_jobs(run_ids, seconds=600)
    jobs = list(Job.objects.filter(kind=Job.Kind.RUN_METRICS, target_id__in=run_ids))
    by_worker: dict[str, int] = defaultdict(int)
    for workers in list(seen.values()) + list(seen_rerun.values()):
        for worker in workers:
            by_worker[worker] += 1
    done = sum(job.state == Job.State.DONE for job in jobs)
    started_once = sum(job.attempts == 1 for job in jobs)
    one_worker = sum(len(workers) == 1 for workers in seen_rerun.values())
    scores = RunScore.objects.filter(run_id__in=run_ids)
    runs_scored = scores.values("run_id").distinct().count()
    logged = {name: succeeded_in_log(name) for name in ("scaleout1", "scaleout2")}
    print(
        f"metrics jobs: {len(run_ids)} queued by the uploads, then {asked} rerun; "
        f"{done}/{len(jobs)} done, {started_once}/{len(jobs)} started once in the rerun, "
        f"{one_worker}/{len(jobs)} seen on exactly one worker; runs scored: "
        f"{runs_scored}/{len(run_ids)}"
    )
    print(
        "jobs seen running per worker (both rounds): "
        + ", ".join(f"{name} {count}" for name, count in sorted(by_worker.items()))
        + "; run_job tasks each worker's log says succeeded (older queued jobs included): "
        + ", ".join(f"{name} {count}" for name, count in logged.items())
    )
    return (
        done == len(jobs) == len(run_ids)
        and started_once == len(jobs)
        and one_worker == len(jobs)
        and runs_scored == len(run_ids)
        and len(by_worker) == 2
    )


def other_workers() -> list[str]:
    """Celery workers already answering on this broker (e.g. `make up`'s): they would take
    some of the jobs and the per-worker count would mean nothing."""
    from evalsite.celery import app

    return sorted(name for reply in app.control.ping(timeout=1.0) for name in reply)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--annotators", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument(
        "--host-cpu",
        type=float,
        default=0.5,
        help="cores each web instance may use (a cgroup CPU quota standing for a host); 0: no cap",
    )
    parser.add_argument("--ports", type=int, nargs=2, default=[8201, 8202])
    parser.add_argument(
        "--jobs", type=int, default=10, choices=range(2, 21), help="system runs, one job each"
    )
    parser.add_argument("--skip-web", action="store_true", help="only the jobs part")
    parser.add_argument("--skip-jobs", action="store_true", help="only the web part")
    args = parser.parse_args()
    if args.host_cpu < 0:
        parser.error("--host-cpu must be 0 (no cap) or more")

    RUN.mkdir(parents=True, exist_ok=True)
    LOG.mkdir(parents=True, exist_ok=True)
    django_setup()
    # The servers and workers started here must share the driver's secret key and database.
    os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
    if not args.skip_jobs and (others := other_workers()):
        print(
            f"another Celery worker answers on this broker ({', '.join(others)}); stop it "
            "first (for `make up`'s: sh scripts/stop.sh var/run/worker.pid), or pass "
            "--skip-jobs",
            file=sys.stderr,
        )
        return 2
    processes = Processes()
    try:
        web = [] if args.skip_web else measure_web(processes, args)
        jobs_ok = True if args.skip_jobs else measure_jobs(processes, args)
    finally:
        processes.stop_all()
        for port in args.ports:
            host_cgroup_remove(CGROUP_V1_CPU / f"evalsite-host-{port}")
            host_cgroup_remove(CGROUP_V2 / f"evalsite-host-{port}")
    print()
    if web:
        rates = f"judgments/s (lowest–highest of {args.runs} runs)"
        print(f"| shape | {rates} | p99 (ms) | errors | exact |")
        print("|---|---|---|---|---|")
    web_ok = True
    for title, runs in web:
        rates = [run["judgments_per_s"] for run in runs]
        p99s = [run["p99_ms"] for run in runs if run["p99_ms"] is not None]
        exact = all(run["exact"] for run in runs)
        errors = sum(run["errors"] for run in runs)
        web_ok = web_ok and exact and not errors
        print(
            f"| {title} | {min(rates):.1f}–{max(rates):.1f} | "
            f"{max(p99s) if p99s else '–'} | {errors} | {'yes' if exact else 'NO'} |"
        )
    if web:
        means = [sum(r["judgments_per_s"] for r in runs) / len(runs) for _, runs in web]
        print(
            f"two instances vs one with the same workers each: ×{means[2] / means[0]:.2f}; "
            f"vs one with as many workers in all: ×{means[2] / means[1]:.2f}"
        )
    if not args.skip_jobs:
        print(f"jobs exactly once on both workers: {'yes' if jobs_ok else 'NO'}")
    return 0 if web_ok and jobs_ok else 1


if __name__ == "__main__":
    sys.exit(main())
