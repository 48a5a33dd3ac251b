"""Launching bot processes: command resolution, limits, token hand-off,
crash attribution, and guaranteed reaping.

Each bot runs ``setsid`` (own session and process group, so the whole group
can be killed), in its own working directory, through a small wrapper that
applies the OS isolation of :mod:`referee.sandbox` before it ``exec``s the
bot: its own cgroup (resident-memory limit, per-bot process limit, CPU
accounting) where one can be made, else ``RLIMIT_AS`` / ``RLIMIT_NPROC``;
``RLIMIT_CPU``, ``RLIMIT_NOFILE``, ``RLIMIT_FSIZE`` (which also caps its
stdout/stderr capture files), ``RLIMIT_CORE = 0``; optionally its own
unprivileged uid and network namespace. Its token is handed over on an
inherited descriptor (one end of a Unix socket pair, named by
``REFEREE_TOKEN_FD``; read once and closed by the bot), never in its
environment or on its command line: ``/proc/<pid>/environ`` shows only the
descriptor's number, and ``/proc/<pid>/fd/<n>`` of a socket cannot be
opened. On stop, the whole process
group gets SIGTERM, then SIGKILL after a grace period, every process left in
its cgroup is killed, and all are waited for: the referee makes itself the
"child subreaper" of its descendants (Linux), so a bot's children orphaned
by their leader's death are re-parented to the referee, not to an init
process that may never reap them (a container's PID 1 often does not).

What it does NOT do is in docs/sandbox.md, section 2.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import atexit
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from referee.botcommand import readable_files, resolve_command, split_command
from referee.sandbox import BotCgroup, Sandbox, private_dir
from referee.unnamed import give_name, open_unnamed
from referee.words import did_you_mean


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

    @classmethod
    def names(cls) -> list[str]:
        """The limit names, as in a tournament file's ``[limits]`` and ``--limit``."""
        return list(cls.__dataclass_fields__)

    @classmethod
    def problems(cls, values: dict[str, object]) -> list[tuple[str, str]]:
        """Every problem of ``values`` (name -> whole number >= 0) as ``(name,
        message)``, in their order: unknown names and bad values. Empty when
        :meth:`override` accepts them."""
        out: list[tuple[str, str]] = []
        for k, v in values.items():
            if k not in cls.names():
                out.append((k, f"unknown limit {k!r}{did_you_mean(k, cls.names())} "
                               f"(known: {', '.join(cls.names())})"))
            elif isinstance(v, bool) or not isinstance(v, int) or v < 0:
                out.append((k, f"limit {k} must be a whole number >= 0 (0 = unlimited), got {v!r}"))
        return out

    def override(self, values: dict[str, object]) -> "Limits":
        """A copy with ``values`` (name -> whole number >= 0) replaced; raises
        ``ValueError`` naming every unknown limit and bad value (:meth:`problems`)."""
        if problems := self.problems(values):
            raise ValueError("; ".join(msg for _, msg in problems))
        out = Limits(**{k: getattr(self, k) for k in self.names()})
        for k, v in values.items():
            setattr(out, k, v)
        return out

    @classmethod
    def parse(cls, items: list[str], base: "Limits | None" = None) -> "Limits":
        """``["memory_mb=4096", "cpu_seconds=60"]`` (``--limit``) on top of ``base``;
        ``ValueError`` for a bad item."""
        values: dict[str, object] = {}
        for it in items:
            k, sep, v = it.partition("=")
            if not sep:
                raise ValueError(f"--limit must look like NAME=VALUE (e.g. memory_mb=4096), got {it!r}")
            try:
                values[k.strip()] = int(v)
            except ValueError:
                raise ValueError(f"limit {k.strip()} must be a whole number >= 0, got {v!r}") from None
        return (base or cls()).override(values)

    def rlimits(self) -> tuple[int, int, int, int, int]:
        """CPU seconds, address-space bytes, processes, open files, file-size bytes (0 = unlimited)."""
        mb = 1024 * 1024
        return (self.cpu_seconds, self.memory_mb * mb, self.processes, self.open_files, self.file_size_mb * mb)


