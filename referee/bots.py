"""Launching bot processes: own session and process group, resource limits,
captured and size-capped output, and guaranteed reaping.

What the sandbox does: each bot runs ``setsid`` (own session and process
group, so the whole group can be killed), in its own working directory, with
``RLIMIT_CPU`` (CPU seconds), ``RLIMIT_AS`` (address space), ``RLIMIT_NPROC``
(processes of the user: only effective for non-root users), ``RLIMIT_NOFILE``
(open files), ``RLIMIT_FSIZE`` (bytes per written file, which also caps its
stdout/stderr capture files) and ``RLIMIT_CORE = 0`` (no core dumps). On
stop, the whole process group gets SIGTERM, then SIGKILL after a grace
period, and is waited for, with every process left in its group: the
referee makes itself the "child subreaper" of its descendants (Linux), so a
bot's children orphaned by their leader's death are re-parented to the
referee, not to an init process that may never reap them (a container's
PID 1 often does not), and are reaped at stop.

What it does NOT do (see docs/sandbox.md): no network isolation, no
filesystem isolation beyond the working directory (a bot can read what the
referee's user can read), no protection against a bot that escapes its
process group by double-forking into a new session. Public competitions
should additionally run bots as a dedicated unprivileged user, in a
container or network namespace.
"""

from __future__ import annotations

