"""``referee ladder``: run a standing competition (``referee ladder FILE``)
and change its entrants while it runs (``add``, ``replace``, ``retire``,
``status``: AdminService calls to the running ladder). See docs/ladder.md.

``tournaments.*`` is imported inside the commands that use it: it loads
SQLAlchemy, which would add about 200 ms to every ``referee`` start-up."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shlex
import signal
import time
from pathlib import Path
from typing import Any, Optional

import grpc
import typer
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor as FD
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperGroup

from cardgames.v1 import admin_pb2, admin_pb2_grpc
from referee.clikit import (TOKEN_ENV_NOTE, db_flag, fail, lease_held_line, os_error_text, path_flag, read_ca,
                            referee_flags, secret_file_or_exit, stored_flags, tls_or_exit, token_env_note,
                            waiting_line, why_not_running)
from referee.remote import REFEREE_RECONNECT_S, RefereeGone, RemoteError, RemoteReferee, unreachable
from referee.words import plural


class _LadderGroup(TyperGroup):
    """``referee ladder FILE ...`` means ``referee ladder run FILE ...``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


ladder_app = typer.Typer(cls=_LadderGroup, no_args_is_help=True, rich_markup_mode="markdown",
                         help="A standing competition: `referee ladder FILE` runs it until stopped; "
                              "add, replace, retire and status change and show it while it runs.")


def _admin_token(admin_token_file: Optional[Path]) -> str:
    tok = ""
    if admin_token_file is not None:
        tok = secret_file_or_exit(admin_token_file, "--admin-token-file").strip()
        if not tok:
            fail(f"--admin-token-file {admin_token_file}: the file is empty")
    return tok or os.environ.get("REFEREE_ADMIN_TOKEN", "").strip()


