"""The ``referee`` command line (typer).

The commands of ``referee ladder`` are in :mod:`referee.laddercli`, those of
``referee report``, ``web`` and ``play`` in :mod:`referee.webcli`, ``referee
bot`` in :mod:`referee.botnew`, ``referee bench`` in :mod:`referee.benchcli`;
what they share in :mod:`referee.clikit`.

``tournaments.*`` and ``referee.web.*`` are imported inside the commands that
use them: they load SQLAlchemy and Starlette, which would add about 250 ms to
every ``referee`` start-up (``referee --help`` included)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import shlex
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table
from typer.core import TyperGroup

from referee import __version__
from referee.benchcli import bench
from referee.botcommand import check_command
from referee.botnew import bot_app
from referee.bots import Limits
from referee.clikit import (CONFIG_OPT, TOKEN_ENV_NOTE, bot_label, bot_sandbox, console, db_flag, db_from_anywhere,
                            fail, lease_held_line, open_store, os_error_text, parse_kv, parse_tokens, read_ca,
                            read_secret_file, reading_db, referee_flags, secret_file_or_exit, stored_flags, tls_or_exit,
                            token_env_note, waiting_line, why_not_running)
from referee.conformance import run as run_conformance
from referee.games import GAME_IDS, UnknownGame, game_class
from referee.initcli import init
from referee.laddercli import ladder_app
from referee.oplog import stderr_log
from referee.outcomes import MatchStatus
from referee.play import play_launched
from referee.protocol import PROTOCOL_VERSION
from referee.remote import (REFEREE_RECONNECT_S, RefereeGone, RemoteError, RemoteReferee, RemoteSeat, new_match_id,
                            outcome_of, play_and_fetch, seat_names_in_log)
from referee.runner import MatchSpec, UnfinishedLog, replay_log
from referee.sandbox import capabilities
from referee.service import DEFAULT_MAX_UNAUTHENTICATED_PER_CONNECTION, Referee, check_bounds
from referee.summary import print_summary, round_lines
from referee.webcli import DEFAULT_DB, WEB_PORT, play, report, web, write_match_replay
from referee.words import plural

#: the top-level commands in the order ``referee --help`` lists them: what a new organiser runs
#: first (init, a match, a tournament and its results), then bots, hosting, and the checking tools
COMMAND_ORDER = ("init", "match", "tournament", "leaderboard", "results", "report", "web", "play", "bot",
                 "ladder", "serve", "replay", "conformance", "bench")


class _TopGroup(TyperGroup):
    """``referee``'s commands, listed in :data:`COMMAND_ORDER` (any other after them, as registered)."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = super().list_commands(ctx)
        return [n for n in COMMAND_ORDER if n in names] + [n for n in names if n not in COMMAND_ORDER]


app = typer.Typer(
    cls=_TopGroup,
    name="referee",
    help="Referee and tournament harness for card-game bots "
    "(Dou Dizhu, Tractor, Smear, President, Back Alley).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="markdown",
)