import errno
import os
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import atexit
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Limits:
    """Resource limits of one bot process (``0`` = unlimited)."""

    cpu_seconds: int = 600
    memory_mb: int = 2048
    processes: int = 256
    open_files: int = 256
    file_size_mb: int = 64

    def apply(self) -> None:
        """Set the limits on the current process (runs in the child before exec)."""
        def lim(res: int, value: int) -> None:
            if value > 0:
                try:
                    resource.setrlimit(res, (value, value))
                except (ValueError, OSError):
                    pass  # cannot raise a hard limit above the parent's; keep the parent's

        _die_with_parent()
        lim(resource.RLIMIT_CPU, self.cpu_seconds)
        lim(resource.RLIMIT_AS, self.memory_mb * 1024 * 1024)
        lim(resource.RLIMIT_NPROC, self.processes)
        lim(resource.RLIMIT_NOFILE, self.open_files)
        lim(resource.RLIMIT_FSIZE, self.file_size_mb * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    def rlimits(self) -> tuple[int, int, int, int, int]:
        """CPU seconds, address-space bytes, processes, open files, file-size bytes (0 = unlimited)."""
        mb = 1024 * 1024
        return (self.cpu_seconds, self.memory_mb * mb, self.processes, self.open_files, self.file_size_mb * mb)


#: Run by a fresh interpreter (``python -S -E -c``) between the referee and the
#: bot: sets the bot's limits and parent-death signal, then execs the bot, so
#: the limits hold from the bot's first instruction. Launching through it
#: instead of a ``preexec_fn`` lets CPython spawn with vfork: a plain fork of
#: the referee runs gRPC's fork handlers in the child, whose restarted poller
#: thread crashed about one launch in six while the referee served gRPC traffic
#: (SIGSEGV, or "epoll_wait error: Bad file descriptor" once close_fds had
#: closed its epoll fd), before the bot even started.
#: argv: referee pid, the five :meth:`Limits.rlimits`, then the bot's argv.
_EXEC_LIMITED = r"""
import os, resource, sys
try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
except (OSError, AttributeError):
    pass
if os.getppid() != int(sys.argv[1]):
    os._exit(70)  # the referee died before the parent-death signal was armed
for res, v in zip((resource.RLIMIT_CPU, resource.RLIMIT_AS, resource.RLIMIT_NPROC, resource.RLIMIT_NOFILE,
                   resource.RLIMIT_FSIZE), map(int, sys.argv[2:7])):
    if v > 0:
        try:
            resource.setrlimit(res, (v, v))
        except (ValueError, OSError):
            pass  # cannot raise a hard limit above the referee's; keep the referee's
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
os.execvp(sys.argv[7], sys.argv[7:])
"""


def _check_executable(prog: str, cwd: Path, env: dict[str, str]) -> None:
    """Raise ``OSError`` as ``Popen`` would if ``prog`` cannot be executed
    (the launch itself goes through an interpreter, which always exists)."""
    if os.sep in prog:
        path = prog if os.path.isabs(prog) else os.path.join(cwd, prog)
        if not os.path.isfile(path):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", prog)
        if not os.access(path, os.X_OK):
            raise PermissionError(errno.EACCES, "Permission denied", prog)
    elif shutil.which(prog, path=env.get("PATH", os.defpath)) is None:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", prog)


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the referee dies (even by kill -9)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: rely on the stream closing
        pass


def split_command(command: str) -> list[str]:
    """Split a bot command line; a leading ``python``/``python3`` becomes this
    interpreter, so sample bots run in the referee's environment. Raises
    ``ValueError`` for an empty command."""
    argv = shlex.split(command)
    if not argv:
        raise ValueError("empty bot command")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


_INTERPRETERS = ("python", "python3", "node", "nodejs", "ruby", "perl", "bash", "sh", "java", "deno", "bun")


def check_command(command: str, cwd: Path | None = None) -> str | None:
    """A reason why ``command`` cannot start a bot, or ``None`` if it looks
    runnable: the program must be found (on PATH or as a path), and for an
    interpreter (``python``, ``node``, ...) a script argument that looks like a
    file (``*.py``, ``*.js``, ...) must exist, relative to ``cwd``."""
    try:
        argv = split_command(command)
    except ValueError as e:
        return str(e)
    base = Path(cwd or os.getcwd())
    prog = argv[0]
    if os.sep in prog:
        p = Path(prog) if os.path.isabs(prog) else base / prog
        if not p.is_file():
            return f"program {prog!r} not found"
        if not os.access(p, os.X_OK):
            return f"program {prog!r} is not executable"
    elif shutil.which(prog) is None:
        return f"program {prog!r} not found on PATH"
    name = Path(prog).name
    if name in _INTERPRETERS or name.startswith("python"):
        script = next((a for a in argv[1:] if not a.startswith("-")), None)
        if script and Path(script).suffix in (".py", ".js", ".mjs", ".cjs", ".rb", ".pl", ".sh", ".ts"):
            sp = Path(script) if os.path.isabs(script) else base / script
            if not sp.is_file():
                return f"script {script!r} not found (relative paths are taken from {base})"
    return None


#: environment variable that hands a launched bot its token (never its command line,
#: which every process on the machine can read in /proc/<pid>/cmdline)
TOKEN_ENV = "REFEREE_TOKEN"
#: the referee's own secrets: never passed on to a bot's environment
SECRET_ENV = ("REFEREE_ADMIN_TOKEN", "REFEREE_TOKENS")


class BotProcess:
    """One launched bot: ``command --referee ADDR``, its token in the
    environment variable ``REFEREE_TOKEN`` (:data:`TOKEN_ENV`).

    ``workdir``: its working directory (created); stdout/stderr go to
    ``<log_dir>/<label>.stdout|.stderr``. Use as a context manager or call
    :meth:`stop` — it is idempotent and always reaps the process group.
    """

    def __init__(self, command: str, label: str, referee_addr: str, token: str, log_dir: Path,
                 workdir: Path | None = None, limits: Limits | None = None, extra_args: list[str] | None = None,
                 cwd_for_relative: Path | None = None):
        argv = split_command(command)
        base = Path(cwd_for_relative or os.getcwd())
        # relative script paths are resolved against the caller's directory, not the bot's workdir
        argv = [str(base / a) if (not os.path.isabs(a) and (base / a).is_file() and i > 0) else a
                for i, a in enumerate(argv)]
        self.argv = argv + ["--referee", referee_addr] + (extra_args or [])
        self.token = token
        self.label = label
        self.log_dir = Path(log_dir)
        self.workdir = Path(workdir) if workdir else self.log_dir / f"{label}.wd"
        self.limits = limits or Limits()
        self.proc: subprocess.Popen | None = None
        self.pgid: int | None = None
        self.returncode: int | None = None

    @property
    def stdout_path(self) -> Path:
        return self.log_dir / f"{self.label}.stdout"

    @property
    def stderr_path(self) -> Path:
        return self.log_dir / f"{self.label}.stderr"

    def start(self) -> "BotProcess":
        """Start the process; raises ``OSError`` if the command cannot be executed."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.workdir.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in SECRET_ENV}
        env[TOKEN_ENV] = self.token
        repo = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env["PYTHONUNBUFFERED"] = "1"
        _become_subreaper()
        _check_executable(self.argv[0], self.workdir, env)
        argv = [sys.executable, "-S", "-E", "-c", _EXEC_LIMITED, str(os.getpid()),
                *map(str, self.limits.rlimits()), *self.argv]
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            # no preexec_fn: CPython can then vfork, which runs no fork handlers in the child
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=self.workdir, env=env,
                start_new_session=True, close_fds=True)
        self.pgid = self.proc.pid  # start_new_session: the leader's pid is the group id
        with _LIVE_LOCK:
            _LIVE.add(self)
        return self

    def poll(self) -> int | None:
        """Exit code if the (leader) process has exited, else ``None``."""
        if self.proc is None:
            return self.returncode
        rc = self.proc.poll()
        if rc is not None:
            self.returncode = rc
        return rc

    def stop(self, grace_s: float = 1.0) -> int | None:
        """Terminate the whole process group (SIGTERM, then SIGKILL after
        ``grace_s``) and reap the leader. Returns its exit code."""
        p = self.proc
        if p is None:
            return self.returncode
        pgid = p.pid  # start_new_session: the leader's pid is the group id
        if p.poll() is None:
            _killpg(pgid, signal.SIGTERM)
            try:
                p.wait(grace_s)
            except subprocess.TimeoutExpired:
                pass
        _killpg(pgid, signal.SIGKILL)  # also reaches children that outlived the leader
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable (D state)
            pass
        _reap_group(pgid, 5.0)
        self.returncode = p.returncode
        self.proc = None
        with _LIVE_LOCK:
            _LIVE.discard(self)
        return self.returncode

    def tail_stderr(self, n_bytes: int = 2000) -> str:
        try:
            data = self.stderr_path.read_bytes()
        except OSError:
            return ""
        return data[-n_bytes:].decode("utf-8", "replace")

    def __enter__(self) -> "BotProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_LIVE: "weakref.WeakSet[BotProcess]" = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()


@atexit.register
def stop_all() -> None:
    """Kill and reap every bot process still running (also runs at interpreter exit)."""
    with _LIVE_LOCK:
        live = list(_LIVE)
    for p in live:
        p.stop(0.2)


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def wait_all_reaped(procs: list[BotProcess], timeout_s: float = 5.0) -> bool:
    """True once no process of any of the given groups is alive (checks /proc)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not any(_group_alive(p) for p in procs):
            return True
        time.sleep(0.05)
    return False


def _group_alive(p: BotProcess) -> bool:
    """True while any process of the bot's group exists, zombies included."""
    return p.pgid is not None and bool(group_members(p.pgid))


_SUBREAPER = False


def _become_subreaper() -> None:
    """Linux: orphaned descendants of this process are re-parented to it (not
    to init), so :func:`_reap_group` can reap a bot's leftover children."""
    global _SUBREAPER
    if _SUBREAPER:
        return
    _SUBREAPER = True
    try:
        import ctypes

        PR_SET_CHILD_SUBREAPER = 36
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux
        pass


def group_members(pgid: int) -> list[tuple[int, int, str]]:
    """``(pid, ppid, state)`` of every process of group ``pgid`` (Linux /proc;
    zombies included, state ``"Z"``); empty where there is no /proc."""
    out = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for d in entries:
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(pgid):
            out.append((int(d), int(fields[1]), fields[0]))
    return out


def _reap_group(pgid: int, timeout_s: float) -> bool:
    """SIGKILL and reap what is left of group ``pgid`` (after its leader was
    waited for): members re-parented to this process are waited for. True once
    nothing of the group is left that this process could reap or kill."""
    me = os.getpid()
    deadline = time.monotonic() + timeout_s
    while True:
        left = [(pid, ppid, st) for pid, ppid, st in group_members(pgid) if st != "Z" or ppid == me]
        for pid, ppid, st in left:
            if ppid == me:
                try:
                    os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    pass
        if not left:
            return True
        if time.monotonic() >= deadline:
            return False
        _killpg(pgid, signal.SIGKILL)  # a member forked after the first kill
        time.sleep(0.01)


def _pgid_has_members(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False