@ladder_app.command("run")
def ladder_run(
    file: Path = typer.Argument(..., help="Ladder file (TOML), e.g. tournaments/examples/ladder/doudizhu.toml."),
    fresh: bool = typer.Option(False, "--fresh", help="Delete the stored ladder of this name and start over."),
    db: Optional[str] = typer.Option(None, "--db", help="Results database path or URL (overrides the file)."),
    port: Optional[int] = typer.Option(None, "--port", help="Referee port (overrides the file; 0 = any)."),
    admin_token_file: Optional[Path] = typer.Option(None, "--admin-token-file",
                                                    help="File holding the admin token that `referee ladder add` "
                                                    "etc. must present. Also: REFEREE_ADMIN_TOKEN; random "
                                                    "(printed) if neither."),
    max_matches: Optional[int] = typer.Option(None, "--max-matches", help="Schedule at most N new matches (0: none, "
                                              "only open and restore it), "
                                              "play them, then stop (default: run until stopped)."),
    tls_cert: Optional[Path] = typer.Option(None, "--tls-cert", help="PEM certificate: the ladder's port speaks "
                                            "TLS (as `referee serve --tls-cert`); external bots and admin calls "
                                            "then need --tls-ca."),
    tls_key: Optional[Path] = typer.Option(None, "--tls-key", help="PEM private key of --tls-cert."),
    executor: Optional[str] = typer.Option(None, "--executor", help="Where matches run: local (this machine, "
                                           "the default) or dask (a Dask cluster; overrides [execution])."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address, e.g. "
                                            "tcp://HOST:8786 (implies --executor dask)."),
    referee_addr: Optional[str] = typer.Option(None, "--referee", help="Play every match on a running referee "
                                               "HOST:PORT (referee serve): the bots are launched here and "
                                               "connect there; the logs are fetched into the log directory."),
    referee_token_file: Optional[Path] = typer.Option(None, "--referee-admin-token-file",
                                                      help="File holding the admin token of the --referee "
                                                      "referee (default: the ladder's own admin token)."),
    tls_ca: Optional[Path] = typer.Option(None, "--tls-ca", help="With --referee: that referee speaks TLS; "
                                          "trust the CA in this PEM file (also passed to the bots)."),
    reconnect: float = typer.Option(REFEREE_RECONNECT_S, "--reconnect", metavar="SECONDS",
                                    help="With --referee: when that referee goes away (stopped, restarted), wait "
                                    "this long for it to come back and play on (the matches it was playing are "
                                    "played again); 0: stop at once (start the ladder again later)."),
) -> None:
    """Run a ladder until Ctrl-C or SIGTERM: matches are chosen from the current
    ratings, played and rated as they finish; entrants change through
    `referee ladder add|replace|retire`. On a stop, matches in progress may
    finish (for the file's drain_ms; a second Ctrl-C abandons them at once);
    abandoned ones are played again when the ladder starts again. Starting it
    again continues where it stopped (also after kill -9). While it runs the
    ladder holds a lease in the database: a second start of it is refused."""
    from tournaments.ladder import Ladder, LadderError, load
    from tournaments.spec import EXECUTORS, SpecError
    from tournaments.store import StorageError

    try:
        spec = load(file)
    except FileNotFoundError:
        fail(f"no such ladder file: {file}")
    except SpecError as e:
        fail(str(e))
    if db:
        spec.t.database = db
    if port is not None:
        if not 0 <= port <= 65535:
            fail("--port must be 0..65535")
        spec.t.port = port
    if max_matches is not None and max_matches < 0:
        fail("--max-matches must be >= 0 (0: open the ladder, restore its state and stop)")
    if executor is not None:
        if executor not in EXECUTORS:
            fail(f"--executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
        spec.t.executor = executor
    if scheduler:
        spec.t.scheduler = scheduler
        if executor is None:
            spec.t.executor = "dask"
    if spec.t.executor == "dask" and not spec.t.scheduler:
        fail("--executor dask needs --scheduler tcp://HOST:8786 (or scheduler = \"...\" in [execution])")
    if spec.t.executor == "dask" and any(b.external for b in spec.t.bots):
        fail("external bots connect to this machine's referee: they cannot play on a Dask cluster")
    if reconnect < 0:
        fail(f"--reconnect SECONDS must be 0 (stop at once) or more, got {reconnect:g}")
    tls = tls_or_exit(tls_cert, tls_key)
    adm = _admin_token(admin_token_file)
    remote = _remote_referee(spec, referee_addr, _admin_token(referee_token_file) if referee_token_file else adm,
                             tls_ca)
    if remote is not None:  # a referee that does not answer now: fail at once, as `tournament run --referee` does
        try:  # (once it has answered, a referee that goes away is waited for: --reconnect)
            asyncio.run(remote.check_seats([], []))
        except RemoteError as e:
            fail(str(e))
    # stored, for the command `referee ladder status --config` gives (the token files' paths, never a token)
    spec.t.referee = referee_addr or ""
    spec.t.tls_ca = str(tls_ca.resolve()) if referee_addr and tls_ca is not None else ""
    spec.t.admin_token_file = str(admin_token_file.resolve()) if admin_token_file is not None else ""
    spec.t.referee_admin_token_file = (str(referee_token_file.resolve())
                                       if referee_addr and referee_token_file is not None else "")
    spec.t.admin_token_env = admin_token_file is None and bool(os.environ.get("REFEREE_ADMIN_TOKEN", "").strip())
    shown = not adm
    adm = adm or secrets.token_hex(16)

    def say(line: str) -> None:
        print(line, flush=True)

    async def main() -> None:
        lad = Ladder(spec, adm, say=say, max_matches=max_matches, fresh=fresh, tls=tls, remote=remote,
                     reconnect_s=reconnect)
        stop, abandon = asyncio.Event(), asyncio.Event()
        loop = asyncio.get_running_loop()

        def on_signal() -> None:
            if stop.is_set():
                abandon.set()
            stop.set()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, on_signal)
        runner = asyncio.create_task(lad.run(stop, abandon))
        ready = asyncio.create_task(lad.ready.wait())
        await asyncio.wait([runner, ready], return_when=asyncio.FIRST_COMPLETED)
        if lad.ready.is_set() and shown:
            say(f"admin token: {adm}")
        await runner

    try:
        asyncio.run(main())
    except RefereeGone as e:
        flag, note = db_flag(db)
        again = (f"referee ladder {shlex.quote(str(file))}{path_flag('--admin-token-file', admin_token_file)}"
                 f"{referee_flags(referee_addr, tls_ca, None, referee_token_file, '--referee-admin-token-file')}{flag}")
        fail(f"{e}; the ladder stopped (its finished matches are saved, the ones it was playing are played "
             f"again when it starts again); once the referee is back, continue it with `{again}`{note}"
             f"{TOKEN_ENV_NOTE if spec.t.admin_token_env else ''}", 1)
    except (LadderError, StorageError) as e:
        fail(str(e), 1)
    except OSError as e:
        fail(os_error_text(e, f"cannot listen on {spec.host}:{spec.t.port}"), 1)
    flag, note = db_flag(spec.t.database)
    say(f"ladder stopped; `referee leaderboard -t {spec.name}{flag}` shows the ratings{note}")