def _version(value: bool) -> None:
    if value:
        print(f"referee {__version__} (protocol cardgames.v{PROTOCOL_VERSION})")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
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
    a game the referee does not know are skipped, never passed.
    """
    unknown = sorted(set(game or ()) - set(GAME_IDS))
    if unknown:
        fail(f"unknown game {', '.join(unknown)} for --game; games: {', '.join(GAME_IDS)}")
    try:
        report = run_conformance(paths, set(game) if game else None)
    except (FileNotFoundError, ValueError) as e:
        fail(str(e))
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


# --------------------------------------------------------------------------- match
@app.command()
def match(
    game: str = typer.Argument(..., help=f"Game id: {', '.join(GAME_IDS)}."),
    bot: Optional[list[str]] = typer.Option(None, "--bot", "-b", help="Bot command, once per seat in seat order, "
                                  "e.g. \"python sample_bots/random_bot.py\". The referee appends "
                                  "--referee ADDRESS (a Unix socket of the bot's own) and hands the bot its token "
                                  "on the descriptor named by REFEREE_TOKEN_FD. Relative "
                                  "paths (program and files) are taken from the current directory."),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="Seats (default: number of --bot)."),
    seed: int = typer.Option(1, "--seed", "-s", help="Seed of the deal RNG; same seed + same actions = same match."),
    variant: Optional[list[str]] = typer.Option(None, "--variant", help="Variant flag KEY=VALUE (repeatable)."),
    param: Optional[list[str]] = typer.Option(None, "--param", help="Match parameter KEY=VALUE, e.g. rounds=3."),
    rounds: Optional[int] = typer.Option(None, "--rounds", help="Match length: the game's rounds or max_rounds parameter."),
    decision_ms: int = typer.Option(1000, "--decision-ms", help="Per-decision clock, milliseconds."),
    bank_ms: int = typer.Option(0, "--bank-ms", help="Time bank per seat, milliseconds (charged only beyond --decision-ms)."),
    fault_policy: str = typer.Option("default_action", "--fault-policy", help="default_action or forfeit."),
    max_faults: int = typer.Option(5, "--max-faults", help="Faults before a seat is forfeited (default_action)."),
    log_dir: Path = typer.Option(Path("runs/matches"), "--log-dir", help="Where the match log and bot output go."),
    referee_addr: Optional[str] = typer.Option(None, "--referee", help="Use a running referee HOST:PORT "
                                               "(needs its admin token) instead of starting one."),
    admin_token: Optional[str] = typer.Option(None, "--admin-token", envvar="REFEREE_ADMIN_TOKEN",
                                              help="Admin token of the running referee (better: the "
                                              "REFEREE_ADMIN_TOKEN variable or --admin-token-file: a command "
                                              "line is readable by every process)."),
    admin_token_file: Optional[Path] = typer.Option(None, "--admin-token-file",
                                                    help="File holding the running referee's admin token."),
    tls_ca: Optional[Path] = typer.Option(None, "--tls-ca", help="With --referee: the referee speaks TLS; trust "
                                          "the CA in this PEM file (also passed to the bots as --tls-ca)."),
    end_grace_ms: int = typer.Option(2000, "--end-grace-ms", help="After the match, how long the bots may take to "
                                     "exit by themselves (they were sent MatchEnded and Goodbye) before SIGTERM."),
    json_out: bool = typer.Option(False, "--json", help="Print the result as JSON instead of a summary."),
    seat: Optional[list[str]] = typer.Option(None, "--seat", help="With --referee: seat the bot registered "
                                             "there as NAME (NAME=TOKEN in referee serve's --token-file or "
                                             "REFEREE_TOKENS), repeatable; these seats come first, then one per "
                                             "--bot."),
    limit: Optional[list[str]] = typer.Option(None, "--limit", help="Resource limit of every bot NAME=VALUE, as "
                                              "in a tournament file's [limits] (repeatable): cpu_seconds, memory_mb, "
                                              "processes, open_files, file_size_mb; 0 = unlimited."),
    clock: str = typer.Option("wall", "--clock", help="What a decision is charged: wall (elapsed time) or cpu "
                              "(CPU time of the bot's processes, at most 10x --decision-ms of wall time)."),
    bot_uids: str = typer.Option("auto", "--bot-uids", help="Run each bot under its own unprivileged uid: auto "
                                 "(when root; bots such a uid cannot run are refused), off (every bot under the "
                                 "referee's uid: only for bots you trust), or a range such as 60000-60999 "
                                 "(root only)."),
    no_bot_uids: bool = typer.Option(False, "--no-bot-uids", help="Same as --bot-uids off."),
    isolate_network: bool = typer.Option(False, "--isolate-network", help="Each bot in its own network namespace "
                                         "with only loopback, reaching the referee over a Unix socket (root)."),
) -> None:
    """Play one match between bot processes over gRPC and print a readable summary.

    Starts a referee on 127.0.0.1 (random port) unless --referee is given,
    launches one process per --bot, plays, prints the summary and the log
    path, and stops every process it started, also on Ctrl-C.
    """
    bot, seat = bot or [], seat or []
    if seat and not referee_addr:
        fail("--seat seats a bot connected to a running referee: give its address with --referee HOST:PORT")
    if not bot and not seat:
        fail("give one --bot per seat (or, with --referee, --seat NAME for bots connected there)")
    n = players or len(seat) + len(bot)
    for i, b in enumerate(bot):
        if (why := check_command(b)) is not None:
            fail(f"--bot #{i + 1} {b!r}: {why}")
    limits = _limits(limit)
    if len(seat) + len(bot) != n:
        given = len(seat) + len(bot)
        fail(f"--players {n} but {given} {plural(given, 'seat')} given (one --bot or --seat per seat)")
    try:
        cls = game_class(game)
    except UnknownGame as e:
        fail(str(e))
    params = parse_kv(param, "--param")
    if rounds is not None:
        key = next((k for k in ("rounds", "max_rounds") if k in cls.param_defaults), None)
        if key is None:
            fail(f"--rounds does not apply to {game}; its match parameters are: "
                 f"{', '.join(sorted(cls.param_defaults))} (use --param KEY=VALUE)")
        params[key] = rounds
    spec = MatchSpec(game=game, players=n, seed=seed,
                     seat_names=list(seat) + [bot_label(b, len(seat) + i) for i, b in enumerate(bot)],
                     variant=parse_kv(variant, "--variant"), params=params, decision_ms=decision_ms,
                     bank_ms=bank_ms, fault_policy=fault_policy, max_faults=max_faults, clock=clock)
    try:
        spec.check()
        cls(n, spec.variant, spec.params, random.Random(0))
    except ValueError as e:
        fail(str(e))
    try:  # the log directory must be writable before any bot is started
        log_dir.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=log_dir).close()
    except OSError as e:
        fail(os_error_text(e, "--log-dir: cannot write"))
    if end_grace_ms < 0:
        fail("--end-grace-ms must be >= 0")
    if tls_ca is not None and not referee_addr:
        fail("--tls-ca goes with --referee (a referee started here listens on 127.0.0.1 in plaintext)")
    if admin_token_file is not None:
        admin_token = secret_file_or_exit(admin_token_file, "--admin-token-file").strip()
    if referee_addr:
        if clock != "wall" or limit:
            fail("--clock cpu and --limit need a referee started here (not with --referee)")
        out, outcome, no_log = _match_remote(spec, seat, bot, referee_addr, admin_token, log_dir, tls_ca,
                                             end_grace_ms / 1000)
        if json_out:
            print(json.dumps(out, indent=2))
        _end_of_match(outcome, text=not json_out, no_log=no_log)  # the log was fetched from the referee
        return
    sandbox = bot_sandbox("off" if no_bot_uids else bot_uids, isolate_network, bot)
    started = time.time()
    try:
        outcome = run_until_signal(_match_local(spec, bot, log_dir, end_grace_ms / 1000, limits, sandbox))
    except Interrupted as e:
        # Ctrl-C while the bots were exiting after the match: the match is over, its log says how it ended
        outcome = _finished_outcome(spec, log_dir / f"{spec.match_id}.jsonl", started)
        if outcome is None:
            _print_interrupted(spec, log_dir)
            raise typer.Exit(128 + e.signum)
    if json_out:
        print(json.dumps(_ints(outcome.to_json()), indent=2))  # integer scores, as the text shows them
    _end_of_match(outcome, text=not json_out)


def _end_of_match(outcome, text: bool = True, no_log: str = "") -> None:
    """A match's end, local or remote: with ``text``, the summary and the replay
    pages (or, ``no_log``, why its log stayed on the referee's machine); exits
    1 unless the match is complete."""
    if text:
        print_summary(outcome)
        if no_log:
            console.print(f"the log stays on the referee's machine: {no_log}", markup=False)
        else:
            _print_replay(outcome.log_path)
    if outcome.status is not MatchStatus.COMPLETE:
        raise typer.Exit(1)


def _print_replay(log_path: str | None) -> None:
    """Write the match's replay pages next to its log and say where they are."""
    page = write_match_replay(log_path) if log_path else None
    if page is not None:
        print(f"replay: {page.resolve()}", flush=True)


def _print_report_hint(name: str, database: str) -> None:
    """Say how to see the tournament in a browser (static report or live site;
    the live site's address on `referee web`'s default port, said as such)."""
    # report and web read $REFEREE_DB too: no --db when that (or the default) is the database
    same = database == (os.environ.get("REFEREE_DB") or DEFAULT_DB)
    db, note = db_flag(None if same else database)
    out = (Path("runs/report") / name).resolve() / "index.html"
    console.print(f"report: `referee report {name}{db}` writes {out}; "
                  f"live: `referee web{db}` serves http://127.0.0.1:{WEB_PORT}/t/{name}/ on its default port "
                  f"(--port changes it){note}", markup=False)


def _ints(v):
    """JSON that went through a protobuf Struct: integral floats back to ints."""
    if isinstance(v, dict):
        return {k: _ints(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_ints(x) for x in v]
    return int(v) if isinstance(v, float) and v.is_integer() else v


class Interrupted(Exception):
    """Raised by :func:`run_until_signal` when SIGINT or SIGTERM stopped the run;
    ``signum`` is the signal's number (the exit status is 128 + signum)."""

    def __init__(self, signum: int):
        super().__init__(f"interrupted by signal {signum}")
        self.signum = signum


def run_until_signal(coro):
    """Run ``coro`` on a new event loop and return its result. The first
    SIGINT (Ctrl-C) or SIGTERM cancels it, so its cleanup runs (bots reaped,
    lease released), then :class:`Interrupted` is raised; later signals
    while the cleanup runs are ignored (the cleanup is bounded: bots get
    SIGKILL after their grace). The signal only sets a flag for the event
    loop, so it never lands inside library code the way an exception
    raised from a signal handler would."""
    got: list[int] = []

    async def main():
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def on_signal(sig: int) -> None:
            if not got:
                got.append(sig)
                task.cancel()

        sigs = (signal.SIGINT, signal.SIGTERM)
        for sig in sigs:
            loop.add_signal_handler(sig, on_signal, sig)
        try:
            return await coro
        finally:
            for sig in sigs:
                loop.remove_signal_handler(sig)

    try:
        result = asyncio.run(main())
    except asyncio.CancelledError:
        if not got:
            raise
        raise Interrupted(got[0]) from None
    if got:  # the run ended by itself while it was being stopped
        raise Interrupted(got[0])
    return result


def _limits(items: list[str] | None):
    """``--limit NAME=VALUE`` items as :class:`referee.bots.Limits` (error: exit 2)."""
    try:
        return Limits.parse(items or [])
    except ValueError as e:
        fail(str(e))


async def _match_local(spec, bots: list[str], log_dir: Path, end_grace_s: float, limits=None,
                       sandbox=None):
    log_dir.mkdir(parents=True, exist_ok=True)
    ref = Referee(log_dir)
    await ref.start("127.0.0.1", 0)
    spec.match_id = ref.new_match_id(spec.game)
    names = list(spec.seat_names)
    watch = asyncio.get_running_loop().create_task(_say_who_is_awaited(ref, names, log_dir / f"{spec.match_id}.jsonl"))
    try:
        return await play_launched(ref, spec, bots, log_dir, limits=limits, hello_names=True, end_grace_s=end_grace_s,
                                   sandbox=sandbox)
    finally:
        watch.cancel()
        await ref.stop(0.5)
        if sandbox is not None:
            sandbox.close()


async def _say_who_is_awaited(ref, names: list[str], log_path: Path, first_s: float = 3.0,
                              every_s: float = 5.0) -> None:
    """While the match has not started (no log yet), say every few seconds which
    seats' bots have not connected, by name (a silent wait looks like a hang)."""
    await asyncio.sleep(first_s)
    while not log_path.exists():
        by_name = {slot.name: tok for tok, slot in ref.tokens.items()}
        waiting = [f"seat {s} ({n})" for s, n in enumerate(names) if n in by_name and not ref.connected(by_name[n])]
        if waiting:
            console.print(f"waiting for {', '.join(waiting)} to connect", markup=False, highlight=False)
        await asyncio.sleep(every_s)


def _print_interrupted(spec, log_dir: Path, what: str = "interrupted", log_note: str = "",
                       no_log: str = "interrupted before the match started (no bot connected yet)") -> None:
    """After Ctrl-C (or, ``what``, another cut): what was played so far (from
    the log in ``log_dir``: ``<game> match <id>: <what> after N decisions``,
    the rounds' lines) and where the log is (with ``log_note`` in brackets);
    ``no_log``: what is said when there is no log."""
    log_path = log_dir / f"{spec.match_id}.jsonl"
    if not log_path.exists():
        console.print(no_log, markup=False)
        return
    lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
    decisions = sum(1 for ln in lines if '"type":"decision"' in ln)
    print(f"{spec.game} match {spec.match_id}: {what} after {decisions} {plural(decisions, 'decision')}",
          flush=True)
    for line in round_lines(spec.game, str(log_path), spec.seat_names):
        print("  " + line)
    print(f"log (incomplete{f', {log_note}' if log_note else ''}): {log_path}", flush=True)


def _finished_outcome(spec, log_path: Path, started: float):
    """The :class:`~referee.runner.MatchOutcome` of a match whose log has its
    ``result`` line (the match ended; the run was stopped afterwards, while its
    bots were exiting), else ``None``. Crash faults appended after the result
    line are included; ``started``: the run's start (``time.time()``), the
    elapsed time runs from it to the log's last write."""
    try:
        lines = [json.loads(ln) for ln in log_path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        elapsed = max(0.0, log_path.stat().st_mtime - started)
    except (OSError, ValueError):
        return None
    at = next((i for i, d in enumerate(lines) if d.get("type") == "result"), None)
    if at is None:
        return None
    result = dict(lines[at])
    result["faults"] = list(result.get("faults") or []) + [d for d in lines[at + 1:] if d.get("type") == "fault"]
    return outcome_of(spec, {"result": result}, str(log_path), elapsed)


def _match_remote(spec, seats: list[str], bots: list[str], addr: str, admin_token: Optional[str],
                  log_dir: Path, tls_ca: Optional[Path], end_grace_s: float):
    """One match on the referee at ``addr``: ``seats`` by registered name, then ``bots`` launched here
    (:func:`referee.remote.play_and_fetch`). On Ctrl-C or SIGTERM, and when the referee shuts down
    mid-match (then exit 1 with its error): what was played, as for a local match."""
    if not admin_token:
        fail("--referee needs the referee's admin token: REFEREE_ADMIN_TOKEN or --admin-token-file")
    if tls_ca is not None:
        read_ca(tls_ca)
    plan = [RemoteSeat(name=n) for n in seats] + [RemoteSeat(command=c) for c in bots]
    spec.match_id = new_match_id(spec.game)
    referee = RemoteReferee(addr, admin_token, tls_ca, end_grace_s)
    started = time.time()
    try:
        return run_until_signal(play_and_fetch(referee, spec, plan, log_dir))
    except RefereeGone as e:  # shut down mid-match: what arrived of it here, as for a local match cut short
        log = log_dir / f"{spec.match_id}.jsonl"
        spec.seat_names = seat_names_in_log(log) or spec.seat_names
        kept = f"the referee at {addr} keeps its own log of the match: {spec.match_id}.jsonl in its --log-dir"
        _print_interrupted(spec, log_dir, "cut off by the referee's shutdown", "as far as it arrived here",
                           f"the match was cut off before any of its log arrived here (if it had started, {kept})")
        if log.exists():
            print(kept, flush=True)
        fail(str(e), 1)
    except RemoteError as e:
        fail(str(e))
    except Interrupted as e:
        try:  # the call was cancelled, so the referee stopped the match: its log as far as it got
            log = run_until_signal(referee.fetch_log(spec.match_id, log_dir / f"{spec.match_id}.jsonl"))
            spec.seat_names = seat_names_in_log(log) or spec.seat_names
        except (RemoteError, OSError, Interrupted):
            pass
        outcome = _finished_outcome(spec, log_dir / f"{spec.match_id}.jsonl", started)
        if outcome is not None:  # stopped while the bots were exiting: the match is over, as locally
            _end_of_match(outcome)
            raise typer.Exit(0)
        _print_interrupted(spec, log_dir)
        raise typer.Exit(128 + e.signum)


# --------------------------------------------------------------------------- serve
#: what serve says to a secret on its command line (readable by every process in /proc/<pid>/cmdline)
_ARGV_SECRET = ("{opt} would put a secret on the command line, where every process on the machine "
                "can read it (/proc/<pid>/cmdline): {instead}")


def token_entries(token_file: Optional[Path]) -> list[tuple[str, str]]:
    """``referee serve``'s bot tokens: ``--token-file`` (if given), then
    ``REFEREE_TOKENS``; ``ValueError`` naming the file (or variable) and the line."""
    entries: list[tuple[str, str]] = []
    if token_file is not None:
        entries += parse_tokens(read_secret_file(token_file, "--token-file"), f"--token-file {token_file}")
    entries += parse_tokens(os.environ.get("REFEREE_TOKENS", ""), "REFEREE_TOKENS")
    return entries


def _file_state(path: Optional[Path]) -> tuple[int, int, int] | None:
    """What tells a changed file: (inode, size, modification time in ns); ``None`` if absent or no path."""
    try:
        st = path.stat() if path is not None else None
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns) if st is not None else None


@app.command()
def serve(
    port: int = typer.Option(50051, "--port", help="TCP port (0 = any free port)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; use 0.0.0.0 for remote bots (with TLS)."),
    token_file: Optional[Path] = typer.Option(None, "--token-file", help="Accept the external bots listed in FILE: "
                                              "one NAME=TOKEN per line (# comments). Also: REFEREE_TOKENS."),
    admin_token_file: Optional[Path] = typer.Option(None, "--admin-token-file",
                                                    help="File holding the AdminService token (RunMatch). Also: "
                                                    "REFEREE_ADMIN_TOKEN; random (printed) if neither."),
    token: Optional[list[str]] = typer.Option(None, "--token", hidden=True),
    admin_token: Optional[str] = typer.Option(None, "--admin-token", hidden=True),
    log_dir: Path = typer.Option(Path("runs/matches"), "--log-dir", help="Where match logs go."),
    log_file: Optional[Path] = typer.Option(None, "--log-file", help="Also write the operator's log (connections, "
                                            "refusals, matches) to FILE as JSON Lines."),
    tls_cert: Optional[Path] = typer.Option(None, "--tls-cert", help="PEM certificate (enables TLS)."),
    tls_key: Optional[Path] = typer.Option(None, "--tls-key", help="PEM private key of --tls-cert."),
    max_message_bytes: int = typer.Option(64 * 1024, "--max-message-bytes", help="Largest message accepted from a bot."),
    hello_timeout_s: float = typer.Option(10.0, "--hello-timeout-s", help="Seconds a new stream has to send its "
                                          "Hello."),
    max_unauthenticated: int = typer.Option(1024, "--max-unauthenticated", help="Streams without a Hello at once, "
                                            "in all (beyond: refused at once)."),
    max_unauthenticated_per_host: int = typer.Option(64, "--max-unauthenticated-per-host", help="... from one IP "
                                                     "address."),
    max_unauthenticated_per_conn: Optional[int] = typer.Option(
        None, "--max-unauthenticated-per-conn", show_default=False,
        help=f"... on one TCP connection (default: {DEFAULT_MAX_UNAUTHENTICATED_PER_CONNECTION})."),
    # its former name, which help at 80 columns cut short: still accepted
    max_unauthenticated_per_connection: Optional[int] = typer.Option(None, "--max-unauthenticated-per-connection",
                                                                     hidden=True),
    token_check_s: float = typer.Option(2.0, "--token-check-s", help="How often the token file is checked for "
                                        "changes, seconds (it is also reloaded on SIGHUP); 0: on SIGHUP only."),
) -> None:
    """Host the referee gRPC service (RefereeService for bots, AdminService for
    operators, plus gRPC health and reflection) until Ctrl-C.

    Secrets never go on the command line (every process can read it): bot
    tokens come from --token-file or REFEREE_TOKENS (NAME=TOKEN entries), the
    admin token from --admin-token-file or REFEREE_ADMIN_TOKEN. The token file
    is read again when it changes and on SIGHUP: added tokens are accepted
    and removed ones refused from then on, for new connections (a bot playing
    keeps its seat); a file that cannot be read or parsed changes nothing
    (the operator's log says why). The operator's log goes to stderr (one
    escaped line per event) and, with --log-file, to a JSON Lines file."""
    if token:
        fail(_ARGV_SECRET.format(opt="--token", instead="list NAME=TOKEN lines in a file and pass --token-file "
                                                         "FILE, or set REFEREE_TOKENS"))
    if admin_token:
        fail(_ARGV_SECRET.format(opt="--admin-token", instead="use --admin-token-file FILE or REFEREE_ADMIN_TOKEN"))
    tls = tls_or_exit(tls_cert, tls_key)
    try:
        entries = token_entries(token_file)
    except ValueError as e:
        fail(str(e))
    adm = ""
    if admin_token_file is not None:
        adm = secret_file_or_exit(admin_token_file, "--admin-token-file").strip()
        if not adm:
            fail(f"--admin-token-file {admin_token_file}: the file is empty")
    adm = adm or os.environ.get("REFEREE_ADMIN_TOKEN", "").strip()
    shown = "" if adm else "; admin token: "
    adm = adm or secrets.token_hex(16)

    per_conn_opt = "--max-unauthenticated-per-conn"  # the option given, named in its error
    if max_unauthenticated_per_connection is not None:
        if max_unauthenticated_per_conn is not None:
            fail("--max-unauthenticated-per-connection is the former name of --max-unauthenticated-per-conn: "
                 "give one of them")
        per_conn_opt = "--max-unauthenticated-per-connection"
        max_unauthenticated_per_conn = max_unauthenticated_per_connection
    if max_unauthenticated_per_conn is None:
        max_unauthenticated_per_conn = DEFAULT_MAX_UNAUTHENTICATED_PER_CONNECTION
    limits = dict(hello_timeout_s=hello_timeout_s, max_unauthenticated=max_unauthenticated,
                  max_unauthenticated_per_host=max_unauthenticated_per_host,
                  max_unauthenticated_per_connection=max_unauthenticated_per_conn)
    for name, value in limits.items():  # checked before anything is bound; named as the options are
        try:
            check_bounds(**{name: value})
        except ValueError as e:
            opt = per_conn_opt if name == "max_unauthenticated_per_connection" else f"--{name.replace('_', '-')}"
            fail(f"{opt}{str(e)[len(name):]}")

    async def main() -> None:
        ref = Referee(log_dir, admin_token=adm, max_message_bytes=max_message_bytes, oplog=stderr_log(log_file),
                      **limits)
        ref.set_tokens(entries)
        try:
            bound = await ref.start(host, port, tls)
        except OSError as e:
            fail(f"cannot listen on {host}:{port}: {e}")
        print(f"referee listening on {host}:{bound} ({'TLS' if tls else 'plaintext'}); "
              f"{len(entries)} {plural(len(entries), 'bot token')}{shown}{adm if shown else ''}", flush=True)
        print(f"sandbox of launched bots: {capabilities().describe()}", flush=True)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        source = str(token_file) if token_file is not None else "REFEREE_TOKENS"
        seen = _file_state(token_file)

        def reload() -> None:
            nonlocal seen
            seen = _file_state(token_file)
            try:
                new = token_entries(token_file)
            except ValueError as e:
                ref.oplog.emit("tokens", source=source, error=f"{e}; the tokens in force stay")
                return
            added, removed = ref.set_tokens(new)
            ref.oplog.emit("tokens", source=source, tokens=len({t for _, t in new}), added=added, removed=removed)

        loop.add_signal_handler(signal.SIGHUP, reload)

        async def watch() -> None:  # the token file changed: read it again
            while token_file is not None and token_check_s > 0:
                await asyncio.sleep(token_check_s)
                if _file_state(token_file) != seen:
                    reload()

        watcher = loop.create_task(watch())
        await stop.wait()
        watcher.cancel()
        await ref.stop(1.0)

    asyncio.run(main())


# --------------------------------------------------------------------------- replay
@app.command()
def replay(log: Path = typer.Argument(..., help="A match log (.jsonl) written by the referee.")) -> None:
    """Re-run a match from its log (seed + applied actions) and check that
    every event is reproduced exactly; prints the result. A match that did not
    finish (interrupted, aborted) is reproduced as far as its log goes and
    said so (exit 0); exit 1 when the replay differs from the log."""
    try:
        spec, events, result = replay_log(log)
    except json.JSONDecodeError:
        fail(f"{log}: not a match log (expected JSON Lines written by the referee)", 1)
    except OSError as e:
        fail(os_error_text(e, "cannot read"), 1)
    except UnfinishedLog as e:  # an unfinished match, reproduced as far as it went: not an error
        print(str(e), flush=True)
        return
    except (ValueError, KeyError) as e:
        fail(str(e), 1)
    print(f"replayed {len(events)} events of {spec.game} match {spec.match_id}: identical to the log")
    logged = next((d for d in map(json.loads, reversed(log.read_text().splitlines())) if d.get("type") == "result"),
                  None)
    if logged is not None and logged.get("scores") is not None and logged["scores"] != result.scores:
        fail(f"{log}: the logged scores {logged['scores']} differ from the replayed {result.scores}", 1)
    out = {"scores": _ints(result.scores), "ranks": result.ranks}  # whole points as integers, as `match` prints
    if logged is not None and logged.get("forfeited"):
        # forfeits are the runner's decision, not the engine's: take the ranks from the log
        out.update(ranks=logged["ranks"], forfeited=logged["forfeited"])
    print(json.dumps(out))


# --------------------------------------------------------------------------- tournaments
tournament_app = typer.Typer(help="Run tournaments and inspect them.", no_args_is_help=True, rich_markup_mode="markdown")
app.add_typer(tournament_app, name="tournament")


def _remote_for_tournament(spec, addr: Optional[str], admin_token: Optional[str], tls_ca: Optional[Path] = None):
    """The RemoteReferee of ``tournament run --referee`` (None without it); exits on a bad combination."""
    if addr is None:
        if tls_ca is not None:
            fail("--tls-ca goes with --referee (the trusted CA of a TLS referee)")
        return None
    if tls_ca is not None:
        read_ca(tls_ca)
    if not admin_token:
        fail("--referee needs the referee's admin token: REFEREE_ADMIN_TOKEN or --admin-token-file")
    persistent = [b.name for b in spec.bots if b.persistent]
    if persistent:
        fail(f"--referee: persistent bots ({', '.join(persistent)}) are not supported on a remote referee; "
             "connect them to it and declare them external = true")
    return RemoteReferee(addr, admin_token, tls_ca, end_grace_s=spec.end_grace_ms / 1000)


def _resume_command(file: Path, db: Optional[str], referee_addr: Optional[str], tls_ca: Optional[Path],
                    admin_token_file: Optional[Path], token_env: bool = False) -> tuple[str, str]:
    """The command that continues this run (``--resume``), with the options it
    needs again (the admin token's file, never the token), and the notes to
    print after it: for a masked password, and ``token_env``, the run had its
    admin token in ``REFEREE_ADMIN_TOKEN`` (``""`` if none)."""
    flag, note = db_flag(db)
    remote = referee_flags(referee_addr, tls_ca, admin_token_file=admin_token_file)
    return (f"referee tournament run {shlex.quote(str(file))}{remote} --resume{flag}",
            note + (TOKEN_ENV_NOTE if token_env else ""))


#: the --referee commands' admin token: hidden, from REFEREE_ADMIN_TOKEN, or read from --admin-token-file
_ADMIN_TOKEN_OPT = typer.Option(None, "--admin-token", envvar="REFEREE_ADMIN_TOKEN", hidden=True)
_ADMIN_TOKEN_FILE_OPT = typer.Option(None, "--admin-token-file",
                                     help="File holding the running referee's admin token (--referee).")
#: the database `tournament run` (and `check`, reading it) uses
_RUN_DB_OPT = typer.Option(None, "--db", help="Results database path or URL (overrides the file; "
                           "default: the file's, else $REFEREE_DB, else runs/referee.sqlite).")


@tournament_app.command("run")
def tournament_run(
    file: Path = typer.Argument(..., help="Tournament file (TOML), e.g. tournaments/examples/doudizhu.toml."),
    resume: bool = typer.Option(False, "--resume", help="Finish a tournament that was interrupted "
                                "(finished matches are kept, never replayed)."),
    fresh: bool = typer.Option(False, "--fresh", help="Delete the stored tournament of this name and start over."),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", "-j", help="Matches at once (overrides the file)."),
    db: Optional[str] = _RUN_DB_OPT,
    executor: Optional[str] = typer.Option(None, "--executor", help="Where matches run: local (this machine, "
                                           "the default) or dask (a Dask cluster; overrides [execution])."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address, e.g. "
                                            "tcp://HOST:8786 (implies --executor dask)."),
    fmt: str = typer.Option("table", "--format", "-f", help="Leaderboard format: table, json or csv."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    referee_addr: Optional[str] = typer.Option(None, "--referee", help="Run every match on a running referee "
                                               "HOST:PORT (referee serve; its admin token in REFEREE_ADMIN_TOKEN "
                                               "or --admin-token-file): external bots are the ones connected "
                                               "there (seated by their token, or without one by their name), "
                                               "command bots are launched here."),
    admin_token: Optional[str] = _ADMIN_TOKEN_OPT,
    admin_token_file: Optional[Path] = _ADMIN_TOKEN_FILE_OPT,
    tls_ca: Optional[Path] = typer.Option(None, "--tls-ca", help="With --referee: the referee speaks TLS; trust "
                                          "the CA in this PEM file (also passed to the bots launched here)."),
    reconnect: float = typer.Option(REFEREE_RECONNECT_S, "--reconnect", metavar="SECONDS",
                                    help="With --referee: when the referee goes away (stopped, restarted), wait "
                                    "this long for it to come back and play on (the matches it was playing are "
                                    "played again); 0: stop at once (finish later with --resume)."),
) -> None:
    """Run a tournament of bots over gRPC and print its leaderboard (ranked by the batch-fit Elo).

    Validates the whole file first, and the files its include names (every
    problem with its file, key and line); with --referee, also that the
    referee can seat every external bot, by its token or (without one) by
    its name (every one it cannot named).
    Results go to the database as each match ends, so a killed run loses at
    most the matches in flight: finish it with --resume. While it runs the
    tournament holds a lease in the database: a second run of it is refused.
    """
    from tournaments import spec as tspec
    from tournaments.executor import ExecutorError
    from tournaments.report import FORMATS, render
    from tournaments.adaptive import AdaptiveSchedule
    from tournaments.run import TournamentError, run_tournament
    from tournaments.store import StorageError, mask_url

    if fmt not in FORMATS:  # checked before any match is played
        fail(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    spec = _load_spec(file, remote=referee_addr is not None)
    if concurrency:
        spec.concurrency = concurrency
    if db:
        spec.database = db
    # stored, for the command `tournament status` gives (the admin token's file, never the token)
    spec.referee = referee_addr or ""
    spec.tls_ca = str(tls_ca.resolve()) if referee_addr and tls_ca is not None else ""
    spec.admin_token_file = str(admin_token_file.resolve()) if referee_addr and admin_token_file is not None else ""
    spec.admin_token_env = bool(referee_addr and admin_token_file is None and admin_token
                                and admin_token == os.environ.get("REFEREE_ADMIN_TOKEN"))
    if executor is not None:
        if executor not in tspec.EXECUTORS:
            fail(f"--executor must be one of {', '.join(tspec.EXECUTORS)}, got {executor!r}")
        spec.executor = executor
    if scheduler:
        if not tspec.is_scheduler_address(scheduler):
            fail(f"--scheduler must be a scheduler address like tcp://HOST:8786, got {scheduler!r}")
        spec.scheduler = scheduler
        if executor is None:
            spec.executor = "dask"
    if spec.executor == "dask" and not spec.scheduler:
        fail("--executor dask needs --scheduler tcp://HOST:8786 (or scheduler = \"...\" in [execution])")
    if spec.executor == "dask" and any(b.external for b in spec.bots):
        fail("external bots connect to this machine's referee: they cannot play on a Dask cluster")
    if spec.executor == "dask" and referee_addr:
        fail("--referee plays every match on that referee: it excludes the Dask executor")
    if admin_token_file is not None:
        admin_token = secret_file_or_exit(admin_token_file, "--admin-token-file").strip()
    if reconnect < 0:
        fail(f"--reconnect SECONDS must be 0 (stop at once) or more, got {reconnect:g}")
    remote = _remote_for_tournament(spec, referee_addr, admin_token, tls_ca)
    if resume and fresh:
        fail("--resume and --fresh exclude each other")
    # before any progress bar is drawn: a tournament another driver runs, or one that exists
    from tournaments.run import existing_problem, resume_note
    from tournaments.store import Store, creation_problem, sqlite_path

    resuming = None  # the line that says what a --resume finds (printed under the plan line)
    try:
        st = Store(spec.database, create=False)  # created by the run only: a refused run leaves no database
        try:
            problem = existing_problem(spec, st, resume, fresh)
            if resume and problem is None:
                resuming = resume_note(spec, st)
        finally:
            st.close()
    except StorageError as e:  # a missing database: the run creates it; an unusable one: the run reports it
        problem = None
        if str(e).startswith("no results database") and (why := creation_problem(sqlite_path(spec.database))):
            fail(f"cannot create the results database {mask_url(spec.database)}: {why}", 1)
    if problem:
        fail(problem)
    if resume and resuming is None:
        console.print(f"note: nothing of tournament {spec.name!r} is stored in {mask_url(spec.database)} yet: "
                      "--resume starts it", markup=False)
    if remote is not None:  # every external bot's token or name, before the first match (a new run or --resume)
        from tournaments.executor import check_external_tokens, unchecked_note

        try:
            checked = run_until_signal(check_external_tokens(remote, spec))
        except RemoteError as e:
            fail(str(e))
        except Interrupted as e:
            raise typer.Exit(128 + e.signum)
        if not checked:
            console.print(f"note: {unchecked_note(referee_addr, spec, running=True)}", markup=False)
    sandbox = None  # on a Dask cluster each worker makes its own; a remote referee has its own
    if spec.executor == "local" and remote is None:
        sandbox = bot_sandbox(spec.bot_uids, spec.isolate_network, [b.command for b in spec.bots if not b.external],
                              Path(spec.cwd), tspec.command_labels(spec.bots))
    schedule = AdaptiveSchedule(spec)
    total = len(schedule.matches)
    plan = schedule.plan()
    where = (f"on the Dask cluster at {spec.scheduler}" if spec.executor == "dask"
             else f"on the referee at {referee_addr}" if remote is not None
             else f"concurrency {spec.concurrency}")
    console.print(f"tournament [bold]{escape(spec.name)}[/bold]: {spec.game}, {len(spec.bots)} bots, "
                  f"{spec.players} seats, {plan}, {escape(where)}; "
                  f"results in {escape(mask_url(spec.database))}")
    if resuming is not None:
        console.print(resuming, markup=False)
    if sandbox is not None:
        console.print(f"sandbox: {sandbox.describe()}", markup=False)
    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("ETA"),
                   TimeRemainingColumn(), TimeElapsedColumn(), TextColumn("faults: {task.fields[faults]}"),
                   console=console, disable=quiet, transient=False)
    task = bar.add_task(spec.name, total=total, faults=0)
    if spec.executor == "dask" and remote is None:
        console.print(f"connecting to the Dask scheduler at {escape(spec.scheduler)} (and waiting up to 60 s "
                      "for a worker) ...")

    def on_progress(p) -> None:  # the bar appears once the run has started (nothing refused it)
        if not bar.live.is_started:
            bar.start()
        bar.update(task, completed=p.done, total=p.total, faults=p.faults)

    def notify(line: str) -> None:  # the remote referee went away, came back
        console.print(f"[yellow]note[/yellow]: {escape(line)}")

    try:
        try:  # SIGTERM stops like Ctrl-C: bots reaped, lease released
            res = run_until_signal(run_tournament(spec, resume=resume, fresh=fresh, on_progress=on_progress,
                                                  remote=remote, sandbox=sandbox, schedule=schedule,
                                                  reconnect_s=reconnect, notify=notify))
        finally:
            bar.stop()
    except RefereeGone as e:
        command, note = _resume_command(file, db, referee_addr, tls_ca, admin_token_file,
                                        spec.admin_token_env)
        fail(f"{e}; the finished matches are saved and the stopped ones will be played again: once it is back, "
             f"continue with `{command}`{note}", 1)
    except (TournamentError, RemoteError, StorageError, ExecutorError) as e:
        fail(str(e), 1 if isinstance(e, (StorageError, ExecutorError)) else 2)
    except Interrupted as e:
        command, note = _resume_command(file, db, referee_addr, tls_ca, admin_token_file,
                                        spec.admin_token_env)
        console.print(f"[yellow]interrupted[/yellow]: finished matches are saved; continue with "
                      f"`{escape(command)}`{note}")
        raise typer.Exit(128 + e.signum)
    out = render(res.board, fmt, title=f"{res.name} — {res.progress.done}/{res.progress.total} matches",
                 confidence=spec.confidence)
    if out is not None:
        print(out, end="" if out.endswith("\n") else "\n")
    if fmt == "table":
        from tournaments.details import summary_lines

        for line in summary_lines(res.summaries):
            print(line)
    if res.stop is not None:
        console.print(f"stopped: {res.stop.text}")
    played = res.progress.done - res.progress.skipped
    console.print(f"{played} match{'' if played == 1 else 'es'} played in {res.elapsed_s:.1f} s"
                  f"{f', {res.progress.skipped} already done' if res.progress.skipped else ''}; "
                  f"aborted: {res.progress.aborted}{f', void: {res.progress.void}' if res.progress.void else ''}; logs: {escape(res.log_dir)}; results: {escape(res.store_url)}")
    _print_report_hint(res.name, spec.database)


@tournament_app.command("check")
def tournament_check(
    file: Path = typer.Argument(..., help="Tournament file (TOML), e.g. tournaments/examples/doudizhu.toml."),
    referee_addr: Optional[str] = typer.Option(None, "--referee", help="The running referee HOST:PORT the "
                                               "tournament will run on (run --referee): also ask it whether it "
                                               "can seat every external bot, by token or name (its admin token in "
                                               "REFEREE_ADMIN_TOKEN or --admin-token-file)."),
    admin_token: Optional[str] = _ADMIN_TOKEN_OPT,
    admin_token_file: Optional[Path] = _ADMIN_TOKEN_FILE_OPT,
    tls_ca: Optional[Path] = typer.Option(None, "--tls-ca", help="With --referee: the referee speaks TLS; trust "
                                          "the CA in this PEM file."),
    db: Optional[str] = _RUN_DB_OPT,
) -> None:
    """Check a tournament file without playing anything: exit 0 and its plan, or 2 and every problem.

    Validates the file and the files its include names exactly as
    `tournament run` does (every problem with its file, key and line, the
    bot commands, the bots' sandbox), then prints the plan: bots, seats,
    schedule and matches. With --referee, also asks that referee whether
    it can seat every external bot (by its token, or by its name). Then
    looks in the results database `run` would use (never creating it): the
    tournament is not stored yet (an error when `run` could not create
    that database, and why, also after the file's or the bots' problems
    when there are some); or stored, how much of it is played, that
    `run` needs --resume or --fresh, and what changed in the file that
    --resume would refuse; or running now, and who holds its lease. Never
    plays, stores or starts anything else.
    """

    spec: Any = None
    try:  # a problem found here is followed by the database's when `run` could not create that
        spec = _load_spec(file, remote=referee_addr is not None)
        plan, note = _checked_plan(spec, referee_addr, admin_token, admin_token_file, tls_ca)
    except typer.Exit as e:
        database = db or (spec.database if spec is not None else None)
        if e.exit_code == 2 and database and (problem := _uncreatable_db(database)):
            console.print(f"[red]error:[/red] {escape(problem)}")
        raise
    stored = _stored_line(spec, db or spec.database)
    print(f"{spec.name}: {spec.game}, {len(spec.bots)} {plural(len(spec.bots), 'bot')}, {spec.players} seats, "
          f"{plan}; no problem found in {file}{note}")
    print(stored)


def _load_spec(file: Path, remote: bool) -> Any:
    """The tournament file ``file`` loaded (:func:`tournaments.spec.load`);
    exits (2) with one line when it is missing or has problems."""
    from tournaments import spec as tspec

    try:
        return tspec.load(file, remote=remote)
    except FileNotFoundError:
        fail(f"no such tournament file: {file}")
    except tspec.SpecError as e:
        fail(str(e))


def _checked_plan(spec: Any, referee_addr: Optional[str], admin_token: Optional[str],
                  admin_token_file: Optional[Path], tls_ca: Optional[Path]) -> tuple[str, str]:
    """`tournament check`'s checks of the loaded ``spec`` (a
    :class:`tournaments.spec.TournamentSpec`) besides its database: the
    executor, the referee's seating of the external bots (with
    ``referee_addr``), the bots' sandbox. Returns the plan's line and the
    note on the external bots (``""`` or ``"; the referee at ..."``); exits
    (2) with the problem found."""
    from tournaments import spec as tspec
    from tournaments.adaptive import AdaptiveSchedule

    if spec.executor == "dask" and referee_addr:
        fail("--referee plays every match on that referee: it excludes the Dask executor of [execution]")
    if admin_token_file is not None:
        admin_token = secret_file_or_exit(admin_token_file, "--admin-token-file").strip()
    remote = _remote_for_tournament(spec, referee_addr, admin_token, tls_ca)
    note = ""
    if remote is not None:
        from tournaments.executor import check_external_tokens, unchecked_note

        try:
            checked = run_until_signal(check_external_tokens(remote, spec, before_run=False))
        except RemoteError as e:
            fail(str(e))
        except Interrupted as e:
            raise typer.Exit(128 + e.signum)
        externals = sum(b.external for b in spec.bots)
        known = ("knows every external bot's token" if not any(b.by_name for b in spec.bots)
                 else "can seat every external bot (its token or its name is registered there)")
        note = (f"; the referee at {referee_addr} {known}" if checked and externals
                else f"; {unchecked_note(referee_addr, spec)}" if externals else "")
    if spec.executor == "local" and remote is None:
        sandbox = bot_sandbox(spec.bot_uids, spec.isolate_network, [b.command for b in spec.bots if not b.external],
                              Path(spec.cwd), tspec.command_labels(spec.bots))
        sandbox.close()
    return AdaptiveSchedule(spec).plan(), note


def _stored_line(spec: Any, db: str) -> str:
    """What `tournament check` says of the tournament of ``spec``'s name (a
    :class:`tournaments.spec.TournamentSpec`) in the
    results database ``db`` (path or URL, opened to read; a missing SQLite
    file is not created): ``not stored yet in DB`` (with ``; `run` needs
    --fresh (or --resume): ...`` when the log directory holds match logs of
    that name, :func:`tournaments.run.holds_match_logs`); ``running now in DB:
    lease held by pid P on this host (heartbeat S s ago); ...``; ``stored in DB:
    N of M matches played; `run` needs --resume (or --fresh to start
    over)``, with ``; --resume would refuse: ...`` (what changed in the
    file) when it would. Exits (2) when the database cannot be opened or read,
    or is missing and `run` could not create it (e.g. a path below a regular
    file: :func:`tournaments.store.creation_problem`)."""
    from tournaments.run import holds_match_logs, ladder_problem, resume_refusal
    from tournaments.store import StorageError, Store, mask_url

    shown = mask_url(db)

    def logs() -> str:  # for a tournament the database does not hold
        return (f"; `run` needs --fresh (or --resume): {Path(spec.log_dir) / spec.name} holds match logs of a "
                f"tournament {spec.name!r} that it would write over" if holds_match_logs(spec) else "")
    try:
        store = Store(db, create=False)
    except StorageError as e:
        if str(e).startswith("no results database"):
            if problem := _uncreatable_db(db):
                fail(problem)
            return f"not stored yet in {shown} (no results database there yet){logs()}"
        fail(f"cannot read the database `run` would use: {e}")
    except Exception as e:  # a database the store cannot open: say so, no traceback
        fail(f"cannot open the results database {shown}: {e}")
    try:
        t = store.tournament(spec.name)
        if t is None:
            return f"not stored yet in {shown}{logs()}"
        problem = ladder_problem(spec, t, f"{spec.name!r} in {shown}")
        if problem:
            fail(problem)
        state, lease = store.run_state(t)
        done = len(store.finished_indices(int(t["id"])))
    except StorageError as e:
        fail(f"cannot read the database `run` would use: {e}")
    finally:
        store.close()
    if lease is not None:
        return f"running now in {shown}: {lease_held_line(lease).strip()}; `run` is refused until it ends"
    total = int(t["total_matches"])
    if state == "complete":
        line = (f"stored in {shown}: all {total} {plural(total, 'match', 'matches')} played (complete); "
                "`run` needs --fresh to play it again (--resume plays nothing more)")
    else:
        line = (f"stored in {shown}: {done} of {total} {plural(total, 'match', 'matches')} played; "
                "`run` needs --resume (or --fresh to start over)")
    refusal = resume_refusal(spec, t)
    return line + (f"; --resume would refuse: {refusal}" if refusal else "")


def _uncreatable_db(db: str) -> str | None:
    """``"`run` could not create the results database DB: WHY"`` when ``db``
    (path or URL) is a missing SQLite file `run` could not create
    (:func:`tournaments.store.creation_problem`), found without creating
    anything; ``None`` otherwise (it exists, it is not a file-backed SQLite
    database, or it looks creatable)."""
    from tournaments.store import creation_problem, mask_url, sqlite_path

    try:
        file = sqlite_path(db)
        if file is None or file.exists():
            return None
    except Exception:  # not a database path or URL, or a path that cannot be looked at: the store says why
        return None
    problem = creation_problem(file)
    return f"`run` could not create the results database {mask_url(db)}: {problem}" if problem else None


def _started_from(config: Optional[Path], stored: dict[str, Any]) -> tuple[str, str, str, str]:
    """How a printed command names the file a stored tournament was started
    from, and the referee it last ran on: ``(cd, file, remote, note)``,
    shell-quoted. ``cd``: ``"cd DIR && "`` when it was started from another
    directory that still exists (its bots' relative paths are taken from
    there), else ``""``; ``file``: the ``--config`` file, else the stored
    path, else ``FILE`` with a ``note`` saying which file that is;
    ``remote``: the options its last run gave (``clikit.stored_flags``:
    ``--referee``, ``--tls-ca``, the admin token's file; ``""`` for none).
    Stored paths are shown relative to the directory the command runs in
    when under it."""
    here = os.getcwd()
    cd, file, note = "", "FILE", ""
    if config is not None:
        file = shlex.quote(str(config))
    elif stored.get("file"):
        there = stored.get("cwd") or here
        cd = f"cd {shlex.quote(there)} && " if there != here and os.path.isdir(there) else ""
        here = there if cd else here
    else:
        note = (f" (FILE: the tournament file of {stored.get('name', 'it')!r}; a results database "
                "written before this version does not keep its path)")

    def shown(path: str) -> str:
        rel = os.path.relpath(path, here)
        return shlex.quote(path if rel.startswith("..") else rel)

    if config is None and stored.get("file"):
        file = shown(stored["file"])
    return cd, file, stored_flags(stored, here), note


#: ``leaderboard --details``: the pair tables cover this many of the best bots by default
DETAILS_TOP = 20
#: bots whose faults ``tournament status`` lists (the leaderboard has every bot)
STATUS_FAULT_LINES = 20


@tournament_app.command("status")
def tournament_status(
    name: Optional[str] = typer.Argument(None, help="Tournament name (default: the --config file's, else the latest)."),
    db: Optional[str] = typer.Option(None, "--db", help="Results database path or URL "
                                     "(default: the --config file's, else $REFEREE_DB, else runs/referee.sqlite)."),
    config: Optional[Path] = CONFIG_OPT,
) -> None:
    """Show a tournament's progress: matches done/total, state (running,
    interrupted or complete, and who holds the lease), faults. A ladder's
    row shows the matches it finished, its state (running, interrupted or
    stopped) and the `referee ladder status` command that lists its entrants."""
    from tournaments.report import tournament_row
    from tournaments.store import StorageError

    # the database a printed follow-up command must name: the --config file names its own
    given_db = db or (os.environ.get("REFEREE_DB") if config is None else None)
    db, cfg_name = reading_db(db, config)
    store = open_store(db, "--db PATH or --config FILE")
    name = name or cfg_name
    try:
        try:
            t = tournament_row(store, name)
        except LookupError as e:
            fail(str(e), 1)
        counts = store.status_counts(t["id"])
        fc = store.fault_counts(t["id"])
        state, lease = store.run_state(t)
        stale = store.lease(t["id"]) if state == "interrupted" else None
        waiting = store.wait(t["id"], lease)
    except StorageError as e:
        fail(str(e), 1)
    aborted, void = counts.get(MatchStatus.ABORTED, 0), counts.get(MatchStatus.VOID, 0)
    stored = json.loads(t["spec_json"])
    is_ladder = stored.get("schedule") == "ladder"
    cd, file, remote, file_note = _started_from(config, stored)
    # after `cd DIR && ` a relative --db would name another file
    flag, note = db_flag(db_from_anywhere(given_db) if cd else given_db)
    done = sum(counts.values())
    # a ladder has no total to reach: the matches it finished so far
    progress = (f"{t['game']} ladder, {done} {plural(done, 'match', 'matches')} finished" if is_ladder
                else f"{t['game']}, {done}/{t['total_matches']} matches done")
    print(f"{t['name']}: {progress}, status {state}, aborted {aborted}" + (f", void {void}" if void else ""))
    if lease is not None:
        print(lease_held_line(lease))
        if waiting is not None:
            print(waiting_line(waiting))
    elif state in ("interrupted", "stopped"):
        note_how = note + token_env_note(stored) + file_note
        how = (f"continue it with `{cd}referee ladder {file}{remote}{flag}`{note_how}"
               if is_ladder or state == "stopped"
               else f"finish it with `{cd}referee tournament run {file}{remote} --resume{flag}`{note_how}")
        if state == "interrupted":
            print(f"  not running: {why_not_running(stale, 'driver')}; {how}")
        else:
            print(f"  not running (stopped); {how}")
    if is_ladder:
        print(f"  a ladder: its entrants and their states with `{cd}referee ladder status --config {file}{flag}`"
              f"{note}{file_note}")
    faulty = sorted(fc.items())
    for bot, kinds in faulty[:STATUS_FAULT_LINES]:
        print(f"  faults of {bot}: " + ", ".join(f"{k}×{v}" for k, v in sorted(kinds.items())))
    if len(faulty) > STATUS_FAULT_LINES:
        print(f"  ... and {len(faulty) - STATUS_FAULT_LINES} more bots with faults (`referee leaderboard` lists them)")


@app.command()
def leaderboard(
    tournament: Optional[str] = typer.Option(None, "--tournament", "-t", help="Tournament name "
                                             "(default: the --config file's, else the latest)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table, json or csv."),
    db: Optional[str] = typer.Option(None, "--db", help="Results database path or URL "
                                     "(default: the --config file's, else $REFEREE_DB, else runs/referee.sqlite)."),
    config: Optional[Path] = CONFIG_OPT,
    show_details: bool = typer.Option(False, "--details", help="Also per-seat and per-role summaries, head-to-head, "
                                      "per-seat and per-role tables and (duplicate schedules) per-deal paired "
                                      "tables (JSON: a 'details' key)."),
    top: int = typer.Option(DETAILS_TOP, "--top", min=0, help="--details: the pair tables cover the best TOP bots "
                            "of the board (0: every bot)."),
    confidence: str = typer.Option("sandwich", "--confidence", help="How intervals and P>next are computed: "
                                   "sandwich (cluster-robust covariance, the default) or bootstrap (1,000 refits, "
                                   "small tournaments only)."),
) -> None:
    """Print a tournament's leaderboard: batch-fit rating with its 95% interval,
    the probability each bot is really better than the next, TrueSkill, faults,
    and the mean score and win rate of each seat and role."""
    from tournaments.batch import METHODS, TooLarge
    from tournaments.details import store_details, store_summaries, summary_lines
    from tournaments.report import FORMATS, board_from_store, render
    from tournaments.store import StorageError

    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}")
    if confidence not in METHODS:
        fail(f"--confidence must be one of {', '.join(METHODS)}, got {confidence!r}")
    if show_details and fmt == "csv":
        fail("--details is shown as a table or JSON, not CSV")
    db, cfg_name = reading_db(db, config)
    store = open_store(db, "--db PATH or --config FILE")
    try:
        t, board = board_from_store(store, tournament or cfg_name, confidence)
        state, _ = store.run_state(t)
        spec = json.loads(t["spec_json"])
        if show_details:
            extra = store_details(store, t, spec, [r.bot for r in board[:top]] if top else None)
        else:
            extra = store_summaries(store, t, spec) if fmt == "table" else None
    except LookupError as e:
        fail(str(e), 1)
    except TooLarge as e:
        fail(str(e), 1)
    except StorageError as e:
        fail(str(e), 1)
    out = render(board, fmt, title=f"{t['name']} ({t['game']}, {state})",
                 confidence=spec.get("confidence", 0.95), details=extra if show_details else None)
    if out is not None:
        print(out, end="" if out.endswith("\n") else "\n")
    if fmt == "table" and not show_details and extra is not None:
        for line in summary_lines(extra):
            print(line)


@tournament_app.command("list")
def tournament_list(
    db: Optional[str] = typer.Option(None, "--db", help="Results database path or URL "
                                     "(default: $REFEREE_DB, else runs/referee.sqlite)."),
    fmt: str = typer.Option("table", "--format", "-f", help="table or json."),
) -> None:
    """List the tournaments in a results database: name, game, status (running,
    interrupted or complete), matches done/total, start time."""
    from tournaments.report import table_console
    from tournaments.results import tournament_list as listing
    from tournaments.store import StorageError

    if fmt not in ("table", "json"):
        fail("--format must be table or json")
    db, _ = reading_db(db, None)
    store = open_store(db, "--db PATH or --config FILE")
    try:
        rows = listing(store)
    except StorageError as e:
        fail(str(e), 1)
    if fmt == "json":
        print(json.dumps(rows, indent=2))
        return
    if not rows:
        print(f"no tournaments in {store.display_url}")
        return
    t = Table("name", "game", "status", "matches", "started")
    for r in rows:
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["created_at"])) if r["created_at"] else "-"
        t.add_row(r["name"], r["game"], r["status"], f"{r['matches']}/{r['total']}", started)
    table_console().print(t)


