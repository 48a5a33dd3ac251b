"""``referee bot new``: write a minimal, runnable bot skeleton.

``referee bot new NAME --lang python|node [--dir PATH]`` creates the folder
``PATH/NAME/`` (``PATH`` defaults to the current directory) holding:

* ``--lang python``: ``bot.py`` (self-contained: only ``grpcio`` and the
  installed ``cardgames.v1`` stubs) and ``README.md``;
* ``--lang node``: ``bot.js`` (loads the referee's ``.proto`` files at
  runtime from ``$REFEREE_PROTOS``, defaulting to the absolute path of this
  installation's ``protos/`` directory), ``package.json`` and ``README.md``
  (run ``npm install`` in the folder once).

Each skeleton plays a uniformly random legal action and can be used at once,
e.g. ``referee match doudizhu --bot "python NAME/bot.py" --bot ... --bot ...``.
The templates live in :mod:`referee.templates`.

``referee bot from-policy MODULE:FUNCTION`` runs a policy over the training
environments' observations as a bot (:mod:`referee.policybot`, docs/envs.md).
"""

from __future__ import annotations

import ast
import json
import re
from enum import Enum
from importlib import resources
from pathlib import Path

import typer

from referee.clikit import fail
from referee.installed import docs_dir, protos_dir

#: a bot name: 1..64 characters, letters, digits, ``_``, ``.``, ``-``, not starting with ``.`` or ``-``
NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")

#: per language: (template file in referee/templates, file written into the bot folder)
TEMPLATES: dict[str, list[tuple[str, str]]] = {
    "python": [("python_bot.py", "bot.py"), ("python_README.md", "README.md")],
    "node": [("node_bot.js", "bot.js"), ("node_package.json", "package.json"), ("node_README.md", "README.md")],
}
EXECUTABLE = {"bot.py", "bot.js"}

_REPO = Path(__file__).resolve().parent.parent


class Lang(str, Enum):
    """Languages ``referee bot new`` can write a skeleton in."""

    python = "python"
    node = "node"


def botlib_code() -> str:
    """The code of ``sample_bots/botlib.py`` (the Python sample bots' connection
    to the referee) without its docstring and ``from __future__`` line: what
    the Python skeleton's ``__BOTLIB__`` stands for, so that a new bot is one
    self-contained file running the same client code as the sample bots."""
    source = resources.files("sample_bots").joinpath("botlib.py").read_text(encoding="utf-8")
    lines = source.splitlines()
    first = ast.parse(source).body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        lines = lines[first.end_lineno:]
    lines = [ln for ln in lines if ln != "from __future__ import annotations"]
    return "\n".join(lines).strip("\n")


def node_botlib_code() -> str:
    """The code of ``sample_bots/node/botlib.js`` (the Node sample bot's connection
    to the referee) without its header comment, its ``'use strict';`` and its
    ``module.exports``: what the Node skeleton's ``__BOTLIB__`` stands for, so
    that a new bot is one file running the same client code as the sample bot."""
    source = resources.files("sample_bots").joinpath("node", "botlib.js").read_text(encoding="utf-8")
    lines = source.splitlines()
    while lines and (lines[0].startswith("//") or lines[0] in ("", "'use strict';")):
        lines.pop(0)
    exports = next(i for i, line in enumerate(lines) if line.startswith("module.exports"))
    return "\n".join(lines[:exports]).strip("\n")


def _display(p: Path) -> str:
    """``p`` relative to the current directory when inside it, else absolute (POSIX separators)."""
    p = p.resolve()
    try:
        return p.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return p.as_posix()