def _remote_referee(spec: Any, addr: Optional[str], admin_token: str, tls_ca: Optional[Path]) -> Any:
    """The :class:`referee.remote.RemoteReferee` of ``ladder run --referee`` (None without it); exits on a bad
    combination."""
    if addr is None:
        if tls_ca is not None:
            fail("--tls-ca goes with --referee (the trusted CA of a TLS referee)")
        return None
    if spec.t.executor == "dask":
        fail("--referee plays every match on that referee: it excludes the Dask executor")
    if tls_ca is not None:
        read_ca(tls_ca)
    if not admin_token:
        fail("--referee needs that referee's admin token: --referee-admin-token-file, or the ladder's own "
              "(--admin-token-file or REFEREE_ADMIN_TOKEN) when it is the same")
    return RemoteReferee(addr, admin_token, tls_ca, end_grace_s=spec.t.end_grace_ms / 1000)


# --------------------------------------------------------------------------- admin calls
_REFEREE_OPT = typer.Option(..., "--referee", help="The running ladder's HOST:PORT.")
_ADMIN_OPT = typer.Option(None, "--admin-token-file", help="File holding the ladder's admin token "
                          "(also: REFEREE_ADMIN_TOKEN).")
_TLS_CA_OPT = typer.Option(None, "--tls-ca", help="The ladder speaks TLS (`referee ladder FILE --tls-cert`): "
                           "trust the CA (or self-signed certificate) in this PEM file.")


def _call(addr: str, admin_token_file: Optional[Path], method: str, request: Any,
          tls_ca: Optional[Path] = None) -> Any:
    tok = _admin_token(admin_token_file)
    if not tok:
        fail("the ladder's admin token is needed: REFEREE_ADMIN_TOKEN or --admin-token-file")
    ch = (grpc.secure_channel(addr, grpc.ssl_channel_credentials(read_ca(tls_ca))) if tls_ca is not None
          else grpc.insecure_channel(addr))
    with ch:
        stub = admin_pb2_grpc.AdminServiceStub(ch)
        try:
            return getattr(stub, method)(request, metadata=[("x-admin-token", tok)], timeout=30)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNAVAILABLE:
                fail(unreachable("ladder", addr, e.details() or "", tls_ca), 1)
            fail(f"the ladder at {addr} refused: {e.code().name}: {e.details()}", 1)


def _entrant(kind: str, name: str, command: Optional[str], external: bool, token_file: Optional[Path],
             persistent: bool = False) -> Any:
    if bool(command) == external:
        fail("give --command CMD (a bot the ladder launches) or --external (a bot that connects with its token)")
    if persistent and external:
        fail("--persistent goes with --command (the ladder launches the bot once and keeps it)")
    token = ""
    if external:
        if token_file is not None:
            token = secret_file_or_exit(token_file, "--token-file").strip()
        token = token or os.environ.get("REFEREE_BOT_TOKEN", "").strip()
        if not token:
            fail("--external needs the bot's token: --token-file FILE or REFEREE_BOT_TOKEN "
                 "(never on the command line)")
    return getattr(admin_pb2, f"Ladder{kind}Request")(name=name, command=command or "", token=token,
                                                       persistent=persistent)


