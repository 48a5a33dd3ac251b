"""The build's one addition to pyproject.toml: the compiled build.

With ``CARDGAME_REFEREE_COMPILE=1`` in the environment (``make wheel`` sets
it), the modules of :data:`COMPILED` are compiled with mypyc, the compiler
of mypy: the same Python source, built as C extension modules beside it.
They are every game's rules (``rules.py``: validation, legal plays,
scoring) and environment encoding (``envs.py``), and the training
environments' action, observation and table code: what a training loop
spends its time in (docs/performance.md, "The compiled build"). The game
classes (``game.py``) and event records (``events.py``) stay Python, as
everything else. Without the variable (``make setup``'s editable install)
the package is plain Python. mypyc needs a C compiler and the Python
headers; it checks the declared types of those modules at run time, so
they must be true (``mypy`` on them reports no error).
"""

from __future__ import annotations

import os
from glob import glob

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
#: the modules compiled by the compiled build, as source paths relative to this directory
COMPILED: list[str] = sorted(
    [os.path.relpath(p, HERE) for part in ("rules", "envs")
     for p in glob(os.path.join(HERE, "referee", "games", "*", f"{part}.py"))]
    + ["referee/envs/actions.py", "referee/envs/encode.py", "referee/envs/table.py"])


def extensions() -> list:
    """The C extension modules of the compiled build (none without ``CARDGAME_REFEREE_COMPILE=1``)."""
    if os.environ.get("CARDGAME_REFEREE_COMPILE") != "1":
        return []
    from mypyc.build import mypycify  # mypy is a build requirement (pyproject.toml)

    return mypycify(["--ignore-missing-imports", "--follow-imports=silent", *COMPILED],
                    group_name="cardgame_referee")


if __name__ == "__main__":  # as setuptools runs it (importable for COMPILED without building)
    setup(ext_modules=extensions())
