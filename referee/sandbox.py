"""OS isolation of launched bots: cgroups, per-bot uids, network namespaces.

:mod:`referee.bots` launches every bot through a small wrapper that applies
what this module prepares, in the bot's own process before it ``exec``s the
bot (see ``bots._EXEC_LIMITED``):

* **cgroups** (:class:`BotCgroup`): the bot's whole process tree goes into
  its own cgroup, which gives a resident-memory limit (``memory.max`` in
  cgroup v2, ``memory.limit_in_bytes`` in the v1 memory hierarchy), a
  process limit per bot (``pids.max``), CPU-time accounting for the CPU
  clock (``cpu.stat`` / ``cpuacct.usage``) and a kill that reaches every
  process of the bot, also one that left its process group. Where no
  cgroup can be created the referee falls back to ``RLIMIT_AS`` and
  ``RLIMIT_NPROC`` (:func:`capabilities` says which is in force);
* **a private uid** (:class:`UidPool`): when the referee runs as root,
  each bot runs under its own unprivileged uid (and gid) from a range, with
  no supplementary groups and ``no_new_privs``, in a working directory only
  that uid can enter, so it cannot read another bot's files or
  ``/proc/<pid>``, nor the match logs (``log_dir`` is made 0700);
  :func:`check_access` says before a match whether that uid can run the
  bot's program and read its files;
* **a network namespace** (``isolate_network``): the bot gets a namespace of
  its own with only a loopback interface and reaches the referee through
  its own Unix domain socket (:meth:`referee.service.Referee.private_socket`:
  a file path, which a network namespace does not hide; every launched bot
  is given one, with or without a namespace).

Bots run under the referee's own uid only when that is asked for
(``bot_uids = "off"``) or the only thing possible (a referee that is not
root); a root referee whose bots an unprivileged uid cannot run refuses to
start them (:func:`prepare`), saying how to fix it.

Everything here is Linux-only and needs root for uids and namespaces (and
for cgroups, unless a cgroup subtree was delegated to the referee's user).
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from referee.botcommand import readable_files, resolve_command

CGROUP_MOUNT = Path("/sys/fs/cgroup")
#: default uid range of bots launched by a root referee (inclusive; Debian leaves
#: 60000-64999 to be allocated on demand, systemd's dynamic users start at 61184)
DEFAULT_UID_RANGE = (60000, 60999)
#: where the uid locks live: one ``flock`` per uid in use, so two referees on one
#: machine never hand the same uid to two bots
UID_LOCK_DIR = Path(tempfile.gettempdir()) / "referee-uid-locks"


# --------------------------------------------------------------------------- capabilities
@dataclass
class Capabilities:
    """What this machine lets the referee do (detected once, see :func:`capabilities`).

    ``cgroup``: ``"v2"``, ``"v1"`` or ``""`` (none); ``memory``/``pids``/``cpu``:
    the parent directories in which per-bot cgroups are made for each purpose
    (``None`` = not available); ``netns``: new network namespaces can be made;
    ``root``: the referee runs as root (uid switching possible); ``notes``:
    why something is unavailable.
    """

    root: bool = False
    cgroup: str = ""
    memory: Path | None = None
    pids: Path | None = None
    cpu: Path | None = None
    cpu_file: str = ""
    kill: Path | None = None  # a v2 parent whose children have cgroup.kill
    netns: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def memory_mechanism(self) -> str:
        """How ``memory_mb`` is enforced: for match logs and ``referee serve`` output."""
        if self.memory is None:
            return "RLIMIT_AS (address space)"
        return "cgroup v2 memory.max" if self.cgroup == "v2" else "cgroup v1 memory.limit_in_bytes"

    def describe(self) -> str:
        """One line for operators: memory, process, CPU and network mechanisms in force."""
        return (f"memory: {self.memory_mechanism}; processes: "
                f"{'cgroup pids.max' if self.pids else 'RLIMIT_NPROC (per user)'}; cpu clock: "
                f"{'cgroup ' + self.cpu_file if self.cpu else '/proc'}; network namespaces: "
                f"{'available' if self.netns else 'unavailable'}; bot uids: "
                f"{'available (root)' if self.root else 'unavailable (not root)'}")


_CAPS: Capabilities | None = None
_CAPS_LOCK = threading.Lock()


def capabilities(refresh: bool = False) -> Capabilities:
    """Detect (once per process) which isolation mechanisms work here."""
    global _CAPS
    with _CAPS_LOCK:
        if _CAPS is None or refresh:
            _CAPS = _detect()
        return _CAPS


def _own_cgroups() -> dict[str, str]:
    """``{controller or "" (v2): path}`` from ``/proc/self/cgroup``."""
    out: dict[str, str] = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, ctrls, path = line.split(":", 2)
            for c in ctrls.split(",") if ctrls else [""]:
                out[c] = path
    except OSError:
        pass
    return out


def _try_parent(parent: Path, controllers: tuple[str, ...] = ()) -> bool:
    """True if a child cgroup can be made under ``parent`` (and removed again);
    for v2, ``controllers`` must then be enabled for the child."""
    probe = parent / f"referee-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        return all((probe / f"{c}.max").exists() for c in controllers)
    finally:
        try:
            probe.rmdir()
        except OSError:
            pass


def _detect() -> Capabilities:
    caps = Capabilities(root=os.geteuid() == 0)
    if not sys.platform.startswith("linux"):
        caps.notes.append("not Linux: rlimits only")
        return caps
    own = _own_cgroups()
    unified = CGROUP_MOUNT if (CGROUP_MOUNT / "cgroup.controllers").exists() else CGROUP_MOUNT / "unified"
    if (unified / "cgroup.controllers").exists() and "" in own:
        me = unified / own[""].lstrip("/")
        # v2 needs the controllers enabled in the parent's subtree_control. Our own cgroup
        # holds processes (ours), so unless it is the root it cannot enable them
        # ("no internal processes"): use its parent instead, whose children (our siblings)
        # already have them when our own cgroup has them.
        for parent in ([me] if me == unified else []) + [me.parent]:
            if not str(parent).startswith(str(unified)):
                continue
            enabled = _enable_v2(parent)
            if "memory" in enabled and _try_parent(parent, ("memory",)):
                caps.cgroup, caps.memory, caps.cpu, caps.cpu_file = "v2", parent, parent, "cpu.stat"
                caps.kill = parent
                if "pids" in enabled and _try_parent(parent, ("pids",)):
                    caps.pids = parent
                break
        else:
            if _try_parent(me.parent if me != unified else me):
                # no memory controller in v2, but accounting (cpu.stat) and cgroup.kill work
                caps.cpu, caps.cpu_file = (me.parent if me != unified else me), "cpu.stat"
                caps.kill = caps.cpu
    if caps.memory is None:
        v1 = {c: CGROUP_MOUNT / c / own.get(c, "/").lstrip("/") for c in ("memory", "pids", "cpuacct")}
        if "memory" in own and _try_parent(v1["memory"]):
            caps.cgroup, caps.memory = "v1", v1["memory"]
            if "pids" in own and _try_parent(v1["pids"]):
                caps.pids = v1["pids"]
            if caps.cpu is None and "cpuacct" in own and _try_parent(v1["cpuacct"]):
                caps.cpu, caps.cpu_file = v1["cpuacct"], "cpuacct.usage"
        else:
            caps.notes.append("no writable cgroup with a memory controller: memory_mb is RLIMIT_AS")
    for parent in {caps.memory, caps.pids, caps.cpu} - {None}:
        _remove_stale(parent)
    caps.netns = _netns_works()
    if not caps.netns:
        caps.notes.append("cannot create network namespaces (needs root or CAP_SYS_ADMIN)")
    return caps


def _remove_stale(parent: Path) -> None:
    """Remove the bot cgroups a referee that died (``kill -9``) left behind
    (``referee-<pid>-*`` of a pid that no longer runs; empty once its bots died)."""
    try:
        entries = list(parent.glob("referee-*-*"))
    except OSError:
        return
    for d in entries:
        pid = d.name.split("-")[1]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            try:
                d.rmdir()
            except OSError:
                pass


def _enable_v2(parent: Path) -> set[str]:
    """Enable memory, pids and cpu for ``parent``'s children where possible;
    return what its subtree then has."""
    try:
        available = set((parent / "cgroup.controllers").read_text().split())
        enabled = set((parent / "cgroup.subtree_control").read_text().split())
    except OSError:
        return set()
    for c in ("memory", "pids", "cpu"):
        if c in available and c not in enabled:
            try:
                (parent / "cgroup.subtree_control").write_text(f"+{c}")
                enabled.add(c)
            except OSError:
                pass
    return enabled


def _netns_works() -> bool:
    """Try ``unshare(CLONE_NEWNET)`` in a throw-away child process."""
    code = ("import ctypes, sys\n"
            "sys.exit(0 if ctypes.CDLL(None, use_errno=True).unshare(0x40000000) == 0 else 1)\n")
    try:
        return subprocess.run([sys.executable, "-S", "-E", "-c", code], timeout=20,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# --------------------------------------------------------------------------- cgroups
_CGROUP_IDS = itertools.count(1)


class BotCgroup:
    """The cgroup(s) of one bot: made before launch, joined by the bot's
    wrapper (:attr:`procs_files`), removed after the bot was reaped.

    ``memory_bytes``/``pids``: limits (0 = none). Every method tolerates a
    cgroup that vanished.
    """

    def __init__(self, label: str, memory_bytes: int = 0, pids: int = 0, caps: Capabilities | None = None):
        caps = caps or capabilities()
        self.caps = caps
        name = f"referee-{os.getpid()}-{next(_CGROUP_IDS)}-{_safe(label)}"
        self.dirs: dict[str, Path] = {}  # purpose -> directory
        made: list[Path] = []
        try:
            for purpose, parent in (("memory", caps.memory), ("pids", caps.pids), ("cpu", caps.cpu)):
                if parent is None:
                    continue
                d = parent / name
                if d not in made:
                    d.mkdir(exist_ok=True)
                    made.append(d)
                self.dirs[purpose] = d
            if memory_bytes > 0 and "memory" in self.dirs:
                d = self.dirs["memory"]
                if caps.cgroup == "v2":
                    (d / "memory.max").write_text(str(memory_bytes))
                    _write_quiet(d / "memory.swap.max", "0")
                else:
                    (d / "memory.limit_in_bytes").write_text(str(memory_bytes))
                    _write_quiet(d / "memory.memsw.limit_in_bytes", str(memory_bytes))
            if pids > 0 and "pids" in self.dirs:
                (self.dirs["pids"] / "pids.max").write_text(str(pids))
        except OSError:
            self.remove()
            raise
        self.memory_bytes = memory_bytes if "memory" in self.dirs else 0
        self.pids = pids if "pids" in self.dirs else 0

    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files the bot's wrapper writes its pid to."""
        return sorted({str(d / "cgroup.procs") for d in self.dirs.values()})

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) used by every process that ever ran in the
        cgroup, in seconds; ``None`` without a CPU accounting cgroup."""
        d = self.dirs.get("cpu")
        if d is None:
            return None
        try:
            if self.caps.cpu_file == "cpu.stat":
                for line in (d / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec "):
                        return int(line.split()[1]) / 1e6
                return None
            return int((d / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def oom_kills(self) -> int:
        """How many processes the kernel killed for hitting the memory limit."""
        d = self.dirs.get("memory")
        if d is None:
            return 0
        name = "memory.events" if self.caps.cgroup == "v2" else "memory.oom_control"
        try:
            for line in (d / name).read_text().splitlines():
                k, _, v = line.partition(" ")
                if k == "oom_kill":
                    return int(v)
        except (OSError, ValueError):
            pass
        return 0

    def pids_refused(self) -> int:
        """How many forks ``pids.max`` refused."""
        d = self.dirs.get("pids")
        if d is None:
            return 0
        try:
            for line in (d / "pids.events").read_text().splitlines():
                k, _, v = line.partition(" ")
                if k == "max":
                    return int(v)
        except (OSError, ValueError):
            pass
        return 0

    def members(self) -> list[int]:
        out: set[int] = set()
        for d in self.dirs.values():
            try:
                out.update(int(x) for x in (d / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return sorted(out)

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (also ones that left the bot's
        process group): ``cgroup.kill`` in v2, else each member in turn."""
        for d in self.dirs.values():
            if (d / "cgroup.kill").exists():
                _write_quiet(d / "cgroup.kill", "1")
        for pid in self.members():
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def remove(self, timeout_s: float = 2.0) -> None:
        """Kill what is left and remove the directories (a cgroup with
        processes, even zombies, cannot be removed: retried until ``timeout_s``)."""
        deadline = time.monotonic() + timeout_s
        for d in list(dict.fromkeys(self.dirs.values())):
            while True:
                try:
                    d.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as e:
                    if e.errno != errno.EBUSY or time.monotonic() >= deadline:
                        break
                    self.kill()
                    _reap_children()
                    time.sleep(0.02)