#: Run by a fresh interpreter (``python -S -E -c``) between the referee and the
#: bot: joins the bot's cgroups, enters a new network namespace, sets the
#: limits, drops to the bot's uid, arms the parent-death signal, then execs the
#: bot, so all of it holds from the bot's first instruction. Launching through it
#: instead of a ``preexec_fn`` lets CPython spawn with vfork: a plain fork of
#: the referee runs gRPC's fork handlers in the child, whose restarted poller
#: thread crashed about one launch in six while the referee served gRPC traffic
#: (SIGSEGV, or "epoll_wait error: Bad file descriptor" once close_fds had
#: closed its epoll fd), before the bot even started.
#: argv: the launch settings as JSON (:meth:`BotProcess._wrapper_config`), then the bot's argv.
_EXEC_LIMITED = r"""
import ctypes, json, os, resource, sys
cfg = json.loads(sys.argv[1])
def fail(code, what):
    sys.stderr.write("referee sandbox: " + what + "\n")
    os._exit(code)
libc = ctypes.CDLL(None, use_errno=True)
for path in cfg["cgroups"]:
    try:
        with open(path, "w") as f:
            f.write(str(os.getpid()))
    except OSError as e:
        fail(71, "cannot join cgroup " + path + ": " + str(e))
if cfg["netns"]:
    if libc.unshare(0x40000000) != 0:  # CLONE_NEWNET
        fail(72, "cannot create a network namespace: " + os.strerror(ctypes.get_errno()))
    import fcntl, socket, struct
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flags = struct.unpack("16sH", fcntl.ioctl(s, 0x8913, struct.pack("16sH", b"lo", 0)))[1]  # SIOCGIFFLAGS
    fcntl.ioctl(s, 0x8914, struct.pack("16sH", b"lo", flags | 1))  # SIOCSIFFLAGS: IFF_UP
    s.close()
names = ("RLIMIT_CPU", "RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_NOFILE", "RLIMIT_FSIZE")
for name, v in zip(names, cfg["rlimits"]):
    if v > 0:
        try:
            resource.setrlimit(getattr(resource, name), (v, v))
        except (ValueError, OSError):
            pass  # cannot raise a hard limit above the referee's; keep the referee's
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if cfg["drop_caps"]:
    # under the referee's uid, which is root: uid 0 without any capability, for good (no
    # capability in the bounding set, none regained by exec as root: SECBIT_NOROOT, locked)
    last = int(open("/proc/sys/kernel/cap_last_cap").read())
    for c in range(last + 1):
        libc.prctl(24, c, 0, 0, 0)  # PR_CAPBSET_DROP
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    # SECBIT_NOROOT | _LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE | _LOCKED
    if libc.prctl(28, 0x01 | 0x02 | 0x40 | 0x80, 0, 0, 0) != 0:  # PR_SET_SECUREBITS
        fail(74, "cannot drop root's capabilities: " + os.strerror(ctypes.get_errno()))
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
uid = cfg["uid"]
if uid is not None:
    try:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    except OSError as e:
        fail(73, "cannot switch to uid " + str(uid) + ": " + str(e))
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS: no setuid binary gives privileges back
# after the uid switch, which clears it
libc.prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL
if os.getppid() != cfg["ppid"]:
    os._exit(70)  # the referee died before the parent-death signal was armed
try:
    os.execvp(sys.argv[2], sys.argv[2:])
except OSError as e:
    fail(127, "cannot execute " + sys.argv[2] + ": " + str(e))
"""


_NOT_DUMPABLE = False


def _not_dumpable() -> None:
    """Linux: make this process non-dumpable (once): its ``/proc/<pid>/fd``,
    ``environ`` and memory can then only be reached with ``CAP_SYS_PTRACE``,
    which the bots launched under its uid do not have (as root, they run
    without capabilities). What the referee writes without a name (the live
    logs) is then out of their reach."""
    global _NOT_DUMPABLE
    if _NOT_DUMPABLE:
        return
    _NOT_DUMPABLE = True
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, SUID_DUMP_DISABLE
    except (OSError, AttributeError):  # not Linux
        pass


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when the referee dies (even by kill -9)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: rely on the stream closing
        pass


