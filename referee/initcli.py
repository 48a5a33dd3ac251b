"""``referee init [DIR]``: copy a runnable example tournament out of the installation.

Writes into ``DIR`` (default: the current directory), in the repository's
layout, so that every command in the README and the docs works from there:

* ``tournaments/examples/``: the example tournament files (``*.toml``, and
  ``ladder/``), whose bot commands (``python sample_bots/random_bot.py``) are
  taken relative to the directory ``referee`` is run from;
* ``sample_bots/``: the Python sample bots the examples launch, the C++
  sample (``cpp/``: ``bot.cc``, ``Makefile``, ``README.md``) and the Node
  sample (``node/``: ``bot.js``, ``botlib.js``, ``package.json``, ``package-lock.json``);
* ``protos/cardgames/v1/*.proto``: the protocol, which the C++ sample
  compiles and the Node sample loads from ``../../protos``;
* ``docs/``: the documentation;
* ``README.md``: the project's README, whose links (``docs/...``,
  ``sample_bots/...``) work from ``DIR``.

The sources are the installed packages (``sample_bots``, ``tournaments``,
``cardgames``) and the documentation the wheel installs under
``<prefix>/share/doc/cardgame-referee/`` (README.md among the guides there);
in a source checkout (an editable install) the repository's own files. Build products (``node_modules/``,
``build/``, ``__pycache__/``) are never copied.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import typer

import sample_bots
import tournaments
from referee.installed import docs_dir, protos_dir, readme_file

#: directories of build products, never copied out of ``sample_bots/``
SKIPPED_DIRS = {"node_modules", "build", "__pycache__"}
#: the example the printed next command runs
FIRST_EXAMPLE = "tournaments/examples/doudizhu.toml"


def _tree(src: Path, dest: str) -> list[tuple[Path, str]]:
    """Every file under ``src`` as ``(source, dest/relative path)``, skipping :data:`SKIPPED_DIRS` and ``*.pyc``."""
    out = []
    for p in sorted(src.rglob("*")):
        rel = p.relative_to(src)
        if p.is_file() and not SKIPPED_DIRS.intersection(rel.parts[:-1]) and p.suffix != ".pyc":
            out.append((p, f"{dest}/{rel.as_posix()}"))
    return out


def example_files() -> list[tuple[Path, str]]:
    """What ``referee init`` copies: ``(source file, POSIX path relative to DIR)`` pairs.

    Raises ``FileNotFoundError`` if the installation lacks the ``.proto`` files
    (see :func:`referee.installed.protos_dir`).
    """
    examples = Path(tournaments.__file__).resolve().parent / "examples"
    files = [(p, f"tournaments/examples/{p.relative_to(examples).as_posix()}")
             for p in sorted(examples.rglob("*.toml"))]
    files += _tree(Path(sample_bots.__file__).resolve().parent, "sample_bots")
    protos = protos_dir() / "cardgames" / "v1"
    files += [(p, f"protos/cardgames/v1/{p.name}") for p in sorted(protos.glob("*.proto"))]
    docs = docs_dir()
    if docs is not None:
        files += [(p, f"docs/{rel}") for p, rel in
                  ((p, p.relative_to(docs).as_posix()) for p in sorted(docs.rglob("*")) if p.is_file())
                  if rel != "README.md"]  # the project's README, installed beside the guides: DIR/README.md
    readme = readme_file()
    if readme is not None:
        files.append((readme, "README.md"))
    return files


def init_examples(directory: Path | str = ".", force: bool = False) -> list[Path]:
    """Copy :func:`example_files` into ``directory`` (created if missing).

    Returns the paths written. Without ``force``, raises ``FileExistsError``
    naming the files that already exist, before writing anything; with it,
    they are overwritten. Raises ``FileNotFoundError`` (see
    :func:`example_files`) or ``OSError`` from the file system; on such an
    error the files written so far stay.
    """
    target = Path(directory)
    plan = [(src, target / rel) for src, rel in example_files()]
    if not force:
        existing = [dst for _, dst in plan if dst.exists() or dst.is_symlink()]
        if existing:
            shown = ", ".join(str(p) for p in existing[:3]) + (f" and {len(existing) - 3} more"
                                                               if len(existing) > 3 else "")
            raise FileExistsError(f"{shown} already exist{'s' if len(existing) == 1 else ''}; "
                                  "nothing was written (--force overwrites them, or choose another DIR)")
    written = []
    for src, dst in plan:
        dst.parent.mkdir(parents=True, exist_ok=True)
        if dst.is_symlink():  # --force: replace the link itself, never write through it
            dst.unlink()
        shutil.copyfile(src, dst)
        written.append(dst)
    return written


def init(
    directory: Path = typer.Argument(Path("."), metavar="DIR", help="Where to put the examples (created if missing)."),
    force: bool = typer.Option(False, "--force", help="Overwrite files that already exist."),
) -> None:
    """Copy a runnable example tournament, the sample bots and the docs into DIR.

    Writes tournaments/examples/*.toml, sample_bots/ (Python, C++ and Node),
    protos/, docs/ and README.md (the repository's layout), then prints the command that
    runs the first example. Never overwrites a file without --force.
    """
    above = next((p for p in (directory, *directory.parents) if p.exists() or p.is_symlink()), None)
    if above is not None and not above.is_dir():
        typer.echo(f"error: {directory}: {above} is a file, not a directory", err=True)
        raise typer.Exit(1)
    try:
        written = init_examples(directory, force)
    except OSError as e:  # FileExistsError, FileNotFoundError, permissions
        typer.echo(f"error: {f'{e.strerror}: {e.filename}' if e.strerror and e.filename else e}", err=True)
        raise typer.Exit(1)
    parts = sorted({p.relative_to(directory).parts[0] for p in written})
    shown = ", ".join(f"{d}/" if (Path(directory) / d).is_dir() else d for d in parts)
    typer.echo(f"wrote {len(written)} files into {directory}: {shown}")
    if "docs" not in parts:
        typer.echo("(no documentation in this installation)")
    typer.echo("next:")
    if Path(directory) != Path("."):
        typer.echo(f"  cd {shlex.quote(str(directory))}")
    typer.echo(f"  referee tournament run {FIRST_EXAMPLE}")
    typer.echo("the C++ and Node sample bots' set-up (see their README.md):")
    typer.echo("  make -C sample_bots/cpp")
    typer.echo("  (cd sample_bots/node && npm ci)")
