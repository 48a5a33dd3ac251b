"""``referee bench``: the benchmark of ``bench/run.py`` from the CLI.

The bench lives in the source tree (``bench/``, beside ``referee/``), not in
the installed package; this command finds it there.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from referee.clikit import fail


def bench(
    quick: bool = typer.Option(False, "--quick", help="Tiny time budgets: a smoke run, rough figures."),
    reps: Optional[int] = typer.Option(None, "--reps", min=1,
                                       help="Repetitions, at least 1 (default 5, quick 1); ratios are medians."),
    only: str = typer.Option("", "--only", help=(
        "Comma-separated sections (default: all, about 3-4 minutes): engine (random playouts per game, "
        "one core), decision (engine time per decision, bare gRPC echo, layout echo and refereed matches "
        "with bot processes), peers (Dou Dizhu vs RLCard and OpenSpiel), tournament (matches per "
        "minute at concurrency 1 and 2), memory (RSS with 8 concurrent matches), scaleout (local vs Dask), "
        "envs (training-environment steps per second per game, of the source and of the compiled build "
        "that make wheel installs, built once into build/compiled/: 1-3 minutes the first time; vs RLCard's "
        "Dou Dizhu environment); only "
        "when named: scale (leaderboard, status, pages, report and ladder restart on stored fields of up to "
        "1,000 bots and 1,000,000 matches, built once into runs/bench-scale/; about 30 minutes the first "
        "time).")),
    json_path: Optional[Path] = typer.Option(None, "--json", help="Also write the report as JSON to this file."),
) -> None:
    """Benchmark the engines, the referee over loopback gRPC, tournaments and
    memory, side by side with RLCard and OpenSpiel when installed
    (the optional 'bench' extra of pyproject.toml). Prints figures and which targets are met.
    Needs a source checkout (the bench lives in bench/, beside referee/); docs/performance.md
    explains every figure."""
    root = Path(__file__).resolve().parent.parent
    if not (root / "bench" / "run.py").is_file():
        fail(f"no bench/run.py beside {root / 'referee'}; run it from a source checkout")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from bench.run import main  # bench/ is not installed: importable once its checkout is on sys.path

    argv = (["--quick"] if quick else []) + (["--reps", str(reps)] if reps else []) \
        + (["--only", only] if only else []) + (["--json", str(json_path)] if json_path else [])
    main(argv)