#: environment variable of a bot that connects on its own (``--token``'s default in the
#: sample bots): its token. A launched bot never gets it (see :data:`TOKEN_FD_ENV`)
TOKEN_ENV = "REFEREE_TOKEN"
#: environment variable that tells a launched bot which inherited descriptor holds its
#: token (read it to the end, then close it): the number only, the token is never in the
#: environment (readable in /proc/<pid>/environ by its uid) nor on the command line
#: (readable by everyone in /proc/<pid>/cmdline)
TOKEN_FD_ENV = "REFEREE_TOKEN_FD"
#: the referee's own secrets: never passed on to a bot's environment (nor any other REFEREE_* variable)
SECRET_ENV = ("REFEREE_ADMIN_TOKEN", "REFEREE_TOKENS")


def token_channel(token: str) -> int:
    """A descriptor the bot reads ``token`` from: one end of a Unix socket
    pair whose other end has had the token written and been closed, so the
    reader gets the token, then end of file. Only a holder of the descriptor
    can read it: ``/proc/<pid>/fd/<n>`` of a socket cannot be opened, not
    even by a process of the same uid. The caller passes it to the bot and
    closes its own copy."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        ours.sendall(token.encode())  # 32 bytes: fits the socket's buffer, never blocks
        ours.shutdown(socket.SHUT_WR)
    finally:
        ours.close()
    return theirs.detach()


def bot_environment(token_fd: int, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a launched bot: the referee's, without its own
    secrets (``REFEREE_*`` variables, e.g. ``REFEREE_ADMIN_TOKEN``), plus
    ``REFEREE_TOKEN_FD``, the number of the inherited descriptor its token is
    read from (:func:`token_channel`: the token itself is neither here, where
    ``/proc/<pid>/environ`` shows it to its uid, nor on a command line, where
    every process can read it), the referee's package on ``PYTHONPATH`` and
    unbuffered Python output."""
    env = {k: v for k, v in (os.environ if base is None else base).items()
           if not k.startswith("REFEREE_") and k not in SECRET_ENV}
    env[TOKEN_FD_ENV] = str(token_fd)
    repo = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = repo + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    return env


