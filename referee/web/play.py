"""Matches with human seats, run by the web server (``referee web``, ``referee play``).

A :class:`Hall` owns a referee (the same :class:`referee.service.Referee` as
``referee match``, on 127.0.0.1) and the matches it runs. A match is asked
for as a :class:`MatchRequest` (from the "new match" form, :func:`parse_form`,
or from ``referee play``'s command line) and played by
:func:`referee.play.play_match` like any other: bot seats are launched
commands (a sample bot, or a command given on the server's command line) or
external bots that connect with their own token; a human seat is a token
seat whose bot is a :class:`referee.web.human.HumanSeat`, a protocol client
inside the web server that the human's page drives. Same engine, same
clocks, same faults, same log.

Each human seat has a private page address with a secret key (compared in
constant time); the match's creator gets every seat's address on a page of
its own (another secret). The match starts once every human has opened
their page (within ``join_timeout_s``; else it is abandoned, never played).

Bot commands come only from the server's command line (``--bot``) or the
sample bots: the form chooses among them, it never runs a command typed in
a browser. A spectator sees the public view of a match being played,
``spectator_delay_s`` behind (:meth:`LiveMatch.public_log_text`); once the
match is over every view of its replay is served.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import random
import secrets
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from referee.clikit import bot_label
from referee.games import GAME_IDS, UnknownGame, game_class, game_meta
from referee.sandbox import Sandbox
from referee.play import SeatPlan, play_match
from referee.runner import FAULT_POLICIES, MatchOutcome, MatchSpec
from referee.service import Referee
from referee.web.human import HumanSeat
from referee.web.replay import NotAMatchLog, final_hands, read_log
from referee.words import counts_text, plural

log = logging.getLogger(__name__)

#: a human seat's clock unless the request says otherwise (milliseconds)
DEFAULT_HUMAN_DECISION_MS = 60_000
DEFAULT_HUMAN_BANK_MS = 0
#: the sample bots the form offers: name -> script in sample_bots/
SAMPLE_DIR = Path(__file__).resolve().parent.parent.parent / "sample_bots"
SAMPLES = {"heuristic": "heuristic_bot.py", "random": "random_bot.py"}
#: how long a match waits for its humans to open their pages, and for its bots to connect (seconds)
DEFAULT_JOIN_TIMEOUT_S = 600.0
DEFAULT_CONNECT_TIMEOUT_S = 30.0
#: seconds a human client has, after the match, to read its MatchEnded
CLIENT_END_S = 10.0
#: matches a hall plays at once (each launches its bots), and finished matches it keeps for their pages
MAX_RUNNING = 8
MAX_KEPT = 200
#: largest values the form accepts (milliseconds; seconds for the delay)
MAX_CLOCK_MS = 3_600_000
MAX_DELAY_S = 3600
HUMAN_NAME_MAX = 32


def _final_hands(path: Path) -> list[list[str]] | None:
    """Every seat's last hand from a finished match's log (``None``: no finished log to read)."""
    try:
        return final_hands(read_log(path))
    except (OSError, NotAMatchLog, LookupError):
        return None


def sample_command(name: str) -> str:
    """The command line of sample bot ``name`` (a key of :data:`SAMPLES`), run by this Python."""
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(SAMPLE_DIR / SAMPLES[name]))}"


def rounds_param(game: str, rounds: int, params: Mapping[str, Any]) -> dict[str, Any]:
    """The match parameter that makes ``game`` last ``rounds`` rounds: the
    game's own rule (:attr:`GameMeta.rounds_params
    <referee.games.metakit.GameMeta.rounds_params>`), else its ``rounds`` or
    ``max_rounds`` parameter."""
    own = game_meta(game).rounds_params
    if own is not None:
        return own(rounds, params)
    defaults = game_class(game).param_defaults
    return {"rounds" if "rounds" in defaults else "max_rounds": rounds}


@dataclass
class SeatChoice:
    """Who sits in one seat: ``kind`` ``"human"`` (``value``: the person's name),
    ``"sample"`` (``value``: a key of :data:`SAMPLES`), ``"command"`` (``value``:
    the index of a command the server was given) or ``"external"`` (``value``:
    the name of an external bot's registered token). ``decision_ms``/``bank_ms``:
    this seat's clock (milliseconds), ``None`` for the default of its kind."""

    kind: str
    value: str = ""
    decision_ms: int | None = None
    bank_ms: int | None = None


@dataclass
class MatchRequest:
    """A match to play: the game, its seats and settings (clocks in
    milliseconds, the spectators' delay in seconds). :meth:`Hall.create` checks it."""

    game: str
    players: int
    seats: list[SeatChoice]
    seed: int = 1
    params: dict[str, Any] = field(default_factory=dict)
    variant: dict[str, Any] = field(default_factory=dict)
    decision_ms: int = 1000
    bank_ms: int = 0
    human_decision_ms: int = DEFAULT_HUMAN_DECISION_MS
    human_bank_ms: int = DEFAULT_HUMAN_BANK_MS
    fault_policy: str = "default_action"
    max_faults: int = 5
    spectator_delay_s: int = 0


class FormError(ValueError):
    """A bad new-match request; ``field`` names the form field (``""`` for the whole form)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def _int(form: Mapping[str, str], key: str, default: int | None, lo: int, hi: int, what: str) -> int | None:
    raw = (form.get(key) or "").strip()
    if not raw:
        return default
    try:
        v = int(raw)
    except ValueError:
        raise FormError(key, f"{what} must be a whole number, got {raw[:20]!r}") from None
    if not lo <= v <= hi:
        raise FormError(key, f"{what} must be between {lo:,} and {hi:,}, got {v:,}")
    return v


def _key_values(text: str, key: str) -> dict[str, Any]:
    """``"rounds=3 first_dealer=1"`` -> ``{"rounds": 3, "first_dealer": 1}`` (JSON values, else strings)."""
    out: dict[str, Any] = {}
    for item in text.replace(",", " ").split():
        k, sep, v = item.partition("=")
        if not sep or not k:
            raise FormError(key, f"expected KEY=VALUE items, got {item[:40]!r}")
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    return out


def parse_form(form: Mapping[str, str], commands: list[str], external: list[str]) -> MatchRequest:
    """The new-match form's fields as a :class:`MatchRequest` (:class:`FormError` naming
    the field for anything wrong). Fields: ``game``, ``players``, ``seed`` (blank:
    random), ``rounds``, ``params`` (``KEY=VALUE ...``), ``variant.<game>.<flag>``
    (checkboxes), ``decision_ms``, ``bank_ms``, ``human_decision_ms``,
    ``human_bank_ms``, ``fault_policy``, ``max_faults``, ``spectator_delay_s``; per
    seat ``seat<S>`` (``human``, ``sample:<name>``, ``command:<i>``,
    ``external:<name>``), ``seat<S>_name`` (a human's name), ``seat<S>_decision_ms``,
    ``seat<S>_bank_ms`` (blank: the default of the seat's kind). ``commands``:
    the server's bot commands; ``external``: the names of its external bots."""
    game = (form.get("game") or "").strip()
    try:
        cls = game_class(game)
    except UnknownGame:
        raise FormError("game", f"unknown game {game[:30]!r}; games: {', '.join(GAME_IDS)}") from None
    players = _int(form, "players", cls.player_counts[0], 1, 64, "players")
    if players not in cls.player_counts:
        raise FormError("players", f"{game} is played by {counts_text(cls.player_counts)} players, "
                                   f"not {players}")
    seats = []
    for s in range(players):
        choice = (form.get(f"seat{s}") or "").strip()
        kind, _, value = choice.partition(":")
        if kind == "human":
            name = (form.get(f"seat{s}_name") or "").strip() or "human"
            if len(name) > HUMAN_NAME_MAX or not name.isprintable() or "#" in name:
                raise FormError(f"seat{s}_name", f"seat {s}: a name is 1 to {HUMAN_NAME_MAX} printable characters "
                                                 "without #")
            value = name
        elif kind == "sample":
            if value not in SAMPLES:
                raise FormError(f"seat{s}", f"seat {s}: no sample bot {value[:30]!r} ({', '.join(SAMPLES)})")
        elif kind == "command":
            if not value.isdigit() or int(value) >= len(commands):
                raise FormError(f"seat{s}", f"seat {s}: no bot command #{value[:10]} on this server")
        elif kind == "external":
            if value not in external:
                raise FormError(f"seat{s}", f"seat {s}: no external bot named {value[:30]!r} on this server")
        else:
            raise FormError(f"seat{s}", f"seat {s}: choose a human or a bot")
        seats.append(SeatChoice(kind, value, _int(form, f"seat{s}_decision_ms", None, 1, MAX_CLOCK_MS,
                                                  f"seat {s}'s decision clock (ms)"),
                                _int(form, f"seat{s}_bank_ms", None, 0, MAX_CLOCK_MS, f"seat {s}'s time bank (ms)")))
    params = _key_values(form.get("params") or "", "params")
    rounds = _int(form, "rounds", None, 1, 10_000, "rounds")
    if rounds is not None:
        try:
            params.update(rounds_param(game, rounds, params))
        except (TypeError, ValueError):
            raise FormError("params", f"first_round must be a whole number, got {params.get('first_round')!r}") \
                from None
    variant = {flag: True for flag in cls.variant_defaults if form.get(f"variant.{game}.{flag}")}
    policy = (form.get("fault_policy") or "default_action").strip()
    if policy not in FAULT_POLICIES:
        raise FormError("fault_policy", f"fault policy must be one of {', '.join(FAULT_POLICIES)}")
    seed = _int(form, "seed", None, 0, 2**62, "seed")
    return MatchRequest(
        game=game, players=players, seats=seats, seed=random.SystemRandom().randrange(1, 2**31) if seed is None else seed,
        params=params, variant=variant,
        decision_ms=_int(form, "decision_ms", 1000, 1, MAX_CLOCK_MS, "the bots' decision clock (ms)"),
        bank_ms=_int(form, "bank_ms", 0, 0, MAX_CLOCK_MS, "the bots' time bank (ms)"),
        human_decision_ms=_int(form, "human_decision_ms", DEFAULT_HUMAN_DECISION_MS, 1, MAX_CLOCK_MS,
                               "the humans' decision clock (ms)"),
        human_bank_ms=_int(form, "human_bank_ms", DEFAULT_HUMAN_BANK_MS, 0, MAX_CLOCK_MS, "the humans' time bank (ms)"),
        fault_policy=policy, max_faults=_int(form, "max_faults", 5, 1, 1000, "max faults"),
        spectator_delay_s=_int(form, "spectator_delay_s", 0, 0, MAX_DELAY_S, "the spectators' delay (s)"))


@dataclass
class SeatEntry:
    """One seat of a :class:`LiveMatch`: its label, kind and, for a human, its client."""

    seat: int
    label: str
    kind: str
    human: HumanSeat | None = None
    external: str = ""


@dataclass
class LiveMatch:
    """A match of the hall: ``status`` is ``"waiting"`` (for its humans to open their
    pages), ``"playing"``, ``"over"``, ``"abandoned"`` (a human never came) or
    ``"failed"``; ``why`` says more. ``creator_key``: the secret of its setup page."""

    match_id: str
    spec: MatchSpec
    seats: list[SeatEntry]
    creator_key: str
    log_path: Path
    spectator_delay_s: int = 0
    status: str = "waiting"
    why: str = ""
    outcome: MatchOutcome | None = None
    created_at: float = field(default_factory=time.time)
    #: (monotonic time, bytes of the log) each time the log grew: what spectators may see when
    sizes: list[tuple[float, int]] = field(default_factory=list)
    task: asyncio.Task | None = None

    @property
    def over(self) -> bool:
        return self.status in ("over", "abandoned", "failed")

    def human(self, seat: int, key: str) -> HumanSeat | None:
        """The human seat ``seat`` if ``key`` is its secret (compared in constant time), else ``None``."""
        if not 0 <= seat < len(self.seats):
            return None
        h = self.seats[seat].human
        if h is None or not hmac.compare_digest(h.key.encode(), key.encode()):
            return None
        return h

    def is_creator(self, key: str) -> bool:
        return hmac.compare_digest(self.creator_key.encode(), key.encode())

    def public_log_text(self, now: float) -> str:
        """The match log as spectators may see it at ``now`` (monotonic seconds): the
        whole file once the match is over and its delay has passed, else what it held
        ``spectator_delay_s`` ago. The caller shows its public view only."""
        try:
            data = self.log_path.read_bytes()
        except FileNotFoundError:
            return ""
        if self.spectator_delay_s <= 0:
            return data.decode("utf-8", "replace")
        cut = 0
        for t, size in self.sizes:
            if t <= now - self.spectator_delay_s:
                cut = size
        return data[:cut].decode("utf-8", "replace")


class Hall:
    """The matches with human seats of one web server, and their referee.

    ``log_dir``: where match logs and bot output go; ``commands``: the bot
    commands the form offers (from the server's command line); ``external``:
    ``(name, token)`` of external bots that connect by themselves to
    ``127.0.0.1:referee_port`` (0: any free port, :attr:`referee_addr`);
    ``base_dir``: what relative paths of the commands are relative to;
    ``join_timeout_s``: how long a match waits for its humans to open their
    pages, ``connect_timeout_s`` for its bots to connect (seconds);
    ``max_running``: matches played at once (a new one beyond is refused; the
    :data:`MAX_KEPT` latest finished ones are kept for their pages);
    ``sandbox``: how its launched bots are isolated (``referee play`` and
    ``referee web`` make it from ``--bot-uids``, as ``referee match`` does).
    :meth:`start` and :meth:`stop` inside the server's event loop."""

    def __init__(self, log_dir: Path, commands: list[str] | None = None,
                 external: list[tuple[str, str]] | None = None, referee_port: int = 0,
                 base_dir: Path | None = None, join_timeout_s: float = DEFAULT_JOIN_TIMEOUT_S,
                 connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_S, end_grace_s: float = 2.0,
                 max_running: int = MAX_RUNNING, sandbox: Sandbox | None = None):
        self.log_dir = Path(log_dir)
        self.commands = list(commands or [])
        self.external = list(external or [])
        self.referee_port = referee_port
        self.base_dir = base_dir
        self.join_timeout_s = join_timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.end_grace_s = end_grace_s
        self.max_running = max_running
        #: how the launched bots are isolated (``None``: the default of :func:`referee.play.play_match`)
        self.sandbox = sandbox
        #: the secret of the new-match form (a cross-site page cannot read it, so cannot post it)
        self.form_key = secrets.token_urlsafe(24)
        self.matches: dict[str, LiveMatch] = {}
        self.referee: Referee | None = None
        #: the matches :meth:`stop` cut off (not over when it was called), in creation order
        self.cut_off: list[LiveMatch] = []

    @property
    def referee_addr(self) -> str:
        return f"127.0.0.1:{self.referee.port}" if self.referee is not None else ""

    def form_key_ok(self, key: str) -> bool:
        return hmac.compare_digest(self.form_key.encode(), (key or "").encode())

    def bot_choices(self) -> list[tuple[str, str]]:
        """``(value, label)`` of every bot the form offers (see :func:`parse_form`)."""
        out = [(f"sample:{n}", f"sample bot: {n}") for n in SAMPLES]
        out += [(f"command:{i}", f"command {i + 1}: {bot_label(c, i).rsplit('#', 1)[0]}")
                for i, c in enumerate(self.commands)]
        out += [(f"external:{n}", f"external bot: {n}") for n, _ in self.external]
        return out

    async def start(self) -> None:
        """Start the referee on 127.0.0.1 (``OSError`` if its port cannot be bound)."""
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.referee = Referee(self.log_dir)
        await self.referee.start("127.0.0.1", self.referee_port)
        for name, token in self.external:
            self.referee.register_token(token, name)

    async def stop(self) -> None:
        """Stop every match (its bots are stopped and reaped, their private directories removed), every
        human client and the referee; the matches that were not over are then in :attr:`cut_off`."""
        self.cut_off = [m for m in self.matches.values() if not m.over]
        tasks = [m.task for m in self.matches.values() if m.task is not None and not m.task.done()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for m in self.matches.values():
            if not m.over:  # also a match whose task was cancelled before it ran
                m.status, m.why = "failed", "the server stopped"
        if self.referee is not None:
            await self.referee.stop(0.5)
            self.referee = None
        if self.sandbox is not None:
            self.sandbox.close()

    def external_connected(self, name: str) -> bool:
        tok = dict(self.external).get(name)
        return bool(tok) and self.referee is not None and self.referee.connected(tok)

    def spec_of(self, req: MatchRequest, match_id: str = "match") -> MatchSpec:
        """The :class:`MatchSpec` of ``req`` (seat labels, per-seat clocks), checked:
        :class:`FormError` for a request that cannot be played."""
        if len(req.seats) != req.players:
            given = len(req.seats)
            raise FormError("players", f"{req.players} players but {given} {plural(given, 'seat')} given")
        if not any(c.kind == "human" for c in req.seats):
            raise FormError("", "no seat is human: `referee match` plays bots against each other")
        names, clocks = [], []
        for s, c in enumerate(req.seats):
            if c.kind == "command":
                if not c.value.isdigit() or int(c.value) >= len(self.commands):
                    raise FormError(f"seat{s}", f"seat {s}: no bot command #{c.value} on this server")
                names.append(bot_label(self.commands[int(c.value)], s))
            elif c.kind == "external" and c.value not in dict(self.external):
                raise FormError(f"seat{s}", f"seat {s}: no external bot named {c.value!r} on this server")
            elif c.kind == "sample" and c.value not in SAMPLES:
                raise FormError(f"seat{s}", f"seat {s}: no sample bot {c.value!r} ({', '.join(SAMPLES)})")
            else:
                names.append(f"{c.value}#{s}")
            if c.kind == "human":
                clocks.append([c.decision_ms or req.human_decision_ms,
                               c.bank_ms if c.bank_ms is not None else req.human_bank_ms])
            elif c.decision_ms is not None or c.bank_ms is not None:
                clocks.append([c.decision_ms or req.decision_ms, c.bank_ms if c.bank_ms is not None else req.bank_ms])
            else:
                clocks.append(None)  # the match's clock
        spec = MatchSpec(game=req.game, players=req.players, seed=req.seed, seat_names=names, variant=req.variant,
                         params=req.params, decision_ms=req.decision_ms, bank_ms=req.bank_ms,
                         fault_policy=req.fault_policy, max_faults=req.max_faults, match_id=match_id,
                         seat_clocks=clocks if any(c is not None for c in clocks) else None)
        try:
            spec.check()
            spec.new_game()
        except (ValueError, TypeError) as e:
            raise FormError("params", str(e)) from None
        return spec

    def create(self, req: MatchRequest) -> LiveMatch:
        """Check ``req`` (:class:`FormError`) and start its match; returns it at once
        (status ``"waiting"`` until every human has opened their page)."""
        assert self.referee is not None, "Hall.start() first"
        running = sum(1 for m in self.matches.values() if not m.over)
        if running >= self.max_running:
            raise FormError("", f"this server plays {running} {plural(running, 'match', 'matches')} already "
                                f"(at most {self.max_running} at "
                                "once): try again when one is over")
        match_id = self.referee.new_match_id(req.game)
        spec = self.spec_of(req, match_id)
        names, plans, entries = spec.seat_names, [], []
        for s, c in enumerate(req.seats):
            entry = SeatEntry(s, names[s], c.kind)
            if c.kind == "human":
                token = self.referee.new_token(names[s], max_connections=1, game=req.game)
                entry.human = HumanSeat(match_id, s, c.value, token, secrets.token_urlsafe(24),
                                        self.referee_addr, req.game)
                plans.append(SeatPlan(token=token))
            elif c.kind == "sample":
                plans.append(SeatPlan(command=sample_command(c.value)))
            elif c.kind == "command":
                plans.append(SeatPlan(command=self.commands[int(c.value)]))
            else:
                entry.external = c.value
                plans.append(SeatPlan(token=dict(self.external)[c.value]))
            entries.append(entry)
        m = LiveMatch(match_id, spec, entries, secrets.token_urlsafe(24), self.log_dir / f"{match_id}.jsonl",
                      spectator_delay_s=req.spectator_delay_s)
        self.matches[match_id] = m
        finished = [k for k, x in self.matches.items() if x.over]  # oldest first (insertion order)
        for k in finished[:max(0, len(finished) - MAX_KEPT)]:
            del self.matches[k]
        m.task = asyncio.get_running_loop().create_task(self._run(m, plans))
        return m

    async def _run(self, m: LiveMatch, plans: list[SeatPlan]) -> None:
        """Play ``m``: its human clients connect, the humans open their pages, then
        :func:`referee.play.play_match`. The match is ``over`` once every human
        client has taken its ``MatchEnded`` (a page's event stream ends after the
        final state); its replay links are then on the humans' pages."""
        humans = [e.human for e in m.seats if e.human is not None]
        clients = [asyncio.get_running_loop().create_task(h.run()) for h in humans]
        watch = None
        try:
            if not await self._wait_for_humans(m, humans):
                return
            m.status = "playing"
            watch = asyncio.get_running_loop().create_task(self._watch_log(m))
            # seats named as `referee match` names them: "<Hello.bot_name>#<seat>" once the bots connect
            outcome = await play_match(self.referee, m.spec, plans, self.log_dir, hello_names=True,
                                       connect_timeout_s=self.connect_timeout_s, end_grace_s=self.end_grace_s,
                                       base_dir=self.base_dir, log_path=m.log_path, sandbox=self.sandbox)
            # each client ends its stream by itself once it has read MatchEnded (queued before play_match returned)
            await asyncio.wait(clients, timeout=CLIENT_END_S)
            links = {"all": f"/play/{m.match_id}/replay/all.html"}
            hands = await asyncio.to_thread(_final_hands, m.log_path)  # public now, as the all-seeing replay
            for h in humans:
                h.set_replay(dict(links, seat=f"/play/{m.match_id}/replay/seat{h.seat}.html"), hands)
            m.outcome, m.status, m.why = outcome, "over", outcome.status_text
        except asyncio.CancelledError:
            m.status, m.why = "failed", "the server stopped"
            raise
        except Exception as e:  # a referee-side failure: say it on the pages, keep the server up
            log.exception("match %s failed", m.match_id)
            m.status, m.why = "failed", f"{type(e).__name__}: {e}"
            for h in humans:
                h.set_note(f"the match failed: {m.why}")
        finally:
            if watch is not None:
                watch.cancel()
            self._record_size(m)
            for h in humans:
                h.close()  # a client still connected ends its stream (the match failed or was stopped)
                h.changed()  # the pages' event streams see the match's status
            if clients:
                _, stuck = await asyncio.wait(clients, timeout=1.0)
                for t in stuck:
                    t.cancel()
            if self.referee is not None:
                for h in humans:
                    self.referee.tokens.pop(h.token, None)

    async def _wait_for_humans(self, m: LiveMatch, humans: list[HumanSeat]) -> bool:
        """Wait until every human has opened their page; False (match abandoned) after ``join_timeout_s``."""
        deadline = time.monotonic() + self.join_timeout_s
        while True:
            missing = [h for h in humans if not h.joined.is_set()]
            if not missing:
                for h in humans:
                    h.set_note("")
                return True
            names = ", ".join(f"{h.name} (seat {h.seat})" for h in missing)
            left = deadline - time.monotonic()
            if left <= 0:
                m.status, m.why = "abandoned", f"never opened their page: {names}"
                for h in humans:
                    h.set_note(f"the match was abandoned: {names} did not open their page in time")
                return False
            for h in humans:
                h.set_note(f"waiting for {names} to open their page")
            waits = [asyncio.ensure_future(h.joined.wait()) for h in missing]
            try:
                await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for w in waits:
                    w.cancel()

    async def _watch_log(self, m: LiveMatch, every_s: float = 0.25) -> None:
        """Note the log's size as it grows (the spectators' delay counts from then)."""
        while True:
            self._record_size(m)
            await asyncio.sleep(every_s)

    @staticmethod
    def _record_size(m: LiveMatch) -> None:
        try:
            size = m.log_path.stat().st_size
        except FileNotFoundError:
            return
        if not m.sizes or m.sizes[-1][1] != size:
            m.sizes.append((time.monotonic(), size))
