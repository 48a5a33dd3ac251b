"""The compiled build (setup.py: mypyc over ``setup.COMPILED``) behaves as the source.

The build is the wheel ``make wheel`` makes, unpacked by
:func:`bench.compiled.tree` (built once per source state, about 1-3
minutes; reused by ``referee bench``). The engines' and the training
environments' own tests then run again in a child pytest that imports
``referee`` from it: every game's rules and conformance vectors, the
environments (PettingZoo's and Gymnasium's checkers, the arrays against
the protocol's messages at every step), the hidden-information tests and
the engine contract.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.slow

sys.path.insert(0, str(ROOT))  # bench/ sits beside referee/ in the checkout
from bench import compiled  # noqa: E402

#: the tests run again against the compiled build
SUITES = ("tests/games", "tests/test_envs.py", "tests/test_hidden_info.py", "tests/test_engine_contract.py")


@pytest.fixture(scope="module")
def tree() -> Path:
    t = compiled.tree()
    assert isinstance(t, Path), t
    return t


def test_every_listed_module_is_compiled(tree: Path) -> None:
    modules = compiled.modules()
    assert "referee.games.doudizhu.rules" in modules and "referee.envs.table" in modules
    script = ("import importlib, sys\n"
              "for m in sys.argv[1:]:\n"
              "    print(m, importlib.import_module(m).__file__)\n")
    r = subprocess.run([sys.executable, "-c", script, *modules], cwd=tree, env=compiled.environment(tree),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    files = dict(line.split(" ", 1) for line in r.stdout.splitlines())
    assert set(files) == set(modules)
    for m, f in files.items():
        assert f.endswith(".so") and Path(f).is_relative_to(tree), (m, f)


def test_the_engine_and_environment_tests_pass_on_the_compiled_build(tree: Path) -> None:
    pytest_bin = Path(sys.executable).with_name("pytest")
    # the negative controls plant leaks by patching classes, which a compiled class does not allow:
    # they test the tests, which the source run covers
    argv = [str(pytest_bin), "-q", "-p", "no:cacheprovider", "-x", "-k", "not negative_control", *SUITES]
    r = subprocess.run(argv, cwd=ROOT, env=compiled.environment(tree), capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert " passed" in r.stdout.splitlines()[-1] and "skipped" not in r.stdout.splitlines()[-1]