class BotProcess:
    """One launched bot: ``command --referee ADDR``, its token handed over on
    an inherited descriptor (:func:`token_channel`, named by ``REFEREE_TOKEN_FD``).

    ``workdir``: its working directory (created; with a per-bot uid it is a
    0700 directory of that uid under :meth:`referee.sandbox.Sandbox.private_root`);
    stdout/stderr go to ``<log_dir>/<label>.stdout|.stderr`` (mode 0600).
    When the bot runs under the referee's own uid, those two files have no
    name while it runs (``O_TMPFILE``: a process of that uid could open any
    file it can name) and get theirs when it is stopped; the referee then
    also makes itself non-dumpable (its ``/proc/<pid>/fd`` closed to its
    uid) and, as root, runs the bot without capabilities. Relative paths
    in ``command`` are resolved against ``cwd_for_relative`` (default: the
    current directory), see :func:`resolve_command`. ``sandbox``: the
    isolation of this run (default: cgroups where possible, the referee's
    uid, the host network). With ``sandbox.isolate_network`` the address
    must be a Unix socket: ``referee_addr`` if it is one, else
    ``unix_addr``. Call :meth:`prepare` first to learn the bot's uid before
    it starts (a socket of its own, :meth:`referee.service.Referee.private_socket`,
    is made for that uid). Use as a context manager or call :meth:`stop`: it
    is idempotent and always reaps every process of the bot (and releases
    what :meth:`prepare` took, also when the bot never started).
    """

    def __init__(self, command: str, label: str, referee_addr: str, token: str, log_dir: Path,
                 workdir: Path | None = None, limits: Limits | None = None, extra_args: list[str] | None = None,
                 cwd_for_relative: Path | None = None, sandbox: Sandbox | None = None,
                 unix_addr: str | None = None):
        self.command = command
        self.sandbox = sandbox if sandbox is not None else Sandbox()
        self.base = Path(cwd_for_relative or os.getcwd())
        self.token = token
        self.referee_addr = referee_addr
        self.unix_addr = unix_addr
        self.extra_args = list(extra_args or [])
        self.label = label
        self.log_dir = Path(log_dir)
        self._workdir = Path(workdir) if workdir else None
        self.limits = limits or Limits()
        self.proc: subprocess.Popen | None = None
        self.pgid: int | None = None
        self.returncode: int | None = None
        self.uid: int | None = None
        self.cgroup = None
        self._prepared = False
        self._released = False
        #: output files without a name yet (bots under the referee's uid): path -> descriptor
        self._hidden: dict[Path, int] = {}
        self.argv: list[str] = split_command(command) + ["--referee", referee_addr] + self.extra_args

    @property
    def address(self) -> str:
        """The address the bot is given (``--referee``); ``ValueError`` when its
        network is isolated and no Unix socket was given."""
        if self.sandbox.isolate_network and not self.referee_addr.startswith("unix:"):
            if not self.unix_addr:
                raise ValueError("isolate_network: the referee must listen on a Unix socket (unix_addr)")
            return self.unix_addr
        return self.referee_addr

    @property
    def hides_output(self) -> bool:
        """The bot runs under the referee's uid: its output files have no name while it runs."""
        return not self.sandbox.uids

    @property
    def workdir(self) -> Path:
        if self._workdir is not None:
            return self._workdir
        if self.sandbox.uids:
            return self.sandbox.private_root() / self.label
        return self.log_dir / f"{self.label}.wd"

    @property
    def stdout_path(self) -> Path:
        return self.log_dir / f"{self.label}.stdout"

    @property
    def stderr_path(self) -> Path:
        return self.log_dir / f"{self.label}.stderr"

    def _wrapper_config(self) -> dict:
        lim = self.limits
        rl = list(lim.rlimits())
        if self.cgroup is not None and self.cgroup.memory_bytes:
            rl[1] = 0  # resident memory is limited by the cgroup: no address-space limit
        if self.cgroup is not None and self.cgroup.pids:
            rl[2] = 0  # per-bot pids.max instead of the per-user RLIMIT_NPROC
        return {"ppid": os.getpid(), "rlimits": rl, "cgroups": self.cgroup.procs_files if self.cgroup else [],
                "netns": self.sandbox.isolate_network, "uid": self.uid,
                "drop_caps": self.uid is None and os.geteuid() == 0}

    def prepare(self) -> "BotProcess":
        """Everything before the process starts (done by :meth:`start` if not
        done before): the command resolved and, with bot uids, checked as the
        bot's uid sees it; the bot's uid taken (:attr:`uid`); its working
        directory and cgroup made. Raises ``OSError`` (program missing, or not
        readable by the bot's uid: the message says which file and why),
        ``ValueError`` for an empty command, ``RuntimeError`` when no bot uid
        is free."""
        if self._prepared:
            return self
        self.argv = resolve_command(self.command, self.base)
        sb = self.sandbox
        if sb.uids:
            problems = sb.check(self.argv, readable_files(self.argv))
            if problems:
                raise PermissionError(errno.EACCES, "not readable by the bot's uid: " + "; ".join(problems))
        self.log_dir.mkdir(parents=True, exist_ok=True)
        _become_subreaper()
        try:
            if sb.uids:
                self.uid = sb.pool.acquire()
            private_dir(self.workdir, self.uid)
            if sb.caps.memory or sb.caps.pids or sb.caps.cpu:
                mb = 1024 * 1024
                self.cgroup = BotCgroup(self.label, self.limits.memory_mb * mb, self.limits.processes, sb.caps)
        except BaseException:
            self._release()
            raise
        self._prepared = True
        return self

    def start(self) -> "BotProcess":
        """Start the process (after :meth:`prepare`, which it runs if needed;
        same errors). Its token goes over :func:`token_channel`."""
        self.prepare()
        sb = self.sandbox
        try:
            self.argv = (resolve_command(self.command, self.base) + ["--referee", self.address]
                         + self.extra_args)
            fd = token_channel(self.token)
            try:
                env = bot_environment(fd)
                if sb.uids:
                    env["HOME"] = str(self.workdir)
                else:
                    _not_dumpable()  # our /proc/<pid>/fd (the live logs) closed to the bots' uid, ours
                argv = [sys.executable, "-S", "-E", "-c", _EXEC_LIMITED, json.dumps(self._wrapper_config()),
                        *self.argv]
                out, err = self._output(self.stdout_path), self._output(self.stderr_path)
                try:
                    # no preexec_fn: CPython can then vfork, which runs no fork handlers in the child
                    self.proc = subprocess.Popen(
                        argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=self.workdir, env=env,
                        start_new_session=True, close_fds=True, pass_fds=(fd,))
                finally:
                    for f in (out, err):
                        if f not in self._hidden.values():
                            os.close(f)
            finally:
                os.close(fd)  # the bot holds its own copy: nobody else can read the token now
        except BaseException:
            self._release()
            raise
        self.pgid = self.proc.pid  # start_new_session: the leader's pid is the group id
        with _LIVE_LOCK:
            _LIVE.add(self)
        return self

    def _output(self, path: Path) -> int:
        """A descriptor of the capture file ``path`` (mode 0600): without a name
        until :meth:`stop` when :attr:`hides_output` (where the file system has
        ``O_TMPFILE``; else named at once)."""
        if self.hides_output:
            fd = open_unnamed(path.parent, os.O_RDWR)
            if fd is not None:  # (else no O_TMPFILE on this file system: a named file)
                self._hidden[path] = fd
                return fd
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(fd, 0o600)
        return fd

    def _name_outputs(self) -> None:
        """Give the hidden capture files their names (the bot is gone)."""
        for path, fd in list(self._hidden.items()):
            try:
                give_name(fd, path)
            except OSError:
                pass  # the log directory went away: nothing to keep it in
            finally:
                os.close(fd)
                del self._hidden[path]

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by the bot's whole process tree (seconds): from
        its cgroup, else from /proc (its process group's live members)."""
        if self.cgroup is not None:
            v = self.cgroup.cpu_seconds()
            if v is not None:
                return v
        if self.pgid is None:
            return None
        return _group_cpu_seconds(self.pgid)

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
        ``grace_s``), kill whatever is left in the bot's cgroup (processes
        that left the group), reap them all. Returns the leader's exit code."""
        p = self.proc
        if p is None:
            self._release()  # prepared, never started
            return self.returncode
        pgid = p.pid  # start_new_session: the leader's pid is the group id
        if p.poll() is None:
            _killpg(pgid, signal.SIGTERM)
            try:
                p.wait(grace_s)
            except subprocess.TimeoutExpired:
                pass
        _killpg(pgid, signal.SIGKILL)  # also reaches children that outlived the leader
        if self.cgroup is not None:
            self.cgroup.kill()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - unkillable (D state)
            pass
        _reap_group(pgid, 5.0)
        self.returncode = p.returncode
        self.diagnosis = self.diagnose(self.returncode)
        self.proc = None
        self._release()
        with _LIVE_LOCK:
            _LIVE.discard(self)
        return self.returncode

    def _release(self) -> None:
        """Give back what :meth:`prepare` took (once): the cgroup, the uid; name the output files."""
        if self._released:
            return
        self._released = True
        self._name_outputs()
        if self.cgroup is not None:
            self.cgroup.remove()
        if self.uid is not None and self.sandbox.pool is not None:
            self.sandbox.pool.release(self.uid)

    def diagnose(self, rc: int | None) -> str:
        """Which limit an exit status ``rc`` most likely comes from (``""`` if
        none): ``"memory limit"`` (the cgroup's OOM kill, or an allocation
        failing under RLIMIT_AS), ``"cpu_seconds limit"``, ``"file_size_mb
        limit"``, ``"processes limit"`` or ``"open_files limit"``, with the
        limit's value and mechanism."""
        prev = getattr(self, "diagnosis", "")
        if prev:
            return prev
        lim = self.limits
        cg = self.cgroup
        tail = self.tail_stderr(4000) + self.tail_stdout(4000)
        mech = self.sandbox.caps.memory_mechanism if cg is not None and cg.memory_bytes else "RLIMIT_AS (address space)"
        if cg is not None and cg.oom_kills() > 0:
            return f"memory limit (memory_mb = {lim.memory_mb}, {mech}: killed by the kernel)"
        if rc in (None, 0) and not tail:
            return ""
        if lim.memory_mb and any(m in tail for m in ("MemoryError", "Cannot allocate memory", "out of memory",
                                                      "OutOfMemory", "Could not reserve", "allocation failed")):
            return f"memory limit (memory_mb = {lim.memory_mb}, {mech})"
        if lim.cpu_seconds and rc in (-signal.SIGXCPU, -signal.SIGKILL):
            used = self.cpu_seconds() or 0.0
            if rc == -signal.SIGXCPU or used >= lim.cpu_seconds - 0.5:
                return f"cpu_seconds limit (cpu_seconds = {lim.cpu_seconds}, RLIMIT_CPU)"
        if lim.file_size_mb and (rc == -signal.SIGXFSZ or "File too large" in tail):
            return f"file_size_mb limit (file_size_mb = {lim.file_size_mb}, RLIMIT_FSIZE)"
        if cg is not None and cg.pids_refused() > 0:
            return f"processes limit (processes = {lim.processes}, cgroup pids.max)"
        if lim.processes and ("can't start new thread" in tail or "Resource temporarily unavailable" in tail):
            return f"processes limit (processes = {lim.processes}, RLIMIT_NPROC)"
        if lim.open_files and "Too many open files" in tail:
            return f"open_files limit (open_files = {lim.open_files}, RLIMIT_NOFILE)"
        return ""

    def crash_message(self, rc: int) -> str:
        """The ``crash`` fault message: the limit hit if any, the status
        (signal), the last lines of stderr, then of stdout (``; last stdout:``),
        where the full output is."""
        sig = ""
        if rc < 0:
            try:
                sig = f" ({signal.Signals(-rc).name})"
            except ValueError:
                pass
        why = self.diagnose(rc)
        parts = [f"{why}: " if why else "", f"bot exited with status {rc}{sig}"]
        for what, text in (("stderr", self.tail_stderr(400)), ("stdout", self.tail_stdout(400))):
            lines = [ln for ln in text.strip().splitlines() if ln.strip()][-3:]
            if what == "stderr" and lines and not any(_ERROR_LINE.search(ln) for ln in lines):
                # the error itself is often above a stack trace's last lines (Node.js, Java)
                err = [ln.strip() for ln in self.tail_stderr(8000).splitlines() if _ERROR_LINE.search(ln)]
                if err:
                    lines = [err[-1][:200], "...", *lines]
            if lines:  # stderr's last lines right after the status, as they always were
                parts.append((": " if what == "stderr" else "; last stdout: ") + " | ".join(lines))
        parts.append(f" (stderr: {self.stderr_path}, stdout: {self.stdout_path})")
        return "".join(parts)

    def tail_stderr(self, n_bytes: int = 2000) -> str:
        """The last ``n_bytes`` of the bot's stderr (also while its file has no name)."""
        return _tail(self.stderr_path, n_bytes, self._hidden.get(self.stderr_path))

    def tail_stdout(self, n_bytes: int = 2000) -> str:
        """The last ``n_bytes`` of the bot's stdout (also while its file has no name)."""
        return _tail(self.stdout_path, n_bytes, self._hidden.get(self.stdout_path))

    def __enter__(self) -> "BotProcess":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


#: a line of a bot's stderr that states its error (Python, Node.js, Java, C++ and most others)
_ERROR_LINE = re.compile(r"\b\w*(Error|Exception)\b:|\bterminate called\b|\bpanicked at\b")


def _tail(path: Path, n_bytes: int, fd: int | None = None) -> str:
    if fd is not None:
        try:
            size = os.fstat(fd).st_size
            return os.pread(fd, n_bytes, max(0, size - n_bytes)).decode("utf-8", "replace")
        except OSError:
            return ""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n_bytes))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _group_cpu_seconds(pgid: int) -> float:
    """user + system CPU seconds of the live members of process group ``pgid``
    (and their waited-for children), from /proc."""
    total = 0
    for pid, _ppid, _st in group_members(pgid):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        except (OSError, ValueError, IndexError):
            pass
    return total / _CLK_TCK


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


_SUBREAPER = False


def _become_subreaper() -> None:
    """Linux: orphaned descendants of this process are re-parented to it (not
    to init), so :func:`_reap_group` can reap a bot's leftover children."""
    global _SUBREAPER
    if _SUBREAPER:
        return
    _SUBREAPER = True
    try:
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

