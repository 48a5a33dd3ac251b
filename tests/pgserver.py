"""A throwaway PostgreSQL server for the tests: ``initdb`` into a temporary
directory and ``postgres`` on 127.0.0.1 (a free port), trust
authentication, stopped and deleted at the end of the session. Run as
``nobody`` when the tests run as root (PostgreSQL refuses to run as root).

Needs Debian's ``postgresql`` package (binaries under
/usr/lib/postgresql/N/bin; ``.ci/run`` installs it) and psycopg 3.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest


def _bindir() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if not found:
        on_path = shutil.which("initdb")
        if on_path is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql): the store tests need it")
        return Path(on_path).parent
    return Path(found[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    port: int
    user: str = "referee"

    def url(self, database: str, password: str | None = None) -> str:
        auth = f"{self.user}:{password}" if password else self.user
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A new empty database's URL."""
        import psycopg

        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user={self.user} dbname=postgres",
                             autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


def _start(fsync: bool = False) -> tuple[PgServer, subprocess.Popen, str]:
    """Start a server; ``fsync`` off by default (the tests kill clients, never the machine)."""
    import psycopg

    bindir = _bindir()
    root = tempfile.mkdtemp(prefix="referee-pg-")
    kw: dict = {}
    if os.geteuid() == 0:
        import pwd

        nobody = pwd.getpwnam("nobody")
        os.chown(root, nobody.pw_uid, nobody.pw_gid)
        kw = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
    data = os.path.join(root, "data")
    subprocess.run([str(bindir / "initdb"), "-D", data, "-U", "referee", "--auth=trust", "-E", "UTF8",
                    "--no-sync", "--no-instructions"], check=True, capture_output=True, cwd=root, **kw)
    port = _free_port()
    proc = subprocess.Popen([str(bindir / "postgres"), "-D", data, "-p", str(port), "-k", root,
                             "-c", "listen_addresses=127.0.0.1", "-c", f"fsync={'on' if fsync else 'off'}", "-c", "max_connections=200",
                             "-c", "shared_buffers=32MB"],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(root, "server.log"), "wb"),
                            cwd=root, start_new_session=True, **kw)
    deadline = time.monotonic() + 60
    while True:
        try:
            psycopg.connect(f"host=127.0.0.1 port={port} user=referee dbname=postgres", connect_timeout=2).close()
            break
        except psycopg.OperationalError:
            if proc.poll() is not None or time.monotonic() > deadline:
                log = Path(root, "server.log").read_text(errors="replace")[-2000:]
                proc.kill()
                raise RuntimeError(f"the test PostgreSQL server did not start: {log}")
            time.sleep(0.2)
    return PgServer(port), proc, root


def _stop(proc: subprocess.Popen, root: str) -> None:
    proc.send_signal(2)  # SIGINT: fast shutdown
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    server, proc, root = _start()
    try:
        yield server
    finally:
        _stop(proc, root)