class _ResultsGroup(TyperGroup):
    """``referee results [NAME] ...`` means ``referee results export [NAME] ...``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["export", *args]
        return super().parse_args(ctx, args)


results_app = typer.Typer(cls=_ResultsGroup, rich_markup_mode="markdown",
                          help="Export a tournament's per-match results (`referee results [NAME]`, the default), "
                               "or import results from a JSON Lines file (`referee results import FILE ...`).")
app.add_typer(results_app, name="results")


@results_app.command("export")
def results_export(
    tournament: Optional[str] = typer.Argument(None, help="Tournament name (default: the latest)."),
    fmt: str = typer.Option("csv", "--format", "-f", help="csv, json or jsonl (one match per line, with what "
                            "`referee results import` needs to rebuild every total)."),
    db: Optional[str] = typer.Option(None, "--db", help="Results database path or URL "
                                     "(default: the --config file's, else $REFEREE_DB, else runs/referee.sqlite)."),
    config: Optional[Path] = CONFIG_OPT,
) -> None:
    """Export a tournament's per-match results, streamed: match index, seed,
    status, seats, scores, ranks (1 = best), forfeits, faults per seat and log path."""
    from tournaments.report import tournament_row
    from tournaments.results import EXPORT_FORMATS, iter_results, write_results
    from tournaments.store import StorageError

    if fmt not in EXPORT_FORMATS:
        fail(f"--format must be one of {', '.join(EXPORT_FORMATS)}")
    db, cfg_name = reading_db(db, config)
    store = open_store(db, "--db PATH or --config FILE")
    tournament = tournament or cfg_name
    try:
        try:
            t = tournament_row(store, tournament)
        except LookupError as e:
            fail(str(e), 1)
        write_results(iter_results(store, t["id"], extras=fmt == "jsonl"), fmt, sys.stdout)
    except StorageError as e:
        fail(str(e), 1)
    except BrokenPipeError:  # `referee results ... | head`: the reader went away
        sys.stderr.close()


@results_app.command("import")
def results_import(
    file: Path = typer.Argument(..., help="JSON Lines file, one match per line (`referee results --format jsonl`)."),
    tournament: str = typer.Option(..., "--tournament", "-t", help="Tournament to import into (created when absent)."),
    game: str = typer.Option(..., "--game", "-g", help="The game the matches were played at."),
    players: int = typer.Option(..., "--players", "-p", help="Seats per match."),
    db: Optional[str] = typer.Option(None, "--db", help="Results database path or URL "
                                     "(default: $REFEREE_DB, else runs/referee.sqlite)."),
    append: bool = typer.Option(False, "--append", help="Number the file's matches after the tournament's last "
                                "one (merging shards played apart); default: keep their indices, and skip "
                                "any already stored."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Import match results (JSON Lines, one match per line, in the shape
    `referee results --format jsonl` writes) into a tournament, through the same
    write path as played matches: totals, live TrueSkill and the leaderboard come
    out as if the matches had been played here. Every line is checked first;
    any problem is reported with its line number and nothing is written."""
    from tournaments.importer import BadImport, import_results
    from tournaments.store import StorageError, Store

    db = db or os.environ.get("REFEREE_DB") or "runs/referee.sqlite"
    if not file.is_file():
        fail(f"no such file: {file}")
    bar = Progress(TextColumn("[bold]importing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=console, disable=quiet, transient=True)
    task = bar.add_task("import", total=None)

    def on_progress(done: int, total: int) -> None:
        if not bar.live.is_started:
            bar.start()
        bar.update(task, completed=done, total=total)

    try:
        store = Store(db)
        try:
            res = import_results(store, file, tournament, game, players, append, on_progress)
        finally:
            bar.stop()
            store.close()
    except BadImport as e:
        fail(str(e), 2)
    except StorageError as e:
        fail(str(e), 1)
    except OSError as e:
        fail(os_error_text(e, "cannot read"), 1)
    flag, note = db_flag(db)
    console.print(f"imported {res.new:,} match{'' if res.new == 1 else 'es'} into "
                  f"{'new ' if res.created else ''}tournament {res.tournament!r}"
                  f"{f' ({res.skipped:,} already stored, skipped)' if res.skipped else ''}"
                  f"{f', {res.bots_added} new bots' if res.bots_added else ''}; "
                  f"`referee leaderboard -t {res.tournament}{flag}` rates them{note}", markup=False)


# --------------------------------------------------------------------------- commands of other modules
app.add_typer(bot_app, name="bot")
app.add_typer(ladder_app, name="ladder")
app.command("report")(report)
app.command("web")(web)
app.command("play")(play)
app.command("bench")(bench)
app.command("init")(init)
if __name__ == "__main__":  # python -m referee.cli
    app()
