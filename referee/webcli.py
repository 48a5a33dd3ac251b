"""``referee report``, ``referee web`` and ``referee play``: see the games in a
browser, and play in one (:mod:`referee.web`).

``tournaments.*`` and ``referee.web.*`` are imported inside the commands
that use them: they load SQLAlchemy and Starlette, which would add about 250 ms to every ``referee`` start-up."""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import sys
import tempfile
import threading
import webbrowser
from pathlib import Path
from typing import Optional
from urllib.parse import quote

import typer
import uvicorn

from referee.botcommand import check_command
from referee.clikit import (CONFIG_OPT, bot_sandbox, console, fail, open_store, parse_kv, parse_tokens, reading_db,
                            secret_file_or_exit)
from referee.games import GAME_IDS, UnknownGame, game_class
from referee.words import counts_text, plural

DEFAULT_DB = "runs/referee.sqlite"
#: the port `referee web` and `referee play` listen on unless told otherwise (--port)
WEB_PORT = 8080


def report(
    tournament: Optional[str] = typer.Argument(None, help="Tournament name (default: the --config file's, else the "
                                               "latest)."),
    db: Optional[str] = typer.Option(None, "--db", help="Results database path or URL "
                                     "(default: the --config file's, else $REFEREE_DB, else runs/referee.sqlite)."),
    config: Optional[Path] = CONFIG_OPT,
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Output directory "
                                       "(default: `runs/report/<tournament>/`)."),
    matches: int = typer.Option(10_000, "--matches", min=0, help="List (and replay) the newest N matches, in "
                                "pages of 100 (0: none; each bot's page still lists its newest 100); "
                                "`referee results` exports every match."),
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

    db, cfg_name = reading_db(db, config)
    store = open_store(db, "--db PATH or --config FILE")
    try:
        try:
            t = tournament_row(store, tournament or cfg_name)
        except LookupError as e:
            fail(str(e), 1)
        out = out or Path("runs/report") / t["name"]
        try:
            summary = write_report(store, t, out, max_matches=matches)
        except OSError as e:
            fail(f"cannot write the report to {out}: {e}", 1)
        except StorageError as e:
            fail(str(e), 1)
    finally:
        store.close()
    for s in summary.skipped:
        console.print(f"[yellow]no replay[/yellow] for {s}")
    left = f"; left out: {'; '.join(summary.left_out)}" if summary.left_out else ""
    stored = summary.matches_stored
    console.print(f"{summary.pages} pages, {summary.replays} match {plural(summary.replays, 'replay')}, "
                  f"{summary.matches_listed:,} of {stored:,} {plural(stored, 'match', 'matches')} listed{left}",
                  markup=False)
    print(f"report: {summary.index.resolve()}", flush=True)


def web(
    db: Optional[str] = typer.Option(None, "--db", help="Results database path or URL "
                                     "(default: the --config file's, else $REFEREE_DB, else runs/referee.sqlite)."),
    config: Optional[Path] = CONFIG_OPT,
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (pages are read-only; "
                             "a public address shows every finished match's cards to anyone)."),
    port: int = typer.Option(WEB_PORT, "--port", help="TCP port (0 = any free port)."),
    bot: Optional[list[str]] = typer.Option(None, "--bot", "-b", help="A bot command the new-match form offers "
                                            "(/play), besides the sample bots; repeatable. The form never runs a "
                                            "command typed in a browser."),
    token_file: Optional[Path] = typer.Option(None, "--token-file", help="External bots the form offers: NAME=TOKEN "
                                              "lines; they connect by themselves to the referee (--referee-port)."),
    referee_port: int = typer.Option(0, "--referee-port", help="Port of the referee of /play's matches on "
                                     "127.0.0.1, for external bots (0 = any free port, printed)."),
    play_log_dir: Path = typer.Option(Path("runs/play"), "--play-log-dir", help="Logs of /play's matches."),
    bot_uids: str = typer.Option("auto", "--bot-uids", help="Run each launched bot under its own unprivileged "
                                 "uid: auto (when root), off (under this process's own uid: only for bots you "
                                 "trust; docs/sandbox.md), or a range such as 60000-60999."),
) -> None:
    """Serve the report's pages live from the results database while
    tournaments run: the leaderboard and match list update by themselves; a
    match being played can be watched in the public view only (no hidden card
    until it is over). /play starts matches with human seats (see `referee
    play`). Ctrl-C stops it (and every match of /play, with its bots)."""
    from referee.web.app import create_app

    db, cfg_name = reading_db(db, config)
    store = open_store(db, "--db PATH or --config FILE")
    store.close()
    hall = _hall(bot or [], token_file, referee_port, play_log_dir, bot_uids)
    sock, shown = _listen(host, port)
    page = f"; {cfg_name}: {shown}/t/{quote(cfg_name, safe='')}/" if cfg_name else ""
    print(f"serving {store.display_url} on {shown}/ (Ctrl-C to stop){page}; play: {shown}/play", flush=True)
    _serve(create_app(db, hall=hall), sock, hall)


