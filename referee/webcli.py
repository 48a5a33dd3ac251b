"""``referee report`` and ``referee web``: see the games in a browser (:mod:`referee.web`)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

console = Console(stderr=True, soft_wrap=True)
DEFAULT_DB = "runs/referee.sqlite"


def _fail(msg: str, code: int = 1) -> None:
    console.print(f"[red]error:[/red] {msg}")
    raise typer.Exit(code)


def _store(db: str):
    from tournaments.store import StorageError, Store, mask_url

    try:
        return Store(db, create=False)
    except StorageError as e:
        msg = str(e)
        if msg.startswith("no results database"):
            msg += " (run a tournament first, or pass --db PATH)"
        _fail(msg)
    except Exception as e:  # a database the store cannot open: say so, no traceback
        _fail(f"cannot open the results database {mask_url(db)}: {e}")


def report(
    tournament: Optional[str] = typer.Argument(None, help="Tournament name (default: the latest)."),
    db: str = typer.Option(DEFAULT_DB, "--db", envvar="REFEREE_DB",
                           help="Results database path or URL (default: $REFEREE_DB, else runs/referee.sqlite)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Output directory "
                                       "(default: runs/report/<tournament>)."),
    matches: int = typer.Option(10_000, "--matches", min=0, help="List (and replay) the newest N matches, in "
                                "pages of 100; `referee results` exports every match."),
) -> None:
    """Write a tournament as a static site that opens from the file system and
    works offline: the leaderboard (100 bots a page) with the seat and role
    summaries, rating charts, the head-to-head of the top bots and every pair
    (h2h.csv), each bot's page (its newest faults, opponents and matches), the
    newest --matches matches with a replay of each that has a log (all cards,
    public, and as each seat). Prints what was left out and the path of its
    index page."""
    from referee.web.report import write_report
    from tournaments.report import tournament_row
    from tournaments.store import StorageError

    store = _store(db)
    try:
        try:
            t = tournament_row(store, tournament)
        except LookupError as e:
            _fail(str(e))
        out = out or Path("runs/report") / t["name"]
        try:
            summary = write_report(store, t, out, max_matches=matches)
        except OSError as e:
            _fail(f"cannot write the report to {out}: {e}")
        except StorageError as e:
            _fail(str(e))
    finally:
        store.close()
    for s in summary.skipped:
        console.print(f"[yellow]no replay[/yellow] for {s}")
    left = f"; left out: {'; '.join(summary.left_out)}" if summary.left_out else ""
    console.print(f"{summary.pages} pages, {summary.replays} match replays, {summary.matches_listed:,} of "
                  f"{summary.matches_stored:,} matches listed{left}", markup=False)
    print(f"report: {summary.index.resolve()}", flush=True)


def web(
    db: str = typer.Option(DEFAULT_DB, "--db", envvar="REFEREE_DB",
                           help="Results database path or URL (default: $REFEREE_DB, else runs/referee.sqlite)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (pages are read-only; "
                             "a public address shows every finished match's cards to anyone)."),
    port: int = typer.Option(8080, "--port", help="TCP port (0 = any free port)."),
) -> None:
    """Serve the report's pages live from the results database while
    tournaments run: the leaderboard and match list update by themselves; a
    match being played can be watched in the public view only (no hidden card
    until it is over). Ctrl-C stops it."""
    import socket

    import uvicorn

    from referee.web.app import create_app

    _store(db).close()
    app = create_app(db)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        _fail(f"cannot listen on {host}:{port}: {e.strerror or e}")
    sock.listen(128)  # connections wait in the backlog until the server runs
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"serving {db} on http://{shown}:{bound}/ (Ctrl-C to stop)", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


def write_match_replay(log_path: str | Path) -> Path | None:
    """Replay pages of one finished match next to its log
    (``<log without .jsonl>.replay/all.html``, public and seat views, the
    log and the static files). Returns the all-seeing page, or ``None`` when
    the log cannot be read."""
    import shutil

    from referee.web.replay import NotAMatchLog, read_log, view_slug, views
    from referee.web.site import replay_page, static_files

    p = Path(log_path)
    try:
        log = read_log(p)
    except (OSError, NotAMatchLog):
        return None
    out = p.with_name(p.name.removesuffix(".jsonl") + ".replay")
    (out / "static").mkdir(parents=True, exist_ok=True)
    for f in static_files():
        shutil.copyfile(f, out / "static" / f.name)
    shutil.copyfile(p, out / "log.jsonl")
    for v in views(log.players) if log.complete else ["public"]:
        (out / f"{view_slug(v)}.html").write_text(replay_page(log, v, "", t=None), encoding="utf-8")
    return out / ("all.html" if log.complete else "public.html")
