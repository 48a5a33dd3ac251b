"""The wheel, installed outside the checkout: complete, and ``referee init`` runnable.

A module fixture builds the wheel as the README says (``make wheel``) in a
clean copy of the checkout, with stand-ins for the samples' build products planted in it (a
``node_modules/`` and a C++ ``build/``, which must stay out of the wheel),
installs it with its dependencies into a fresh virtualenv of
``/usr/bin/python3`` and runs the installed ``referee init`` in a fresh
directory (which gets the README and the docs). The tests then run from there, through the installed ``referee``
executable over gRPC: the example tournament ``referee init`` names, the C++
sample's ``make``, the Node sample's ``npm ci``, a match of the C++, Node
and Python samples, ``referee bot new``, and an optional extra installed
with the README's syntax. Everything lives in one directory every uid can read (:func:`conftest.shared_dir`): as root, the
bots run under uids of their own.

About 50 s on the idle 2-core development machine (up to 140 s under load):
building and installing 15 s, the envs extra 5 s, the tournament (48 matches) 13 s, the C++
build (-O0) 18 s; pip and npm may use their registries (or a warm cache).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Iterator

import pytest

from conftest import PY, ROOT, shared_dir

sys.path.insert(0, str(ROOT))  # bench/ sits beside referee/ in the checkout
from bench import compiled  # noqa: E402

pytestmark = pytest.mark.slow

SYSTEM_PY = "/usr/bin/python3"
#: top-level entries of the checkout that are not part of the source
_NOT_SOURCE = {".git", ".venv", "build", "dist", "runs", ".pytest_cache", ".hypothesis"}


def _source_copy(dest: Path) -> None:
    """Copy the checkout to ``dest`` as a fresh clone plus the samples' build
    products: without caches, virtualenv or earlier build output, but with a
    ``sample_bots/node/node_modules/`` and a ``sample_bots/cpp/build/``."""
    def ignore(directory: str, names: list[str]) -> set[str]:
        skip = {n for n in names if n == "__pycache__" or n.endswith(".egg-info")}
        if Path(directory) == ROOT:
            skip |= _NOT_SOURCE.intersection(names)
        if Path(directory).name in ("node", "cpp") and Path(directory).parent.name == "sample_bots":
            skip |= {"node_modules", "build"}.intersection(names)
        return skip

    shutil.copytree(ROOT, dest, ignore=ignore)
    for planted in ("sample_bots/node/node_modules/@grpc/grpc-js/index.js", "sample_bots/node/node_modules/p.json",
                    "sample_bots/cpp/build/gen/cardgames/v1/referee.pb.cc"):
        (dest / planted).parent.mkdir(parents=True, exist_ok=True)
        (dest / planted).write_text("// build product\n")


def _env(venv: Path) -> dict[str, str]:
    """The environment of a user with the venv's ``bin`` first on PATH and
    nothing pointing into the checkout (nor any REFEREE_* setting)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("REFEREE_") and k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(argv)} failed ({r.returncode}):\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return r


@pytest.fixture(scope="module")
def installed() -> Iterator[dict]:
    """``base``: the directory holding ``dist/`` (the built wheel) and the rest;
    ``wheel``: the built wheel; ``venv``: the virtualenv it is installed in;
    ``work``: a fresh directory ``referee init`` wrote into; ``init``: its
    output; ``env``: the environment to run commands in."""
    base = shared_dir("referee-wheel-")
    try:
        src, venv, work = base / "src", base / "venv", base / "work"
        _source_copy(src)
        env = _env(venv)
        _run(["make", "wheel"], cwd=src, env=env)  # the README's command
        shutil.move(src / "dist", base / "dist")
        wheel = next((base / "dist").glob("cardgame_referee-*.whl"))
        _run([SYSTEM_PY, "-m", "venv", str(venv)], cwd=base, env=env)
        _run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(wheel)],
             cwd=base, env=env, timeout=600)
        shutil.rmtree(src)  # nothing may come from the source any more
        work.mkdir()
        init = _run(["referee", "init"], cwd=work, env=env)
        yield {"base": base, "wheel": wheel, "venv": venv, "work": work, "init": init.stdout, "env": env}
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_wheel_ships_complete_samples_examples_and_docs(installed: dict) -> None:
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    for f in ("sample_bots/cpp/bot.cc", "sample_bots/cpp/Makefile", "sample_bots/cpp/README.md",
              "sample_bots/node/bot.js", "sample_bots/node/botlib.js", "sample_bots/node/package.json",
              "sample_bots/node/package-lock.json",
              "sample_bots/node/README.md", "sample_bots/random_bot.py", "sample_bots/heuristic_bot.py", "sample_bots/heuristics/doudizhu.py",
              "cardgames/v1/referee.proto", "tournaments/examples/doudizhu.toml",
              "tournaments/examples/ladder/doudizhu.toml"):
        assert f in names, f"{f} missing from the wheel"
    examples = {p.name for p in (ROOT / "tournaments" / "examples").glob("*.toml")}
    assert examples <= {Path(n).name for n in names if n.startswith("tournaments/examples/")}
    docs = {n.split("/share/doc/cardgame-referee/", 1)[1] for n in names if "/share/doc/cardgame-referee/" in n}
    assert {p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*")
            if p.suffix in (".md", ".json")} <= docs  # the guides, and the rules specs with their vectors
    assert "README.md" in docs  # the docs point to its sections (and it has the leaderboard's legend)
    assert not [n for n in names if "node_modules" in n or "/build/" in n]
    built = {n.split(".cpython-")[0].replace("/", ".") for n in names if n.endswith(".so")}
    assert set(compiled.modules()) <= built  # the compiled build (setup.py)