def _hall(commands: list[str], token_file: Optional[Path], referee_port: int, log_dir: Path, bot_uids: str):
    """The :class:`referee.web.play.Hall` of the server's /play pages, its options checked (exit 2);
    its bots isolated as ``referee match`` isolates them (``bot_uids``)."""
    from referee.web.play import SAMPLES, Hall, sample_command

    for i, c in enumerate(commands):
        if (why := check_command(c)) is not None:
            fail(f"--bot #{i + 1} {c!r}: {why}", 2)
    external: list[tuple[str, str]] = []
    if token_file is not None:
        try:
            external = parse_tokens(secret_file_or_exit(token_file, "--token-file"), f"--token-file {token_file}")
        except ValueError as e:
            fail(str(e), 2)
    if referee_port:
        with socket.socket() as probe:  # say so now, not from inside the server once it runs
            try:
                probe.bind(("127.0.0.1", referee_port))
            except OSError as e:
                fail(f"--referee-port {referee_port}: cannot listen on 127.0.0.1:{referee_port}: {e.strerror or e}", 2)
    try:
        log_dir.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=log_dir).close()
    except OSError as e:
        fail(f"cannot write the match logs in {log_dir}: {e.strerror or e}", 2)
    sandbox = bot_sandbox(bot_uids, False, [*commands, *(sample_command(n) for n in SAMPLES)])
    return Hall(log_dir, commands=commands, external=external, referee_port=referee_port, sandbox=sandbox)


