"""A real standalone Flink cluster for end-to-end tests, driven through the project's own scripts
(deploy/bin/start-cluster, start-taskmanager, stop-cluster, flink) and Flink's REST API.

Every process is tracked by PID (the scripts' PID files); ``Cluster.stop`` stops them by PID and
SIGKILLs any that outlive it. Failures to come up raise ``ClusterError`` carrying the log tails."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BIN = ROOT / "deploy" / "bin"
JOB_JAR = ROOT / "job" / "target" / "fanout-job.jar"


class ClusterError(AssertionError):
    """The cluster did not come up, or a job did not reach the expected state; holds the log tails."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (killed child not yet reaped by its parent) is dead for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class Cluster:
    """One session cluster in its own run directory, on free REST/RPC ports."""

    def __init__(self, run_dir: Path, timeout: int = 120):
        self.run_dir = Path(run_dir)
        self.rest_port = free_port()
        self.env = dict(os.environ,
                        FANOUT_CLUSTER_DIR=str(self.run_dir),
                        FANOUT_REST_PORT=str(self.rest_port),
                        FANOUT_RPC_PORT=str(free_port()),
                        FANOUT_PROM_PORTS="9350-9370",
                        FANOUT_CLUSTER_TIMEOUT=str(timeout),
                        FANOUT_NO_BUILD="1")
        self.env.pop("FLINK_CONF_DIR", None)
        self.url = f"http://127.0.0.1:{self.rest_port}"
        self.seen_pids: set[int] = set()

    # ---- processes -------------------------------------------------------------------------------

    def script(self, name: str, *args: str, timeout: float = 300, check: bool = True, env=None):
        proc = subprocess.run([str(BIN / name), *args], capture_output=True, text=True, timeout=timeout,
                              env=env or self.env, cwd=ROOT)
        self._remember_pids()
        if check and proc.returncode != 0:
            raise ClusterError(f"{name} {' '.join(args)} failed ({proc.returncode}):\n"
                               f"{proc.stdout[-3000:]}\n{proc.stderr[-12000:]}\n{self.log_tails()}")
        return proc

    def start(self):
        self.script("start-cluster")
        return self

    def start_taskmanager(self):
        return self.script("start-taskmanager")

    def pids(self) -> dict[str, int]:
        """Live processes of this cluster by name (jobmanager, taskmanager-N), from the PID files."""
        found = {}
        for f in sorted((self.run_dir / "pid").glob("*.pid")):
            pid = int(f.read_text().strip())
            if pid_alive(pid):
                found[f.stem] = pid
        return found

    def _remember_pids(self):
        self.seen_pids.update(self.pids().values())

    def kill_taskmanager(self, name: str) -> int:
        """kill -9 of one TaskManager process, as a machine or container loss would do."""
        pid = self.pids()[name]
        os.kill(pid, signal.SIGKILL)
        self.wait_for(f"{name} (pid {pid}) to die of SIGKILL", lambda: not pid_alive(pid), 10, 0.05)
        return pid

    def stop(self):
        """stop-cluster (by PID files), then SIGKILL of any process of this cluster still alive."""
        self._remember_pids()
        try:
            self.script("stop-cluster", check=False, timeout=120)
        finally:
            for pid in self.seen_pids:
                if pid_alive(pid):
                    os.kill(pid, signal.SIGKILL)

    def log_tails(self, lines: int = 60) -> str:
        out = []
        for f in sorted((self.run_dir / "log").glob("*")):
            if f.is_file() and f.stat().st_size:
                tail = f.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"----- tail of {f}\n" + "\n".join(tail))
        return "\n".join(out)

    # ---- the flink CLI ---------------------------------------------------------------------------

    def flink(self, *args: str, timeout: float = 300, check: bool = True):
        proc = subprocess.run([str(BIN / "flink"), *args], capture_output=True, text=True, timeout=timeout,
                              env=self.env, cwd=ROOT)
        if check and proc.returncode != 0:
            raise ClusterError(f"flink {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-6000:]}\n"
                               f"{proc.stderr[-6000:]}\n{self.log_tails()}")
        return proc

    def submit(self, *job_args: str, savepoint: str | None = None, allow_non_restored: bool = False) -> str:
        """`flink run -d [-s SAVEPOINT [--allowNonRestoredState]] fanout-job.jar ARGS` (no -c: the jar's
        Main-Class); the job id."""
        restore = ["-s", savepoint] if savepoint else []
        if allow_non_restored:
            restore.append("--allowNonRestoredState")
        proc = self.flink("run", "-d", *restore, str(JOB_JAR), *job_args)
        m = re.search(r"JobID ([0-9a-f]{32})", proc.stdout)
        assert m, f"no job id in the output of flink run:\n{proc.stdout}\n{proc.stderr[-3000:]}"
        return m.group(1)

    def stop_with_savepoint(self, job_id: str, directory: Path, native: bool = False, drain: bool = False) -> str:
        """`flink stop [--type native] [--drain] --savepointPath DIR JOB`; the savepoint's path. With drain the
        sources end their input first, so every operator finishes and the file sink commits all it holds."""
        kind = ["--type", "native"] if native else []
        if drain:
            kind.append("--drain")
        proc = self.flink("stop", *kind, "--savepointPath", directory.as_uri(), job_id, timeout=180)
        m = re.search(r"Savepoint completed\. Path: (\S+)", proc.stdout)
        assert m, f"no savepoint path in the output of flink stop:\n{proc.stdout}\n{proc.stderr[-3000:]}"
        return m.group(1)

    # ---- REST ------------------------------------------------------------------------------------

    def rest(self, path: str, method: str = "GET"):
        req = urllib.request.Request(self.url + path, method=method)
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body else None

    def job(self, job_id: str) -> dict:
        return self.rest(f"/jobs/{job_id}")

    def checkpoints(self, job_id: str) -> dict:
        return self.rest(f"/jobs/{job_id}/checkpoints")

    def wait_for(self, what: str, condition, timeout: float, interval: float = 0.1):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = condition()
            if value:
                return value
            time.sleep(interval)
        raise ClusterError(f"timed out after {timeout}s waiting for {what}\n{self.log_tails()}")

    def vertex(self, job_id: str, name: str) -> dict:
        """The job's vertex whose name contains ``name`` (REST: status and metrics such as write-records)."""
        found = [v for v in self.job(job_id)["vertices"] if name in v["name"]]
        assert len(found) == 1, f"{len(found)} vertices named like {name!r}: {[v['name'] for v in self.job(job_id)['vertices']]}"
        return found[0]

    def wait_for_failure(self, job_id: str, timeout: float = 300) -> str:
        """Waits until the job is FAILED (any other terminal state is an error); its exception history as text."""
        def failed():
            state = self.job_state(job_id)
            if state in ("FINISHED", "CANCELED"):
                raise ClusterError(f"job {job_id} ended {state}, expected FAILED")
            return state == "FAILED"
        self.wait_for(f"job {job_id} to fail", failed, timeout, interval=0.25)
        return json.dumps(self.rest(f"/jobs/{job_id}/exceptions"))

    def job_state(self, job_id: str) -> str:
        return self.job(job_id)["state"]

    def wait_for_job(self, job_id: str, timeout: float = 300) -> dict:
        """Waits until the job is FINISHED; any other terminal state fails with the logs."""
        def done():
            state = self.job_state(job_id)
            if state in ("FAILED", "CANCELED"):
                exceptions = self.rest(f"/jobs/{job_id}/exceptions")
                raise ClusterError(f"job {job_id} ended {state}: {json.dumps(exceptions)[:4000]}\n"
                                   f"{self.log_tails()}")
            return state == "FINISHED"
        self.wait_for(f"job {job_id} to finish", done, timeout, interval=0.25)
        return self.job(job_id)

    def wait_for_completed_checkpoints(self, job_id: str, count: int, timeout: float = 120) -> int:
        def reached():
            if self.job_state(job_id) != "RUNNING":
                raise ClusterError(f"job {job_id} is {self.job_state(job_id)} before checkpoint {count}")
            n = self.checkpoints(job_id)["counts"]["completed"]
            return n if n >= count else 0
        return self.wait_for(f"{count} completed checkpoints of {job_id}", reached, timeout, interval=0.05)

    def cancel_running_jobs(self):
        for job in self.rest("/jobs/overview")["jobs"]:
            if job["state"] not in ("FINISHED", "FAILED", "CANCELED"):
                self.rest(f"/jobs/{job['jid']}?mode=cancel", method="PATCH")

    def wait_for_free_slots(self, slots: int, timeout: float = 120):
        self.wait_for(f"{slots} free task slots",
                      lambda: self.rest("/overview")["slots-available"] >= slots, timeout, interval=0.25)