def _reap_children() -> None:
    """Reap zombie children of this process that belong to no Popen (a subreaper's orphans)."""
    me = str(os.getpid())
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for d in entries:
        if not d.isdigit():
            continue
        try:
            fields = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] == "Z" and fields[1] == me:
            try:
                os.waitpid(int(d), os.WNOHANG)
            except ChildProcessError:
                pass


def _write_quiet(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError:
        pass


def _safe(label: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:120]


# --------------------------------------------------------------------------- uids
def parse_uid_range(text: str) -> tuple[int, int]:
    """``"60000-60999"`` -> ``(60000, 60999)``; raises ``ValueError`` for a bad range
    (uids must be 1..4294967294, first <= last)."""
    a, sep, b = text.partition("-")
    try:
        lo, hi = int(a), int(b if sep else a)
    except ValueError:
        raise ValueError(f"bot uid range must look like 60000-60999, got {text!r}") from None
    if not (0 < lo <= hi < 2**32 - 1):
        raise ValueError(f"bot uid range {text!r}: uids must be 1..4294967294 and first <= last")
    return lo, hi


class UidPool:
    """Hands out unprivileged uids from ``[first, last]``, one per running bot.

    A uid is taken only if no account of ``/etc/passwd`` has it and no other
    holder (this or another referee on the machine) holds its lock file
    (``flock`` in :data:`UID_LOCK_DIR`, released by :meth:`release` or when
    the process dies). Each bot's gid equals its uid.
    """

    def __init__(self, first: int, last: int):
        self.first, self.last = first, last
        self._held: dict[int, int] = {}  # uid -> lock fd
        self._lock = threading.Lock()

    def acquire(self) -> int:
        """A free uid; raises ``RuntimeError`` when the range is exhausted."""
        UID_LOCK_DIR.mkdir(mode=0o700, exist_ok=True)
        with self._lock:
            for uid in range(self.first, self.last + 1):
                if uid in self._held or _uid_has_account(uid):
                    continue
                fd = os.open(UID_LOCK_DIR / str(uid), os.O_RDWR | os.O_CREAT, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                self._held[uid] = fd
                return uid
        raise RuntimeError(f"no free bot uid in {self.first}-{self.last} (one per running bot)")

    def release(self, uid: int) -> None:
        with self._lock:
            fd = self._held.pop(uid, None)
        if fd is not None:
            os.close(fd)


def _uid_has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


def private_dir(path: Path, uid: int | None) -> Path:
    """Create ``path`` (and parents) as the bot's working directory: mode 0700,
    owned by ``uid`` (when given), and empty of anything another uid left."""
    path.mkdir(parents=True, exist_ok=True)
    if uid is not None:
        os.chown(path, uid, uid)
    os.chmod(path, 0o700)
    return path


# --------------------------------------------------------------------------- access checks
#: run as the bot's uid (by the same wrapper as a launch): for each path, can it be
#: read (and, for the program, executed)? Prints one problem per line.
_CHECK = r"""
import os, sys
os.setgroups([]); os.setgid(int(sys.argv[1])); os.setuid(int(sys.argv[1]))
for i, p in enumerate(sys.argv[2:]):
    mode = os.X_OK if i == 0 else os.R_OK
    real = os.path.realpath(p)
    if not os.access(real, mode):
        # name the first directory on the way that cannot be searched
        d, why = "/", ""
        for part in real.split("/")[1:]:
            d = os.path.join(d, part)
            if not os.access(d, os.X_OK if os.path.isdir(d) else mode):
                why = d
                break
        print(f"{p}" + (f" (-> {real})" if real != os.path.abspath(p) else "")
              + f": {'cannot execute' if i == 0 else 'cannot read'}" + (f" {why}" if why and why != real else ""))
"""


def check_access(uid: int, program: str, files: list[str]) -> list[str]:
    """Problems uid ``uid`` would have running ``program`` (absolute path) with
    ``files`` (absolute paths it must read: scripts, and for a Python
    interpreter its standard library). Empty list = fine. Root only."""
    try:
        r = subprocess.run([sys.executable, "-S", "-E", "-c", _CHECK, str(uid), program, *files],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return [f"could not check access as uid {uid}: {e}"]
    return [ln for ln in r.stdout.splitlines() if ln.strip()] + (
        [f"access check failed: {r.stderr.strip()[-300:]}"] if r.returncode != 0 else [])


# --------------------------------------------------------------------------- the sandbox of a run
class SandboxError(ValueError):
    """A sandbox setting this machine cannot honour, or bots that cannot run under it."""


#: how to fix bots that an unprivileged uid cannot run (the usual cause: a Python under /root)
UIDS_FIX = ("make the bots' programs and files readable (and the program executable) by other users; for "
            "the referee's own Python, build its virtualenv from a Python other users can execute: "
            "`rm -rf .venv && make setup PY=/usr/bin/python3` (what `make setup` and .ci/run do by themselves "
            "as root), never one under /root; or, for bots you trust, run them under the referee's uid on "
            "purpose: --bot-uids off (referee match) or bot_uids = \"off\" in the tournament file's "
            "[sandbox] (docs/sandbox.md says what they can then do)")


class Sandbox:
    """The isolation settings of one referee run (``referee match``, a tournament).

    ``bot_uids``: ``"auto"`` (each bot under its own uid from
    :data:`DEFAULT_UID_RANGE` when the referee is root; a root referee whose
    bots such a uid cannot run refuses them, see :func:`prepare`; a referee
    that is not root cannot switch uids, so its bots run under its own),
    ``"off"`` (every bot under the referee's uid: asked for, so said once,
    never warned about), or a range ``"A-B"`` (strict: refused when not
    root). ``isolate_network``: each bot in its own network namespace (root),
    reaching the referee over its own Unix socket. ``cgroups``: use
    cgroups where they can be made (False: rlimits only).

    Raises :class:`SandboxError` for a setting this machine cannot honour.
    """

    def __init__(self, bot_uids: str = "off", isolate_network: bool = False, cgroups: bool = True):
        self.requested_uids = bot_uids
        self.strict_uids = bot_uids not in ("auto", "off")
        self.isolate_network = isolate_network
        root = os.geteuid() == 0
        self.caps = capabilities() if cgroups else Capabilities(root=root, notes=["cgroups turned off"])
        self.pool: UidPool | None = None
        self.uid_note = ""
        if bot_uids == "auto":
            if root:
                self.pool = UidPool(*DEFAULT_UID_RANGE)
            else:
                self.uid_note = ("the referee is not root, so its bots run under its uid: they can read each "
                                 "other's files; run the referee as root for one uid per bot")
        elif bot_uids == "off":
            self.uid_note = ("bot_uids = off: the bots run under the referee's uid"
                             + (", as root without capabilities" if root else ""))
        else:
            rng = parse_uid_range(bot_uids)
            if not root:
                raise SandboxError(f"bot uids {bot_uids}: switching uids needs a referee running as root")
            self.pool = UidPool(*rng)
        if isolate_network:
            if not (self.caps.netns or _netns_works()):
                raise SandboxError("isolate_network: this machine does not let the referee create network "
                                   "namespaces (it needs root or CAP_SYS_ADMIN)")
        self._root: Path | None = None
        self._checked: dict[tuple[str, ...], list[str]] = {}

    @property
    def uids(self) -> bool:
        """Bots get their own uid."""
        return self.pool is not None

    def private_root(self) -> Path:
        """The directory holding the bots' private working directories (mode
        0711: others may pass through but not list it); made on first use."""
        if self._root is None:
            _remove_stale_roots()
            self._root = Path(tempfile.mkdtemp(prefix=f"referee-bots-{os.getpid()}-"))
            os.chmod(self._root, 0o711)
        return self._root

    def describe(self) -> str:
        """One line for the match log and operator output: what is in force."""
        uids = (f"own uid per bot ({self.pool.first}-{self.pool.last})" if self.pool is not None
                else f"off{' (' + self.uid_note + ')' if self.uid_note else ''}")
        return (f"{self.caps.describe().split('; bot uids')[0]}; bot uids: {uids}; isolated network: "
                f"{'yes' if self.isolate_network else 'no'}")

    def check(self, argv: list[str], files: list[str]) -> list[str]:
        """Problems a bot uid would have running ``argv`` (program resolved,
        absolute) reading ``files``; cached. Empty without uid switching."""
        if self.pool is None:
            return []
        key = (argv[0], *files)
        if key not in self._checked:
            uid = self.pool.acquire()
            try:
                self._checked[key] = check_access(uid, argv[0], files)
            finally:
                self.pool.release(uid)
        return self._checked[key]

    def close(self) -> None:
        """Remove the private root (bots' working directories) once the run is over."""
        if self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None


def _remove_stale_roots() -> None:
    """Remove the bots' directories a referee that died (``kill -9``) left in the temp dir."""
    for d in Path(tempfile.gettempdir()).glob("referee-bots-*-*"):
        pid = d.name.split("-")[2]
        if pid.isdigit() and int(pid) != os.getpid() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(d, ignore_errors=True)


def prepare(sandbox: Sandbox, commands: list[str], base: Path | None = None,
            labels: dict[str, str] | None = None) -> list[str]:
    """Check before any match that every bot command can run under ``sandbox``.

    With bot uids on (a range, or ``"auto"`` as root), each command's
    program and files must be readable (and the program executable) by an
    unprivileged uid: otherwise :class:`SandboxError` lists every problem
    (each after its command's label in ``labels``, e.g. ``"bot e02
    (entries/e02.toml:2)"``, when it has one) and says how to fix it
    (:data:`UIDS_FIX`): bots never fall back to the referee's uid unless
    that was asked for. Returns warnings to show (none today: kept for
    callers)."""
    if not sandbox.uids:
        return []
    problems: list[str] = []
    for cmd in dict.fromkeys(commands):
        try:
            argv = resolve_command(cmd, base)
        except (OSError, ValueError):
            continue  # reported by check_command with its own words
        who = (labels or {}).get(cmd)
        found = [f"{who}: {p}" if who else p for p in sandbox.check(argv, readable_files(argv))]
        problems += [p for p in found if p not in problems]
    if not problems:
        return []
    raise SandboxError("bots cannot run under their own uid: " + "; ".join(problems) + ". To fix it, " + UIDS_FIX)