_COMMAND_OPT = typer.Option(None, "--command", help="Command that launches the bot for each match "
                            "(run on the ladder's machine), e.g. \"python sample_bots/heuristic_bot.py\".")
_EXTERNAL_OPT = typer.Option(False, "--external", help="A bot that connects on its own with a token "
                             "(from --token-file or REFEREE_BOT_TOKEN); it plays while it is connected.")
_TOKEN_FILE_OPT = typer.Option(None, "--token-file", help="File holding an external bot's token.")
_PERSISTENT_OPT = typer.Option(False, "--persistent", help="With --command: launch the bot once and keep it "
                               "across matches (relaunched with the same token if it dies).")


@ladder_app.command("add")
def ladder_add(
    name: str = typer.Argument(..., help="Entrant name (1-56 letters, digits, '_', '-', '.')."),
    referee: str = _REFEREE_OPT,
    command: Optional[str] = _COMMAND_OPT,
    external: bool = _EXTERNAL_OPT,
    token_file: Optional[Path] = _TOKEN_FILE_OPT,
    persistent: bool = _PERSISTENT_OPT,
    admin_token_file: Optional[Path] = _ADMIN_OPT,
    tls_ca: Optional[Path] = _TLS_CA_OPT,
) -> None:
    """Add a new entrant to a running ladder (its version 1, rated from scratch)."""
    res = _call(referee, admin_token_file, "LadderAdd", _entrant("Add", name, command, external, token_file, persistent),
                tls_ca).change
    print(f"added {res.label} (event {res.event_seq})")


@ladder_app.command("replace")
def ladder_replace(
    name: str = typer.Argument(..., help="The entrant that gets a new version."),
    referee: str = _REFEREE_OPT,
    command: Optional[str] = _COMMAND_OPT,
    external: bool = _EXTERNAL_OPT,
    token_file: Optional[Path] = _TOKEN_FILE_OPT,
    persistent: bool = _PERSISTENT_OPT,
    admin_token_file: Optional[Path] = _ADMIN_OPT,
    tls_ca: Optional[Path] = _TLS_CA_OPT,
) -> None:
    """Give an entrant a new version: same name, a fresh rating; the old
    version's matches and rating stay in the history (and on the leaderboard)."""
    res = _call(referee, admin_token_file, "LadderReplace",
                _entrant("Replace", name, command, external, token_file, persistent), tls_ca).change
    print(f"{name} is now {res.label} (event {res.event_seq})")


@ladder_app.command("retire")
def ladder_retire(
    name: str = typer.Argument(..., help="The entrant to retire."),
    referee: str = _REFEREE_OPT,
    reason: str = typer.Option("", "--reason", help="Why (shown in the ladder's status)."),
    admin_token_file: Optional[Path] = _ADMIN_OPT,
    tls_ca: Optional[Path] = _TLS_CA_OPT,
) -> None:
    """Retire an entrant: no new matches (matches in progress finish and count)."""
    res = _call(referee, admin_token_file, "LadderRetire",
                admin_pb2.LadderRetireRequest(name=name, reason=reason), tls_ca).change
    print(f"retired {res.label} (event {res.event_seq})")


