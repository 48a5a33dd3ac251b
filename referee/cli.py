"""The ``referee`` command line (typer)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

app = typer.Typer(
    name="referee",
    help="Referee and tournament harness for card-game bots "
    "(Dou Dizhu, Tractor, Smear, President, Back Alley).",
    no_args_is_help=True,
    add_completion=False,
)
console = Console(stderr=True)


@app.callback()
def _root() -> None:
    """Referee and tournament harness for card-game bots."""


@app.command()
def conformance(
    paths: list[Path] = typer.Argument(..., help="Vector directories (every *.json inside) or files."),
    game: Optional[list[str]] = typer.Option(None, "--game", "-g", help="Only these game ids."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also list passed and skipped cases."),
) -> None:
    """Answer every conformance case with the real engines.

    Prints one line per failing case (id, expected, actual), then
    'N passed, N failed, N skipped'. Exit status 1 on any failure. Cases of
    games not implemented yet are skipped, never passed.
    """
    import json

    from referee.conformance import run

    try:
        report = run(paths, set(game) if game else None)
    except (FileNotFoundError, ValueError) as e:
        console.print(f"[red]error:[/red] {e}")
        raise typer.Exit(2)
    for o in report.outcomes:
        if o.status == "failed":
            print(f"FAIL {o.id}: expected {json.dumps(o.expected)} got {json.dumps(o.actual)}"
                  + (f" ({o.reason})" if o.reason else ""))
        elif verbose:
            print(f"{o.status.upper()} {o.id}" + (f" ({o.reason})" if o.reason else ""))
    skipped = report.count("skipped")
    if skipped:
        games = sorted({o.game for o in report.outcomes if o.status == "skipped"})
        print(f"skipped {skipped} cases of games not implemented: {', '.join(games)}")
    print(f"{report.count('passed')} passed, {report.count('failed')} failed, {skipped} skipped")
    raise typer.Exit(0 if report.ok else 1)


def main() -> None:  # pragma: no cover
    app()