class PrometheusScrape:
    """Reads live metrics of a TaskManager from its Prometheus reporter (plugins/prometheus), whose
    port the TaskManager logs on start. Unlike Flink's REST metrics, these are current at each scrape."""

    def __init__(self, cluster: Cluster, taskmanager: str):
        log = cluster.run_dir / "log" / f"{taskmanager}.log"
        m = cluster.wait_for(f"the Prometheus port of {taskmanager}",
                             lambda: re.search(r"Started PrometheusReporter HTTP server on port (\d+)",
                                               log.read_text(errors="replace")), 60)
        self.url = f"http://127.0.0.1:{m.group(1)}/metrics"

    def text(self) -> str:
        # The reporter's HTTP server sometimes drops a connection on a loaded machine: a few retries.
        for attempt in range(4):
            try:
                with urllib.request.urlopen(self.url, timeout=5) as r:
                    return r.read().decode()
            except (ConnectionError, http.client.HTTPException, urllib.error.URLError):
                if attempt == 3:
                    raise
                time.sleep(0.2)

    def total(self, name: str, job_id: str, operator: str | None = None) -> float:
        """Sum of a metric over the job's subtasks on this TaskManager, of one operator when given (its
        ``operator_name`` label), 0 if not reported yet."""
        total = 0.0
        for line in self.text().splitlines():
            if (line.startswith(name + "{") and f'job_id="{job_id}"' in line
                    and (operator is None or f'operator_name="{operator}"' in line)):
                total += float(line.rsplit(" ", 1)[1])
        return total


def live_taskmanager(cluster: Cluster) -> str:
    """The name of the cluster's one live TaskManager."""
    names = [n for n in cluster.pids() if n.startswith("taskmanager-")]
    assert len(names) == 1, f"expected one live TaskManager, found {names}"
    return names[0]
