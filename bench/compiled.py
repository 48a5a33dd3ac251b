"""The compiled build (setup.py, docs/performance.md "The compiled build")
for the bench and its tests: the wheel ``make wheel`` builds, with the
modules of ``setup.COMPILED`` compiled by mypyc, unpacked into
``build/compiled/<key>/`` of the checkout, where ``<key>`` is a hash of
the package's sources. A process run with that directory first on
``sys.path`` (:func:`environment`) imports the compiled ``referee``.

The first call after a source change builds it (about 1-3 minutes: pip
fetches the build requirements, mypyc compiles); later calls find it.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
#: what the key hashes: the package's Python sources and the build's configuration
SOURCES = ("referee", "cardgames")
BUILD_FILES = ("setup.py", "pyproject.toml")
#: a module of the compiled build, to tell it from the source (its ``__file__`` ends in ``.so``)
PROBE = "referee.games.doudizhu.rules"


def source_key(root: Path = ROOT) -> str:
    """A hash (16 hex digits) of every ``.py`` file under the package
    directories and of the build files: it changes with any source change."""
    h = hashlib.sha256()
    files = sorted(p for d in SOURCES for p in (root / d).rglob("*.py") if "__pycache__" not in p.parts)
    for p in [*files, *(root / f for f in BUILD_FILES)]:
        h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def modules(root: Path = ROOT) -> list[str]:
    """The dotted names of the modules the compiled build compiles (``setup.COMPILED``)."""
    spec = importlib.util.spec_from_file_location("cardgame_referee_setup", root / "setup.py")
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)  # not as __main__: it only defines COMPILED
    return [p.removesuffix(".py").replace("/", ".") for p in setup.COMPILED]


def tree(root: Path = ROOT, say: Callable[[str], None] | None = None) -> Path | str:
    """The directory holding the compiled build of ``root``'s sources,
    building it if needed (``say`` is told before a build starts); or, when
    it cannot be built (no C compiler, no access to the build
    requirements...), a one-line reason. One build at a time (a lock file);
    older builds are removed."""
    base = root / "build" / "compiled"
    base.mkdir(parents=True, exist_ok=True)
    key = source_key(root)
    dest = base / key
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (dest / "referee").is_dir():
            return dest
        if say is not None:
            say(f"building the compiled build of these sources into {dest} (once per state of the sources; "
                "1-3 minutes) ...")
        with tempfile.TemporaryDirectory(dir=base) as tmp:
            env = dict(os.environ, CARDGAME_REFEREE_COMPILE="1")
            r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                                "--disable-pip-version-check", "--wheel-dir", tmp, str(root)],
                               cwd=tmp, env=env, capture_output=True, text=True, timeout=1800)
            wheels = list(Path(tmp).glob("*.whl"))
            if r.returncode != 0 or not wheels:
                lines = [ln for ln in (r.stderr + r.stdout).splitlines() if ln.strip()]
                return "the compiled build failed: " + (lines[-1].strip() if lines else f"pip exited {r.returncode}")
            unpacked = Path(tmp) / "tree"
            with zipfile.ZipFile(wheels[0]) as z:
                z.extractall(unpacked)
            for so in unpacked.rglob("*.so"):
                so.chmod(0o755)  # zipfile drops the mode bits
            unpacked.rename(dest)
        for old in base.iterdir():
            if old.is_dir() and old != dest:
                shutil.rmtree(old, ignore_errors=True)
    return dest


def environment(compiled: Path) -> dict[str, str]:
    """The environment of a child process importing the compiled build at
    ``compiled`` first, and ``bench`` from the checkout (run it with
    ``cwd=compiled``: ``python -m`` puts its cwd first on ``sys.path``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = f"{compiled}{os.pathsep}{ROOT}"
    return env


def is_compiled(module: object) -> bool:
    """True if ``module`` was loaded from a C extension (the compiled build)."""
    return str(getattr(module, "__file__", "")).endswith(".so")