def _listen(host: str, port: int):
    """A listening socket on ``host:port`` (exit 2 if it cannot be bound) and its base URL."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {e.strerror or e}", 2 if port else 1)
    sock.listen(128)  # connections wait in the backlog until the server runs
    bound = sock.getsockname()[1]
    return sock, f"http://{f'[{host}]' if ':' in host else host}:{bound}"


def _serve(app, sock, hall) -> None:
    """Serve ``app`` on ``sock`` until Ctrl-C or SIGTERM (the app's lifespan stops what it started:
    every match of ``hall``, its bots reaped and their private directories removed), then print one
    line per match that was cut off. After a SIGTERM the process then dies of it, as a service manager
    expects (uvicorn raises the signal again once it has shut down)."""
    # open event streams (a seat's page) are closed after 2 s of shutdown
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    terminated: list[int] = []  # uvicorn restores this handler, then raises the SIGTERM it caught again
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: terminated.append(signum))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
        signal.signal(signal.SIGTERM, previous)
    for m in hall.cut_off:
        where = f"log (incomplete): {m.log_path}" if m.log_path.exists() else "no log (it had not started)"
        print(f"{m.spec.game} match {m.match_id}: stopped with the server; {where}", flush=True)
    if terminated:
        signal.raise_signal(signal.SIGTERM)


def _has_display() -> bool:
    """Whether a graphical browser can be opened here (macOS, Windows, or an X11/Wayland display)."""
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def play(
    game: str = typer.Argument(..., help=f"Game id: {', '.join(GAME_IDS)}."),
    bot: Optional[list[str]] = typer.Option(None, "--bot", "-b", help="Bot command of the other seats, in seat "
                                            "order (one --bot: every bot seat); default: the heuristic sample bot. "
                                            "The referee appends --referee ADDRESS (a Unix socket of the bot's "
                                            "own) and hands the bot its token on the descriptor named by "
                                            "REFEREE_TOKEN_FD."),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="Seats (default: the game's smallest "
                                          "table, or the humans and --bots given)."),
    human_seat: Optional[list[int]] = typer.Option(None, "--human-seat", help="A seat played by a person "
                                                   "(repeatable: one private link each; default: seat 0)."),
    name: str = typer.Option("human", "--name", help="The name of the (first) human seat."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help="Seed of the deal (default: random)."),
    rounds: Optional[int] = typer.Option(None, "--rounds", help="Match length in rounds."),
    param: Optional[list[str]] = typer.Option(None, "--param", help="Match parameter KEY=VALUE (repeatable)."),
    variant: Optional[list[str]] = typer.Option(None, "--variant", help="Variant flag KEY=VALUE (repeatable)."),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="The bots' per-decision clock, milliseconds."),
    bank_ms: int = typer.Option(0, "--bank-ms", help="The bots' time bank, milliseconds."),
    human_ms: int = typer.Option(60_000, "--human-ms", help="A human's per-decision clock, milliseconds."),
    human_bank_ms: int = typer.Option(0, "--human-bank-ms", help="A human's time bank, milliseconds."),
    fault_policy: str = typer.Option("default_action", "--fault-policy", help="default_action or forfeit."),
    max_faults: int = typer.Option(5, "--max-faults", help="Faults before a seat is forfeited (default_action)."),
    spectator_delay_s: int = typer.Option(0, "--spectator-delay-s", help="Spectators see the public view this "
                                          "many seconds late."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address of the web server."),
    port: int = typer.Option(WEB_PORT, "--port", help="Port of the web server (0 = any free port)."),
    token_file: Optional[Path] = typer.Option(None, "--token-file", help="External bots the form offers "
                                              "(NAME=TOKEN lines)."),
    referee_port: int = typer.Option(0, "--referee-port", help="Port of the referee on 127.0.0.1 (0 = any)."),
    log_dir: Path = typer.Option(Path("runs/play"), "--log-dir", help="Where match logs and bot output go."),
    bot_uids: str = typer.Option("auto", "--bot-uids", help="Run each launched bot under its own unprivileged "
                                 "uid: auto (when root), off (under this process's own uid: only for bots you "
                                 "trust; docs/sandbox.md), or a range such as 60000-60999."),
    open_browser: bool = typer.Option(True, "--open/--no-open", help="Open your seat's page in the browser "
                                      "(when there is a display)."),
) -> None:
    """Play GAME in the browser against bots: starts a web server with a
    referee, seats you (and any other --human-seat) against the --bot
    commands, and prints each human's private link (it opens yours). The
    match is a normal match: same rules, clocks and log as `referee match`;
    the page shows your seat's view only. /play on the same server starts
    more matches. Ctrl-C stops the server and every bot."""
    from referee.web.play import FormError, MatchRequest, SeatChoice, rounds_param
    from referee.web.playapp import create_play_app

    try:
        cls = game_class(game)
    except UnknownGame as e:
        fail(str(e), 2)
    humans = sorted(set(human_seat or [0]))
    bots = bot or []
    n = players or (len(humans) + len(bots) if len(bots) > 1 else cls.player_counts[0])
    if n not in cls.player_counts:
        fail(f"{game} is played by {counts_text(cls.player_counts)} players, not {n}"
             + ("" if players else " (give --players)"), 2)
    if any(not 0 <= s < n for s in humans):
        fail(f"--human-seat must be a seat 0..{n - 1}", 2)
    bot_seats = [s for s in range(n) if s not in humans]
    if len(bots) > 1 and len(bots) != len(bot_seats):
        fail(f"{len(bot_seats)} bot seats but {len(bots)} --bot given (give one --bot for all, or one per bot seat)",
             2)
    hall = _hall(bots, token_file, referee_port, log_dir, bot_uids)
    params = parse_kv(param, "--param")
    if rounds is not None:
        params.update(rounds_param(game, rounds, params))
    seats = []
    for s in range(n):
        if s in humans:
            seats.append(SeatChoice("human", name if s == humans[0] else f"human{s}"))
        elif bots:
            seats.append(SeatChoice("command", str(bot_seats.index(s) if len(bots) > 1 else 0)))
        else:
            seats.append(SeatChoice("sample", "heuristic"))
    req = MatchRequest(game=game, players=n, seats=seats, seed=random.SystemRandom().randrange(1, 2**31)
                       if seed is None else seed, params=params, variant=parse_kv(variant, "--variant"),
                       decision_ms=decision_ms, bank_ms=bank_ms, human_decision_ms=human_ms,
                       human_bank_ms=human_bank_ms, fault_policy=fault_policy, max_faults=max_faults,
                       spectator_delay_s=spectator_delay_s)
    try:
        hall.spec_of(req)
    except FormError as e:
        fail(str(e), 2)
    if human_ms <= 0 or human_bank_ms < 0 or spectator_delay_s < 0:
        fail("--human-ms must be > 0, --human-bank-ms and --spectator-delay-s >= 0", 2)
    sock, base = _listen(host, port)

    async def first_match(h) -> None:
        m = h.create(req)
        print(f"serving {base}/play (Ctrl-C to stop); referee on {h.referee_addr} "
              f"(logs in {log_dir})", flush=True)
        for e in m.seats:
            if e.human is not None:
                print(f"seat {e.seat} ({e.label}): {base}/play/{m.match_id}/seat{e.seat}/{e.human.key}/", flush=True)
        print(f"spectators: {base}/play/{m.match_id}/replay/public.html", flush=True)
        if open_browser and _has_display():
            url = f"{base}/play/{m.match_id}/seat{humans[0]}/{m.seats[humans[0]].human.key}/"
            # in a thread: a console browser (lynx...) would hold the server until it exits
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()

    _serve(create_play_app(hall, first_match), sock, hall)


def write_match_replay(log_path: str | Path) -> Path | None:
    """Replay pages of one finished match next to its log
    (``<log without .jsonl>.replay/all.html``, public and seat views, the
    log and the static files). Returns the all-seeing page, or ``None`` when
    the log cannot be read."""
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