def new_bot(name: str, lang: str = "python", directory: Path | str = ".") -> list[Path]:
    """Write a bot skeleton into the new folder ``directory/name``.

    ``name``: folder and bot name (``NAME_RE``: 1..64 of letters, digits,
    ``_ . -``); ``lang``: ``"python"`` or ``"node"``; ``directory``: parent
    folder, created if missing. Returns the paths written, in template order.

    Raises ``ValueError`` for a bad name or language, ``FileExistsError`` if
    ``directory/name`` already exists (nothing is overwritten),
    ``FileNotFoundError`` for ``node`` when the ``.proto`` files cannot be
    found (see :func:`referee.installed.protos_dir`). On any error no folder is left behind.
    """
    if not NAME_RE.match(name):
        raise ValueError(f"bad bot name {name!r}: use 1..64 letters, digits, '_', '.', '-' "
                         "(not starting with '.' or '-')")
    if lang not in TEMPLATES:
        raise ValueError(f"unknown language {lang!r}; choose one of: {', '.join(TEMPLATES)}")
    target = Path(directory) / name
    if target.exists() or target.is_symlink():
        raise FileExistsError(f"{target} already exists; choose another NAME or --dir (nothing was overwritten)")
    protos = protos_dir() if lang == "node" else None
    docs = docs_dir()  # the checkout's docs/, or the ones the wheel installs
    subs = {
        "__BOT_NAME__": name,
        "__BOT_DIR__": _display(target),
        "__OPPONENT__": _display(_REPO / "sample_bots" / "random_bot.py"),
        "__PACKAGE_NAME__": re.sub(r"[^a-z0-9._-]", "-", name.lower()).lstrip("._") or "bot",
        "__PROTOCOL_DOC__": (docs / "protocol.md").as_posix() if docs
        else "docs/protocol.md in the referee's repository",
        # written inside a JS string literal: JSON escaping is valid JS escaping
        "__REFEREE_PROTOS__": json.dumps(str(protos))[1:-1] if protos else "",
    }
    subs["__BOTLIB__"] = botlib_code() if lang == "python" else node_botlib_code()
    texts = []
    pkg = resources.files("referee.templates")
    for src, dst in TEMPLATES[lang]:
        text = pkg.joinpath(src).read_text(encoding="utf-8")
        for k, v in subs.items():
            text = text.replace(k, v)
        texts.append((target / dst, text))
    target.mkdir(parents=True)  # raises FileExistsError if created meanwhile
    written: list[Path] = []
    try:
        for path, text in texts:
            path.write_text(text, encoding="utf-8")
            if path.name in EXECUTABLE:
                path.chmod(0o755)
            written.append(path)
    except OSError:
        for p in written:
            p.unlink(missing_ok=True)
        target.rmdir()
        raise
    return written


bot_app = typer.Typer(help="Bot authoring helpers.", no_args_is_help=True, add_completion=False,
                     rich_markup_mode="markdown")


@bot_app.command("new")
def new_command(
    name: str = typer.Argument(..., help="Folder and bot name, e.g. mybot (letters, digits, _ . -)."),
    lang: Lang = typer.Option(Lang.python, "--lang", "-l", help="Language of the skeleton."),
    directory: Path = typer.Option(Path("."), "--dir", "-d", help="Parent folder of the new NAME/ folder."),
) -> None:
    """Write a minimal working bot skeleton into a new folder NAME/ (never overwrites).

    The bot plays random legal actions; edit its choose() function. Python
    needs only the referee's environment; Node needs `npm install` in NAME/.
    """
    try:
        written = new_bot(name, lang.value, directory)
    except (ValueError, FileExistsError, FileNotFoundError, OSError) as e:
        fail(str(e), 1)
    folder = written[0].parent
    shown = _display(folder)
    for p in written:
        typer.echo(f"wrote {_display(p)}")
    run = f"python {shown}/bot.py" if lang is Lang.python else f"node {shown}/bot.js"
    opp = _display(_REPO / "sample_bots" / "random_bot.py")
    typer.echo("next:")
    if lang is Lang.node:
        typer.echo(f"  (cd {shown} && npm install)")
    typer.echo(f'  referee match doudizhu --bot "{run}" --bot "python {opp}" --bot "python {opp}"')


@bot_app.command("from-policy", add_help_option=False,
                 context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def from_policy_command(ctx: typer.Context) -> None:
    """Run a policy over referee.envs observations as a bot (MODULE:FUNCTION; --help lists its options).

    Every argument is the bot's own (`referee bot from-policy --help`: the policy,
    `--with`, `--on-error`, `--referee ADDRESS`, `--name`, ...), so that
    `referee bot from-policy mymod:act` is a bot command for `referee match` and tournaments.
    """
    # here, not at the top: referee.policybot loads numpy, +40-60 ms on every `referee` start-up
    from referee.policybot import run

    raise typer.Exit(run(list(ctx.args)))
