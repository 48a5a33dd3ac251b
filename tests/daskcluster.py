"""A real Dask cluster on 127.0.0.1 for the tests: ``dask scheduler`` and
``dask worker`` processes (no nanny, so killing a worker loses it), each in
its own process group, all stopped at the end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import ROOT

DASK = str(Path(sys.executable).parent / "dask")


class Cluster:
    """``address``: the scheduler's; ``workers``: the worker processes."""

    def __init__(self, tmp: Path, workers: int = 2, nthreads: int = 1, resources: list[str] | None = None):
        self.tmp = tmp
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []
        sched_file = tmp / "scheduler.json"
        self.scheduler = self._spawn([DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                      "--scheduler-file", str(sched_file)], "scheduler")
        deadline = time.monotonic() + 60
        while not sched_file.exists():
            if time.monotonic() > deadline or self.scheduler.poll() is not None:
                self.stop()
                raise RuntimeError("the Dask scheduler did not start: " + (tmp / "scheduler.log").read_text()[-2000:])
            time.sleep(0.1)
        time.sleep(0.2)  # written before it is complete on some versions
        self.address = json.loads(sched_file.read_text())["address"]
        for i in range(workers):
            extra = ["--resources", (resources or [])[i]] if resources and (resources[i] or "") else []
            self.workers.append(self._spawn([DASK, "worker", self.address, "--nthreads", str(nthreads),
                                             "--no-nanny", "--no-dashboard", "--host", "127.0.0.1",
                                             "--name", f"w{i}", *extra], f"worker{i}"))
        self.wait_for_workers(workers)

    def _spawn(self, argv: list[str], name: str) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "wb")
        p = subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.procs.append(p)
        return p

    def wait_for_workers(self, n: int, timeout_s: float = 90) -> None:
        from distributed import Client

        with Client(self.address, timeout=30) as c:
            c.wait_for_workers(n, timeout=timeout_s)

    def kill_worker(self, i: int) -> None:
        """SIGKILL worker ``i`` and everything it launched (a lost machine)."""
        p = self.workers[i]
        os.killpg(p.pid, signal.SIGKILL)
        p.wait(10)

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for p in reversed(self.procs):
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(5)