def test_init_writes_from_the_installation(installed: dict) -> None:
    work, venv = installed["work"], installed["venv"]
    where = _run(["python", "-c", "import referee, sample_bots; print(referee.__file__); print(sample_bots.__file__)"],
                 cwd=venv, env=installed["env"]).stdout.split()  # not from work: python -c imports from its cwd
    assert all(Path(p).is_relative_to(venv) for p in where), where
    for f in ("tournaments/examples/doudizhu.toml", "sample_bots/random_bot.py", "sample_bots/cpp/bot.cc",
              "sample_bots/node/package-lock.json", "protos/cardgames/v1/referee.proto", "docs/protocol.md",
              "docs/games/doudizhu.md", "docs/rules/doudizhu.md", "docs/rules/vectors/doudizhu.json",
              "README.md"):
        assert (work / f).is_file(), f"referee init did not write {f}"
    assert (work / "README.md").read_text() == (ROOT / "README.md").read_text()
    assert not (work / "docs" / "README.md").exists()  # the README goes to the top, where its links work
    assert not (work / "sample_bots" / "node" / "node_modules").exists()
    conformance = _run(["referee", "conformance", "docs/rules/vectors"], cwd=work, env=installed["env"])
    assert " passed, 0 failed" in conformance.stdout  # the README's command, on the copied specs
    assert "referee tournament run tournaments/examples/doudizhu.toml" in installed["init"]
    again = subprocess.run(["referee", "init"], cwd=work, env=installed["env"], capture_output=True, text=True,
                           timeout=120)
    assert again.returncode == 1 and "already exist" in again.stderr and "Traceback" not in again.stderr


def test_bot_new_points_at_the_installed_protocol_guide(installed: dict) -> None:
    _run(["referee", "bot", "new", "mybot"], cwd=installed["work"], env=installed["env"])
    guide = installed["venv"].resolve() / "share" / "doc" / "cardgame-referee" / "protocol.md"
    assert guide.is_file()
    assert guide.as_posix() in (installed["work"] / "mybot" / "README.md").read_text()


def test_bot_new_node_pastes_the_installed_botlib(installed: dict) -> None:
    """The Node skeleton carries the code of the installed sample_bots/node/botlib.js."""
    _run(["referee", "bot", "new", "jsbot", "--lang", "node"], cwd=installed["work"], env=installed["env"])
    assert "function connectAndPlay(" in (installed["work"] / "jsbot" / "bot.js").read_text()


def test_example_tournament_runs_from_the_copy(installed: dict) -> None:
    """The command ``referee init`` prints, as printed."""
    command = re.search(r"^  (referee tournament run \S+)$", installed["init"], re.M).group(1)
    r = _run(command.split(), cwd=installed["work"], env=installed["env"], timeout=600)
    out = r.stdout + r.stderr
    assert "48/48 matches" in out
    for bot in ("heuristic-a", "heuristic-b", "random-a", "random-b"):
        assert re.search(rf"^\s*\d \s*{bot}\s", out, re.M), f"{bot} missing from the leaderboard:\n{out}"
    assert "aborted: 0" in out


def test_cpp_and_node_samples_set_up_and_play_from_the_copy(installed: dict) -> None:
    work, env = installed["work"], installed["env"]
    assert "make -C sample_bots/cpp" in installed["init"] and "npm ci" in installed["init"]
    for tool in ("make", "g++", "protoc", "grpc_cpp_plugin", "pkg-config", "node", "npm"):
        assert shutil.which(tool), f"{tool} not found: the samples' set-up needs it"
    # -O0: a working bot, not a fast one (about half the compile time)
    _run(["make", "-C", "sample_bots/cpp", "CXXFLAGS=-O0", "-j2"], cwd=work, env=env, timeout=1200)
    assert os.access(work / "sample_bots" / "cpp" / "build" / "bot", os.X_OK)
    _run(["npm", "ci", "--no-audit", "--no-fund"], cwd=work / "sample_bots" / "node", env=env)
    assert (work / "sample_bots" / "node" / "node_modules" / "@grpc" / "grpc-js").is_dir()
    r = _run(["referee", "match", "doudizhu", "--seed", "3", "--param", "rounds=1", "--json",
              "--bot", "sample_bots/cpp/build/bot --name cpp", "--bot", "node sample_bots/node/bot.js",
              "--bot", "python sample_bots/random_bot.py"], cwd=work, env=env)
    out = json.loads(r.stdout)
    assert out["status"] == "complete" and out["faults"] == [] and out["decisions"] > 0


def test_an_extra_installs_from_the_wheel_as_the_readme_says(installed: dict) -> None:
    """``pip install "$(ls dist/cardgame_referee-*.whl)[envs]"``, then the training environments run."""
    extra = '"$(ls dist/cardgame_referee-*.whl)[envs]"'
    assert extra in (ROOT / "README.md").read_text()
    _run(["bash", "-c", f"pip install --quiet --disable-pip-version-check {extra}"], cwd=installed["base"],
         env=installed["env"], timeout=600)
    r = _run(["python", "-c", "import referee.envs as e; env = e.aec_env('doudizhu', seed=1); env.reset(seed=1); "
              "print(env.agent_selection); import referee.envs.table as t; print(t.__file__)"],
             cwd=installed["venv"], env=installed["env"])
    agent, table = r.stdout.split()
    assert agent.startswith("seat_") and table.endswith(".so")  # the compiled build is what runs