@ladder_app.command("verify")
def ladder_verify(
    config: Path = typer.Argument(..., help="The ladder file (its name and database)."),
    db: Optional[str] = typer.Option(None, "--db", help="The database (overrides the file)."),
) -> None:
    """Replay the ladder's whole history from its first event: check that every
    recorded decision (each match scheduled, each suspension) is the one its
    state gave, and that the state a restart starts from (its snapshot and the
    events after it) and the live ratings kept in the database are the ones the
    history gives. Exit status 1 if anything differs. Reads only; it can run
    beside the running ladder (it checks the ladder as of one moment, see
    :meth:`LadderStore.recorded_view`). O(events) time, bounded memory."""
    from tournaments.ladder import RowsInOrder, load, replay_checked, restore, state_differences
    from tournaments.ladder_store import LadderStore
    from tournaments.spec import SpecError
    from tournaments.store import StorageError, Store

    try:
        spec = load(config, check_commands=False)  # it launches no bot
    except FileNotFoundError:
        fail(f"no such ladder file: {config}")
    except SpecError as e:
        fail(str(e))
    t0 = time.monotonic()
    try:
        store = Store(db or spec.t.database, create=False)
        try:
            t = store.tournament(spec.name)
            if t is None:
                fail(f"no ladder {spec.name!r} in {store.display_url}", 1)
            tid = int(t["id"])
            lstore = LadderStore(store, create=False)
            # the ladder may record matches meanwhile: everything is compared as of one moment
            view = lstore.recorded_view(tid)
            full, problems = replay_checked(spec, lstore.iter_events(tid, upto=view.last_seq),
                                            RowsInOrder(store, tid))
            restarted, tail, snapshot = restore(spec, lstore, tid, as_of=view)
            if snapshot:
                problems += [f"snapshot: {d}" for d in state_differences(full, restarted)]
            for lbl, (mu, sigma) in sorted(view.ratings.items()):
                r = full.ratings.get(lbl)
                if r is None or abs(r.mu - mu) > 1e-9 or abs(r.sigma - sigma) > 1e-9:
                    problems.append(f"live rating of {lbl} in the database: {mu:.6f}/{sigma:.6f}, the history gives "
                                    + (f"{r.mu:.6f}/{r.sigma:.6f}" if r is not None else "no such version"))
        finally:
            store.close()
    except StorageError as e:
        fail(str(e), 1)
    took = time.monotonic() - t0
    print(f"ladder {spec.name}: {full.last_seq} {plural(full.last_seq, 'event')}, {full.finished} "
          f"{plural(full.finished, 'match', 'matches')} replayed in {took:.1f} s; "
          + (f"the snapshot (event {restarted.last_seq - tail}) and the {tail} {plural(tail, 'event')} after it "
             "give the same state"
             if snapshot else "no snapshot yet (a restart replays the history)"))
    if problems:
        for p in problems[:50]:
            print(f"  {p}")
        fail(f"{len(problems)} {plural(len(problems), 'difference')} between the history and what was recorded", 1)
    print("every recorded decision and rating is the one the history gives")


@ladder_app.command("status")
def ladder_status(
    referee: Optional[str] = typer.Option(None, "--referee", help="The running ladder's HOST:PORT: ask it "
                                          "(entrants, ratings, connections)."),
    config: Optional[Path] = typer.Option(None, "--config", "-c", help="Instead of --referee: the ladder file; "
                                          "read its database (is it running, and by which process?)."),
    db: Optional[str] = typer.Option(None, "--db", help="With --config: the database (overrides the file)."),
    admin_token_file: Optional[Path] = _ADMIN_OPT,
    tls_ca: Optional[Path] = _TLS_CA_OPT,
    json_out: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """The running ladder's entrants (`--referee`): version, state (and why
    suspended or retired), connection of external bots, TrueSkill, matches,
    and whether it is waiting for its restarted `--referee`.
    With `--config FILE` (no admin token needed): from the database, whether
    the ladder is running (and which process holds its lease, and whether it
    is waiting for its restarted `--referee`), stopped, or interrupted
    (killed), and its entrants' states."""
    if (referee is None) == (config is None):
        fail("give --referee HOST:PORT (ask the running ladder) or --config FILE (read its database)")
    if config is not None:
        _stored_status(config, db, json_out)
        return
    from tournaments.figures import trueskill_text

    res = _call(referee, admin_token_file, "LadderStatus", admin_pb2.LadderStatusRequest(), tls_ca)
    if json_out:
        d = json_format.MessageToDict(res, preserving_proto_field_name=True, always_print_fields_with_no_presence=True)
        print(json.dumps(_int64_numbers(d, res.DESCRIPTOR), indent=2))
        return
    t = Table(title=f"ladder {res.ladder} ({res.game}): {res.matches_finished} "
                    f"{plural(res.matches_finished, 'match', 'matches')} finished, "
                    f"{res.matches_running} running", box=box.SIMPLE_HEAD)
    for col in ("entrant", "state", "mu", "sigma", "mu−3σ", "matches", "reason"):
        t.add_column(col, justify="right" if col in ("mu", "sigma", "mu−3σ", "matches") else "left")
    for e in sorted(res.entrants, key=lambda e: (-(e.mu - 3 * e.sigma), e.name)):  # by the mu−3σ column
        state = e.state + (" (online)" if e.external and e.online else " (offline)" if e.external else "")
        t.add_row(escape(e.label), state, trueskill_text(e.mu), trueskill_text(e.sigma),
                  trueskill_text(e.mu - 3 * e.sigma), str(e.matches), escape(e.reason))
    Console(width=max(100, Console().width)).print(t)
    if res.waiting_for:
        print(waiting_line({"what": res.waiting_for, "since": res.waiting_since, "until": res.waiting_until}))


def _int64_numbers(d: dict, descriptor) -> dict:
    """Protobuf JSON writes 64-bit integers as strings: numbers for a person's JSON
    (``d`` from ``MessageToDict`` of a message of ``descriptor``)."""
    for f in descriptor.fields:
        if f.name not in d:
            continue
        if f.type == FD.TYPE_MESSAGE:
            vals = d[f.name] if f.is_repeated else [d[f.name]]
            for v in vals:
                if isinstance(v, dict):
                    _int64_numbers(v, f.message_type)
        elif f.cpp_type in (FD.CPPTYPE_INT64, FD.CPPTYPE_UINT64):
            d[f.name] = [int(x) for x in d[f.name]] if f.is_repeated else int(d[f.name])
    return d


def _stored_status(config: Path, db: Optional[str], json_out: bool) -> None:
    """``referee ladder status --config FILE``: the ladder's state from its database."""
    from tournaments.ladder import load
    from tournaments.ladder_store import LadderStore
    from tournaments.spec import SpecError
    from tournaments.store import StorageError, Store

    try:
        spec = load(config, check_commands=False)  # it launches no bot
    except FileNotFoundError:
        fail(f"no such ladder file: {config}")
    except SpecError as e:
        fail(str(e))
    try:
        store = Store(db or spec.t.database, create=False)
    except StorageError as e:
        fail(str(e), 1)
    try:
        t = store.tournament(spec.name)
        if t is None:
            fail(f"no ladder {spec.name!r} in {store.display_url}: start it with `referee ladder {config}`", 1)
        state, lease = store.run_state(t)
        stale = store.lease(t["id"]) if state == "interrupted" else None
        waiting = store.wait(t["id"], lease)
        entrants = LadderStore(store, create=False).entrants(t["id"])
        finished = store.match_count(t["id"])
    except StorageError as e:
        fail(str(e), 1)
    finally:
        store.close()
    if json_out:
        print(json.dumps({"ladder": spec.name, "game": t["game"], "state": state, "matches_finished": finished,
                          "lease": lease, "waiting": waiting,
                          "entrants": [{"name": e["name"], "label": e["current"]["label"],
                                        "state": e["current"]["state"],
                                        "reason": e["current"]["reason"]} for e in entrants]},
                         indent=2))
        return
    # the file names another database: say which one to continue
    flag, note = db_flag(db if db and db != spec.t.database else None)
    stored = json.loads(t["spec_json"])  # where its last run played its matches
    remote = stored_flags(stored, os.getcwd())
    again = f"`referee ladder {config}{remote}{flag}`{note}{token_env_note(stored)}"
    print(f"ladder {spec.name}: {t['game']}, {finished} {plural(finished, 'match', 'matches')} finished, "
          f"{len(entrants)} {plural(len(entrants), 'entrant')}, status {state}")
    if lease is not None:
        print(lease_held_line(lease))
        if waiting is not None:
            print(waiting_line(waiting))
    elif state == "interrupted":
        print(f"  not running: {why_not_running(stale, 'process')}; continue it with {again}")
    else:
        print(f"  not running; continue it with {again}")
    for e in entrants:
        cur = e["current"]
        print(f"  {cur['label']}: {cur['state']}" + (f" ({cur['reason']})" if cur["reason"] else ""))
