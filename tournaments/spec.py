"""Tournament files (TOML): parsing and validation.

Every problem is reported with its key and line before any match starts;
:class:`SpecError` carries the whole list. The format (see
``tournaments/examples/*.toml`` and the README)::

    name = "doudizhu-demo"         # unique name in the results database
    game = "doudizhu"              # a game id (referee.games.GAME_IDS)
    players = 3                    # seats per match
    schedule = "round_robin"       # round_robin | duplicate, or a table:
    [schedule]  kind = "duplicate", until = "separated", confidence = 0.95, max_matches = 600,
                seatings = "balanced" | "all"
    [schedule]  kind = "sampled", matches_per_bot = 60, duplicate = false   (fields too large for a round robin)
    games = 1                      # repetitions of the whole schedule (not for sampled)
    seed = 1                       # tournament seed: every match seed derives from it
    concurrency = 2                # matches at once (default: number of cores)
    database = "runs/referee.sqlite"
    log_dir = "runs/logs"          # match logs and bot output
    port = 0                       # referee port (0 = any; set it for external bots)
    variant = { spring = false }   # the game's variant flags
    params = { rounds = 4 }        # the game's match parameters
    include = ["entries/*.toml"]   # files of more [[bots]] tables (glob patterns from this file's directory)
    [clock]     decision_ms = 1000, bank_ms = 0, connect_timeout_ms = 15000,
                end_grace_ms = 2000  (how long bots may take to exit after a match),
                kind = "wall" | "cpu"  (or top-level clock = "cpu" without a [clock] table)
    [faults]    policy = "default_action" | "forfeit", max_faults = 5
    [trueskill] mu, sigma, beta, tau, draw_probability
    [limits]    cpu_seconds, memory_mb, processes, open_files, file_size_mb
    [sandbox]   bot_uids = "auto" | "off" | "60000-60999", isolate_network = false
    [execution] executor = "local" | "dask", scheduler = "tcp://HOST:8786"
    [[bots]]    name = "...", command = "python sample_bots/random_bot.py"
                (or external = true, token = "...": a bot that connects on its own; on a hosted
                referee, --referee, external = true without a token: the bot registered there
                under this name), persistent = false,
                limits = { memory_mb = 4096 }   (this bot's own limits),
                resources = ["java"]   # Dask: only workers started with --resources java=N

``database`` defaults to ``$REFEREE_DB``, else ``runs/referee.sqlite``.
Relative paths in bot commands (the program and file arguments) are taken
from the directory the tournament is run from, and checked when the file is
loaded, before any match (on a Dask cluster: from each worker's directory).
"""

from __future__ import annotations

import glob
import hashlib
import json
import math
import os
import random
import re
import tomllib
from dataclasses import asdict, dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Any

from referee.botcommand import check_command
from referee.bots import Limits
from referee.games import GAME_IDS, UnknownGame, game_class
from referee.runner import FAULT_POLICIES
from referee.sandbox import parse_uid_range
from referee.words import counts_text, did_you_mean, plural
from tournaments.dburl import mask_url
from tournaments.sampled import group_count
from tournaments.seatings import DESIGNS, block_size

CLOCKS = ("wall", "cpu")

SCHEDULES = ("round_robin", "duplicate", "sampled")
#: the most matches a round robin may have (its combinations are listed up front): beyond, use "sampled"
ROUND_ROBIN_LIMIT = 1_000_000
#: version of the schedule construction (tournaments.schedule), part of the fingerprint: a tournament
#: stored by a version that seats or seeds matches differently is not resumed by this one
SCHEDULE_DESIGN = 2
EXECUTORS = ("local", "dask")
UNTILS = ("separated",)
#: the keys of a [[bots]] table
_BOT_KEYS = ("command", "external", "limits", "name", "persistent", "resources", "token")
#: how many bots a problem names before "and N more"
_LISTED = 5
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


class SpecError(ValueError):
    """A tournament file with problems; ``problems`` lists ``(key, line, message)``
    and ``files`` the file each one is in: ``path``, or a file it includes
    (then the key and line are that file's, e.g. its own ``bots[0].command``).
    Its text has one line per problem, ``FILE:LINE: KEY: MESSAGE`` (``FILE:
    KEY: MESSAGE`` for a problem of no one line)."""

    def __init__(self, path: str, problems: list[tuple[str, int | None, str]], files: list[str] | None = None):
        self.path = path
        self.problems = problems
        self.files = files or [path] * len(problems)
        lines = [f"{f}:{ln}: {key}: {msg}" if ln else f"{f}: {key}: {msg}"
                 for f, (key, ln, msg) in zip(self.files, problems)]
        where = path if set(self.files) <= {path} else f"{path} and the files it includes"
        super().__init__(f"{len(problems)} {plural(len(problems), 'problem')} in {where}:\n" + "\n".join(lines))


#: one problem found: ``(file, key, line, message)``
Problem = tuple[str, str, int | None, str]


def _spec_error(path: str, found: list[Problem]) -> SpecError:
    """The :class:`SpecError` of ``found``: the tournament file's problems
    first, then each included file's, each file's by line."""
    found = sorted(found, key=lambda p: (p[0] != path, p[0], p[2] is None, p[2] or 0))
    return SpecError(path, [(k, ln, msg) for _, k, ln, msg in found], [f for f, *_ in found])


@dataclass
class _Origin:
    """Where a bot of an included file was written: the file, its index
    there (its ``bots[N]``), and that file's key lines."""

    path: str
    index: int
    lines: dict[str, int]


@dataclass
class BotEntry:
    """One bot of a tournament: launched (``command``) or ``external`` (connects on its own),
    seated by its ``token``, or without one by its ``name`` (on a hosted referee, where it is
    registered under that name: :attr:`by_name`)."""

    name: str
    command: str = ""
    external: bool = False
    token: str = ""
    persistent: bool = False
    resources: list[str] = field(default_factory=list)  # Dask worker resources a match of this bot needs
    #: this bot's limits (the tournament's ``[limits]`` with its own overrides)
    limits: Limits | None = None
    #: where the bot is defined, ``"FILE:LINE"`` (its name's line; the included file's for a bot written there)
    where: str = ""

    @property
    def by_name(self) -> bool:
        """An external bot without a token: seated by the name it is registered under on a hosted referee."""
        return self.external and not self.token


@dataclass
class TrueSkillParams:
    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10


@dataclass
class TournamentSpec:
    """A validated tournament file. Durations in milliseconds."""

    name: str
    game: str
    players: int
    bots: list[BotEntry]
    schedule: str = "round_robin"
    games: int = 1
    #: seat orders of a group: "balanced" (every order up to 4 seats, a cyclic design beyond) or "all"
    seatings: str = "balanced"
    #: a sampled schedule's length: matches each bot plays (rounded up to whole blocks when duplicate)
    matches_per_bot: int = 0
    #: every group of a repetition (round robin) or round (sampled) plays the same deals
    duplicate: bool = False
    until: str = ""               # "" = the fixed schedule; "separated" = adaptive (see tournaments.adaptive)
    confidence: float = 0.95      # adjacent pairs count as separated at this probability
    max_matches: int = 0          # budget of an adaptive schedule (matches in all)
    seed: int = 1
    concurrency: int = field(default_factory=lambda: os.cpu_count() or 1)
    database: str = "runs/referee.sqlite"
    log_dir: str = "runs/logs"
    port: int = 0
    variant: dict[str, Any] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    decision_ms: int = 1000
    bank_ms: int = 0
    fault_policy: str = "default_action"
    max_faults: int = 5
    connect_timeout_ms: int = 15000
    #: after a match, how long its launched bots may take to exit by themselves before SIGTERM
    end_grace_ms: int = 2000
    trueskill: TrueSkillParams = field(default_factory=TrueSkillParams)
    limits: Limits = field(default_factory=Limits)
    base_dir: str = "."
    executor: str = "local"  # where matches run: local (this process) or dask (a Dask cluster)
    scheduler: str = ""  # the Dask scheduler's address, e.g. tcp://10.0.0.5:8786
    #: ``"wall"`` or ``"cpu"`` (see referee.runner.CLOCKS)
    clock: str = "wall"
    bot_uids: str = "auto"
    isolate_network: bool = False
    #: the directory relative paths of bot commands are taken from (where the run started)
    cwd: str = field(default_factory=os.getcwd)
    #: the tournament file, an absolute path ("" for a document not read from a file); stored, so that
    #: ``tournament status`` can give the command that resumes it
    file: str = ""
    #: the run's ``--referee HOST:PORT`` ("": matches on this machine), ``--tls-ca`` file and
    #: ``--admin-token-file`` (absolute paths, "" for none; a ladder's: its own admin token's), and a
    #: ladder's ``--referee-admin-token-file``, stored (updated by each run) for the same command;
    #: the paths only, never an admin token
    referee: str = ""
    tls_ca: str = ""
    admin_token_file: str = ""
    referee_admin_token_file: str = ""
    #: the run had the admin token (of the referee it played on; a ladder's own) from the environment,
    #: ``REFEREE_ADMIN_TOKEN``, and no token file: the continue command needs it set again (never the token)
    admin_token_env: bool = False

    def fingerprint(self) -> str:
        """Hash of everything that determines the matches and ratings (not
        concurrency, paths or ports), so ``--resume`` can refuse a changed file."""
        d = _fingerprinted(asdict(self))
        d["schedule_design"] = SCHEDULE_DESIGN
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]

    def changes_from(self, stored: dict[str, Any]) -> list[str]:
        """What differs, among what :meth:`fingerprint` covers, between the
        spec a tournament was stored with (``stored``: its
        :meth:`public_json`) and this one, one phrase each: bots added,
        removed or changed (by name; a new bot with where it is defined),
        a different order of the bots, then each setting with its old and
        new value, by its dotted key in the file (``seed: 9 -> 10``,
        ``clock.decision_ms: 1000 -> 800``). Tokens are never named. Empty
        when only the referee version's schedule design differs."""
        old, new = _fingerprinted(stored), _fingerprinted(asdict(self))
        for d in (old, new):
            d.setdefault("clock", "wall")  # the fingerprint leaves the default out
        if not old.get("schedule") == new.get("schedule") == "sampled":
            old.pop("duplicate", None)  # follows from the schedule's kind, which says it
            new.pop("duplicate", None)
        where = {b.name: b.where for b in self.bots}
        old_bots = {b.get("name"): b for b in old.pop("bots", [])}
        new_bots = {b.get("name"): b for b in new.pop("bots", [])}
        out: list[str] = []
        added = [n for n in new_bots if n not in old_bots]
        removed = [n for n in old_bots if n not in new_bots]
        if added:
            out.append(f"{plural(len(added), 'bot')} added: "
                       + _listed([f"{n} ({where[n]})" if where.get(n) else str(n) for n in added]))
        if removed:
            out.append(f"{plural(len(removed), 'bot')} removed: " + _listed([str(n) for n in removed]))
        for n, b in new_bots.items():
            if n in old_bots and old_bots[n] != b:
                what = "; ".join(f"{k} {_shown(old_bots[n].get(k))} -> {_shown(b.get(k))}"
                                 for k in sorted(set(b) | set(old_bots[n])) if old_bots[n].get(k) != b.get(k))
                out.append(f"bot {n} changed ({what})")
        kept = [n for n in new_bots if n in old_bots]
        if kept != [n for n in old_bots if n in new_bots]:
            out.append("the bots are in another order (the order of the file and its includes)")
        return out + _setting_changes(old, new)

    def resume_changes(self, stored: dict[str, Any]) -> list[str]:
        """What differs, among the settings that may change before a
        ``--resume`` (those :meth:`fingerprint` leaves out but the paths and
        the database), between the spec a tournament was stored with
        (``stored``: its :meth:`public_json`) and this one, one phrase each
        with its dotted key in the file and its old and new value
        (``clock.connect_timeout_ms: 15000 -> 5000``), then each bot whose
        limits, resources or way of being seated changed (``bot dave
        changed (seated_by "name" -> "token")``). Tokens are never named."""
        now = self.public_json()
        old = {k: v for k, v in stored.items() if k in _RESUMABLE}
        new = {k: v for k, v in now.items() if k in _RESUMABLE}
        out = _setting_changes(old, new)
        old_bots = {b.get("name"): b for b in stored.get("bots", []) if isinstance(b, dict)}
        for b in now["bots"]:
            was = old_bots.get(b["name"])
            if was is None:
                continue
            was, b = dict(was), dict(b)
            if was.get("limits") is None and b.get("limits") is None:
                was.pop("limits", None)  # both under [limits]: a change of it is said once, above
                b.pop("limits", None)
            else:  # its own limits on one side at least: compared with what it had, [limits] or its own
                was["limits"] = was.get("limits") or stored.get("limits")
                b["limits"] = b.get("limits") or now["limits"]
            flat_old = _flat({k: was[k] for k in _BOT_RESUMABLE if was.get(k) is not None})
            flat_new = _flat({k: b[k] for k in _BOT_RESUMABLE if b.get(k) is not None})
            what = "; ".join(f"{k} {_shown(flat_old.get(k, _UNSET))} -> {_shown(flat_new.get(k, _UNSET))}"
                             for k in sorted(set(flat_old) | set(flat_new))
                             if flat_old.get(k, _UNSET) != flat_new.get(k, _UNSET))
            if what:
                out.append(f"bot {b['name']} changed ({what})")
        return out

    def public_json(self) -> dict[str, Any]:
        """The spec as stored in the results database: external bots' tokens
        and the database password are not in it; each external bot's
        ``seated_by`` says how it is seated, ``"token"`` (its token shown as
        ``"***"``) or ``"name"`` (no token: by its name on a hosted referee)."""
        d = asdict(self)
        d["database"] = mask_url(self.database)
        for b in d["bots"]:
            if b.get("token"):
                b["token"] = "***"
            if b.get("external"):
                b["seated_by"] = "token" if b.get("token") else "name"
            b.pop("where", None)
        return d


#: the settings that do not change a tournament's matches or ratings (left out of its fingerprint)
_NOT_FINGERPRINTED = ("concurrency", "database", "log_dir", "port", "base_dir", "limits", "connect_timeout_ms",
                      "end_grace_ms", "bot_uids", "isolate_network", "cwd", "executor", "scheduler", "file",
                      "referee", "tls_ca", "admin_token_file", "referee_admin_token_file",
                      "admin_token_env")
_UNSET = object()
#: the settings of :data:`_NOT_FINGERPRINTED` a ``--resume`` says it sees changed (not the paths or the database)
_RESUMABLE = ("concurrency", "log_dir", "port", "limits", "connect_timeout_ms", "end_grace_ms", "bot_uids",
              "isolate_network", "executor", "scheduler")
#: likewise of each bot (its token is never shown: only how it is seated)
_BOT_RESUMABLE = ("seated_by", "resources", "limits")
#: the dotted key in the file of each setting whose :class:`TournamentSpec` field is named otherwise
_FILE_KEYS = {"seatings": "schedule.seatings", "matches_per_bot": "schedule.matches_per_bot",
              "duplicate": "schedule.duplicate", "until": "schedule.until", "confidence": "schedule.confidence",
              "max_matches": "schedule.max_matches", "decision_ms": "clock.decision_ms", "bank_ms": "clock.bank_ms",
              "connect_timeout_ms": "clock.connect_timeout_ms", "end_grace_ms": "clock.end_grace_ms",
              "clock": "clock.kind", "fault_policy": "faults.policy", "max_faults": "faults.max_faults",
              "bot_uids": "sandbox.bot_uids", "isolate_network": "sandbox.isolate_network",
              "executor": "execution.executor", "scheduler": "execution.scheduler"}


def _setting_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """Each setting that differs between two specs (as dicts, without their
    bots), ``"key: old -> new"`` by its dotted key in the file, sorted by it."""
    flat_old = {_FILE_KEYS.get(k, k): v for k, v in _flat(old).items()}
    flat_new = {_FILE_KEYS.get(k, k): v for k, v in _flat(new).items()}
    return [f"{k}: {_shown(flat_old.get(k, _UNSET))} -> {_shown(flat_new.get(k, _UNSET))}"
            for k in sorted(set(flat_old) | set(flat_new)) if flat_old.get(k, _UNSET) != flat_new.get(k, _UNSET)]


def _fingerprinted(spec: dict[str, Any]) -> dict[str, Any]:
    """What :meth:`TournamentSpec.fingerprint` hashes of ``spec`` (its
    ``asdict`` or its stored :meth:`~TournamentSpec.public_json`), a copy."""
    d = {k: v for k, v in spec.items() if k not in _NOT_FINGERPRINTED}
    if d.get("clock") == "wall":
        d.pop("clock")  # files from before the CPU clock keep their fingerprint
    d["bots"] = [{k: v for k, v in b.items() if k not in ("token", "seated_by", "resources", "limits", "where")}
                 for b in d.get("bots", [])]
    if not d.get("until"):
        for k in ("until", "confidence", "max_matches"):
            d.pop(k, None)
    return d


def _flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"trueskill": {"mu": 25}}`` -> ``{"trueskill.mu": 25}``."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _shown(v: Any) -> str:
    """A setting's value as written in a TOML file (``"cpu"``, ``10``, ``true``), or ``(not set)``."""
    return "(not set)" if v is _UNSET or v is None else json.dumps(v)


def _listed(items: list[str]) -> str:
    """The first few of ``items``, joined, with "and N more"."""
    more = f" and {len(items) - _LISTED} more" if len(items) > _LISTED else ""
    return ", ".join(items[:_LISTED]) + more


_BARE_KEY = r"[A-Za-z0-9_\-]+"
_KEY_PART = re.compile(rf'\s*(?:({_BARE_KEY})|"((?:[^"\\]|\\.)*)"|\'([^\']*)\')\s*')


def _parse_key(text: str, pos: int = 0) -> tuple[list[str], int] | None:
    """A TOML key at ``text[pos:]`` (bare, quoted or dotted): ``(parts, end)``, or ``None``."""
    parts: list[str] = []
    while True:
        m = _KEY_PART.match(text, pos)
        if not m or m.end() == pos:
            return None
        parts.append(next(g for g in m.groups() if g is not None))
        pos = m.end()
        if pos < len(text) and text[pos] == ".":
            pos += 1
            continue
        return parts, pos


def _inline_keys(text: str, pos: int, prefix: str, line: int, out: dict[str, int]) -> None:
    """Keys of an inline table starting at ``text[pos] == "{"`` (nested ones too)."""
    depth_prefix = [prefix]
    i = pos + 1
    expect_key = True
    while i < len(text) and depth_prefix:
        c = text[i]
        if c in " \t,":
            expect_key = expect_key or c == ","
            i += 1
        elif c == "}":
            depth_prefix.pop()
            expect_key = False
            i += 1
        elif c in "\"'" and not expect_key:  # a string value: skip it
            j = text.find(c, i + 1)
            i = len(text) if j < 0 else j + 1
        elif expect_key and (k := _parse_key(text, i)) is not None and text[k[1]:k[1] + 1] == "=":
            key = ".".join([depth_prefix[-1], *k[0]])
            out.setdefault(key, line)
            i = k[1] + 1
            while i < len(text) and text[i] in " \t":
                i += 1
            if i < len(text) and text[i] == "{":
                depth_prefix.append(key)
                i += 1
                expect_key = True
            else:
                expect_key = False
        else:
            i += 1


def _key_lines(text: str) -> dict[str, int]:
    """Map dotted keys to their line: ``"game"``, ``"clock.decision_ms"``,
    ``"bots[1].command"``, tables ``"clock"`` / ``"bots[1]"`` to their header
    line. Every TOML form of a key counts: bare, quoted and dotted keys
    (``clock.decision_ms = 5``, ``"name" = ...``), table headers with them,
    and the keys of inline tables (``clock = { decision_ms = 5 }``); a
    table under an array's element (``[bots.limits]`` after ``[[bots]]``) is
    ``"bots[N].limits"``."""
    out: dict[str, int] = {}
    prefix = ""
    arrays: dict[str, int] = {}
    for i, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[["):
            k = _parse_key(line, 2)
            if k:
                name = ".".join(k[0])
                idx = arrays.get(name, -1) + 1
                arrays[name] = idx
                prefix = f"{name}[{idx}]"
                out.setdefault(prefix, i)
            continue
        if line.startswith("["):
            k = _parse_key(line, 1)
            if k:
                # [bots.limits] after [[bots]]: a table of the array's last element, bots[N].limits
                head = f"{k[0][0]}[{arrays[k[0][0]]}]" if k[0][0] in arrays else k[0][0]
                prefix = ".".join([head, *k[0][1:]])
                out.setdefault(prefix, i)
            continue
        k = _parse_key(line)
        if k is None or line[k[1]:k[1] + 1] != "=":
            continue
        key = ".".join([prefix, *k[0]] if prefix else k[0])
        for n in range(1, len(k[0])):  # the implied tables of a dotted key
            out.setdefault(".".join(([prefix] if prefix else []) + k[0][:n]), i)
        out.setdefault(key, i)
        rest = line[k[1] + 1:].lstrip()
        if rest.startswith("{"):
            _inline_keys(rest, 0, key, i, out)
    return out


#: tomllib's messages of the common mistakes (a regular expression on its text) and what to tell people
_SYNTAX_HINTS: tuple[tuple[str, str], ...] = (
    (r"^Illegal character '\\n'", "a string is not closed on this line: add its closing quote"),
    (r"^Unterminated string|^Expected \"'\"", "a string is never closed: add its closing quote"),
    (r"^Cannot overwrite a value", "{key}is given twice: keep one (a key is set once per table)"),
    (r"^Cannot declare \((.*)\) twice", "the table {table} is declared twice: merge the two into one"),
    (r"^Expected '=' after a key", "a key without '=': write key = value (strings in quotes)"),
    (r"^Expected '\]\]' at the end", "a [[...]] header is not closed: end it with ]]"),
    (r"^Expected '\]' at the end", "a [...] header is not closed: end it with ]"),
    (r"^Unclosed array", "a list is not closed: end it with ]"),
    (r"^Unclosed inline table", "an inline table is not closed: end it with } on the same line"),
    (r"^Invalid value", "a value is missing or is not TOML (a string needs quotes: game = \"doudizhu\"; "
     "or a list above is not closed with ])"),
)


def syntax_problem(e: tomllib.TOMLDecodeError, text: str) -> tuple[int | None, str]:
    """The line (from 1; the last line for an error "at end of document";
    ``None`` if unknown) and the message of a TOML syntax error in ``text``:
    a plain hint for the common mistakes (a string not closed, a key given
    twice, a missing ``=``, a bracket not closed) with the column, else
    tomllib's own message."""
    raw = str(e)
    m = re.search(r"\(at line (\d+), column (\d+)\)$", raw)
    lines = text.splitlines()
    line = int(m.group(1)) if m else (len(lines) or 1) if raw.endswith("(at end of document)") else None
    where = f" (column {m.group(2)})" if m else ""
    for pattern, hint in _SYNTAX_HINTS:
        h = re.match(pattern, raw)
        if h is None:
            continue
        key = ""
        if "{key}" in hint and line is not None and line <= len(lines):
            k = _parse_key(lines[line - 1].strip())
            key = f"{'.'.join(k[0])} " if k else ""
        table = "[" + ".".join(p.strip(" '\"") for p in h.group(1).split(",") if p.strip()) + "]" \
            if "{table}" in hint else ""
        return line, hint.replace("{key}", key or "a key ").replace("{table}", table) + where
    return line, raw


def load(path: str | Path, remote: bool = False) -> TournamentSpec:
    """Read and validate a tournament file and the files its ``include``
    names. Raises :class:`SpecError` listing every problem with file, key
    and line, or ``FileNotFoundError`` (the tournament file). ``remote``: the
    matches run on a running referee (``--referee``), so ``port`` is not needed
    and an external bot without a token is seated by its name."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(str(path), [("(syntax)", *syntax_problem(e, text))]) from None
    lines = _key_lines(text)
    found: list[Problem] = []
    origins: dict[int, _Origin] = {}
    if "include" in raw:
        raw = dict(raw)
        _include(path, raw.pop("include"), lines.get("include"), raw, origins, found)
    try:
        spec = parse(raw, str(path), lines, base_dir=str(path.parent), remote=remote, origins=origins)
    except SpecError as e:
        found += [(f, k, ln, msg) for f, (k, ln, msg) in zip(e.files, e.problems)]
    if found:
        raise _spec_error(str(path), found)
    spec.file = str(path.resolve())
    return spec


def _include(path: Path, patterns: Any, line: int | None, raw: dict[str, Any], origins: dict[int, _Origin],
             found: list[Problem]) -> None:
    """Append the ``[[bots]]`` of the files ``include`` names to ``raw["bots"]``.
    ``patterns``: glob patterns relative to the tournament file's directory
    (or absolute; ``**`` too), each file taken once, in pattern order, each pattern's
    matches sorted; ``origins`` gets, per index in ``raw["bots"]``, where
    that bot was written. A pattern matching no file, and an included file
    that is unreadable or holds anything but ``[[bots]]`` tables, go to
    ``found``."""
    main, base = str(path), path.parent
    if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) and p for p in patterns):
        found.append((main, "include", line,
                      f'must be a list of glob patterns, e.g. ["entries/*.toml"] (got {patterns!r})'))
        return
    files: dict[Path, None] = {}  # in order, each once
    for pattern in patterns:
        every = [base / m for m in sorted(glob.glob(pattern, root_dir=base, recursive=True))]
        matched = [m for m in every if m.is_file() and not m.samefile(path)]
        if not matched and any(m.is_file() for m in every):
            found.append((main, "include", line, f"{pattern!r} matches only the tournament file itself, which is "
                          "never included: put the entries in files of their own, e.g. entries/*.toml"))
        elif not matched and os.path.isabs(pattern):
            found.append((main, "include", line, f"{pattern!r} matches no file"))
        elif not matched:
            found.append((main, "include", line, f"{pattern!r} matches no file (patterns are relative to "
                          f"{base.resolve()}{os.sep}, the tournament file's directory)"))
        files.update(dict.fromkeys(matched))
    if not isinstance(raw.get("bots", []), list):
        return  # the tournament file's own bots are wrong: parse() says so
    bots = list(raw.get("bots", []))
    for f in files:
        try:
            text = f.read_text(encoding="utf-8")
            doc = tomllib.loads(text)
        except (OSError, UnicodeDecodeError) as e:
            found.append((str(f), "(file)", None, f"cannot read it: {getattr(e, 'strerror', None) or e}"))
            continue
        except tomllib.TOMLDecodeError as e:
            found.append((str(f), "(syntax)", *syntax_problem(e, text)))
            continue
        flines = _key_lines(text)
        for k in doc:
            if k != "bots":
                found.append((str(f), k, flines.get(k), "an included file holds only [[bots]] tables (the "
                              f"tournament's settings are in {main})"))
        fbots = doc.get("bots")
        if not isinstance(fbots, list) or not fbots:
            found.append((str(f), "bots", flines.get("bots", 1), "the file has no [[bots]] table: an included file "
                          "lists bots, each in a [[bots]] table with name and command"))
            continue
        for j, b in enumerate(fbots):
            origins[len(bots)] = _Origin(str(f), j, flines)
            bots.append(b)
    raw["bots"] = bots


def unknown_key(key: str, known: Any) -> str:
    """The problem of an unknown ``key`` of a table whose keys are ``known``
    (any iterable of names): ``unknown key (did you mean `command`?) (known: ...)``."""
    return f"unknown key{did_you_mean(key, known)} (known: {', '.join(sorted(known))})"


def _twin(table: dict[str, Any], key: str, known: Any) -> str:
    """For a missing required ``key`` of ``table`` (whose keys are ``known``):
    `` (`comand` looks like a misspelling of it)`` when one of its unknown keys is
    close to it, else ``""``."""
    close = get_close_matches(key, [k for k in table if k not in known], n=1)
    return f" (`{close[0]}` looks like a misspelling of it)" if close else ""


def parse(raw: dict[str, Any], path: str = "<tournament>", lines: dict[str, int] | None = None,
          base_dir: str = ".", remote: bool = False, fixed_schedule: bool = True,
          origins: dict[int, _Origin] | None = None, check_commands: bool = True) -> TournamentSpec:
    """Validate an already-parsed TOML document (see :func:`load`).
    ``remote``: see :func:`load`.
    ``check_commands = False``: the bots' commands are not checked
    (:func:`referee.botcommand.check_command`), for a reader that launches no bot.
    ``fixed_schedule = False`` (a ladder's file): the schedule's size is not checked.
    ``origins``: the bots (by index in ``raw["bots"]``) written in included
    files, whose problems are reported with that file, key and line."""
    lines = lines or {}
    origins = origins or {}
    found: list[Problem] = []

    def place(key: str) -> tuple[str, str, int | None]:
        """``(file, key, line)`` of a dotted key: a bot of an included file is that file's ``bots[N]``."""
        file, key_lines = path, lines
        m = re.match(r"bots\[(\d+)\]", key)
        if m and int(m.group(1)) in origins:
            o = origins[int(m.group(1))]
            file, key_lines, key = o.path, o.lines, f"bots[{o.index}]{key[m.end():]}"
        ln = key_lines.get(key)
        if ln is None and "." in key:
            ln = key_lines.get(key.rsplit(".", 1)[0])
        return file, key, ln

    def bad(key: str, msg: str) -> None:
        file, key, ln = place(key)
        found.append((file, key, ln, msg))

    def get(d: dict[str, Any], key: str, dotted: str, typ: type | tuple[type, ...], default: Any,
            check: Any = None, what: str = "") -> Any:
        if key not in d:
            return default
        v = d[key]
        ok_type = isinstance(v, typ) and not (isinstance(v, bool) and typ in (int, float, (int, float)))
        if not ok_type:
            tn = typ.__name__ if isinstance(typ, type) else " or ".join(t.__name__ for t in typ)
            bad(dotted, f"must be {tn}, got {v!r}")
            return default
        if check is not None and not check(v):
            bad(dotted, f"{what} (got {v!r})")
            return default
        return v

    known = {"name", "game", "players", "schedule", "games", "seed", "concurrency", "database", "log_dir",
             "port", "variant", "params", "clock", "faults", "trueskill", "limits", "sandbox", "execution", "bots"}
    for k in raw:
        if k not in known:
            bad(k, unknown_key(k, known))

    name = get(raw, "name", "name", str, "", lambda v: bool(_NAME_RE.match(v)),
               "must be 1-64 letters, digits, '_', '-', '.'")
    if "name" not in raw:
        bad("name", f"missing (a unique tournament name is required){_twin(raw, 'name', known)}")
    game = get(raw, "game", "game", str, "", lambda v: v in GAME_IDS, f"must be one of {', '.join(GAME_IDS)}")
    if "game" not in raw:
        bad("game", f"missing{_twin(raw, 'game', known)}")
    cls = None
    if game:
        try:
            cls = game_class(game)
        except UnknownGame as e:
            bad("game", str(e))
    players = get(raw, "players", "players", int, cls.player_counts[0] if cls else 0)
    if cls and players not in cls.player_counts:
        bad("players", f"{game} is played by {counts_text(cls.player_counts)} players, not {players}")
    schedule, until, confidence, max_matches = "round_robin", "", 0.95, 0
    seatings, matches_per_bot, duplicate = "balanced", 0, False
    if isinstance(raw.get("schedule"), dict):
        sched = raw["schedule"]
        table_keys = ("confidence", "duplicate", "kind", "matches_per_bot", "max_matches", "seatings", "until")
        for k in sched:
            if k not in table_keys:
                bad(f"schedule.{k}", unknown_key(k, table_keys))
        schedule = get(sched, "kind", "schedule.kind", str, "round_robin", lambda v: v in SCHEDULES,
                       f"must be one of {', '.join(SCHEDULES)}")
        seatings = get(sched, "seatings", "schedule.seatings", str, "balanced", lambda v: v in DESIGNS,
                       f"must be one of {', '.join(DESIGNS)} (\"all\": every seat order, k! per group)")
        if schedule == "sampled":
            matches_per_bot = get(sched, "matches_per_bot", "schedule.matches_per_bot", int, 0,
                                  lambda v: 1 <= v <= 1_000_000, "must be 1..1000000")
            duplicate = get(sched, "duplicate", "schedule.duplicate", bool, False)
            if "matches_per_bot" not in sched:
                bad("schedule", "a sampled schedule needs its length: matches_per_bot = K (matches each bot plays)"
                    + _twin(sched, "matches_per_bot", table_keys))
            if "games" in raw:
                bad("games", "a sampled schedule has no repetitions: matches_per_bot sets its length")
        else:
            for k in ("matches_per_bot", "duplicate"):
                if k in sched:
                    bad(f"schedule.{k}", 'only for kind = "sampled"' + (
                        ' (a round robin on the same deals is kind = "duplicate")' if k == "duplicate" else ""))
        until = get(sched, "until", "schedule.until", str, "", lambda v: v in UNTILS,
                    f"must be one of {', '.join(UNTILS)} (or leave it out for the fixed schedule)")
        confidence = float(get(sched, "confidence", "schedule.confidence", (int, float), 0.95,
                               lambda v: 0.5 <= v < 1, "must be in [0.5, 1), e.g. 0.95"))
        max_matches = get(sched, "max_matches", "schedule.max_matches", int, 0, lambda v: 1 <= v <= 1_000_000,
                          "must be 1..1000000")
        if until and "max_matches" not in sched:
            bad("schedule", 'until = "separated" needs a budget: max_matches = N (matches in all)'
                + _twin(sched, "max_matches", table_keys))
    else:
        schedule = get(raw, "schedule", "schedule", str, "round_robin", lambda v: v in SCHEDULES,
                       f"must be one of {', '.join(SCHEDULES)} (or a [schedule] table)")
        if schedule == "sampled":
            bad("schedule", 'a sampled schedule needs its length: a [schedule] table with kind = "sampled" '
                'and matches_per_bot = K')
    duplicate = duplicate or schedule == "duplicate"
    games = get(raw, "games", "games", int, 1, lambda v: 1 <= v <= 10_000, "must be 1..10000")
    seed = get(raw, "seed", "seed", int, 1, lambda v: 0 <= v < 2**63, "must be 0..2^63-1")
    concurrency = get(raw, "concurrency", "concurrency", int, os.cpu_count() or 1, lambda v: 1 <= v <= 256,
                      "must be 1..256")
    database = get(raw, "database", "database", str, os.environ.get("REFEREE_DB") or "runs/referee.sqlite")
    log_dir = get(raw, "log_dir", "log_dir", str, "runs/logs")
    port = get(raw, "port", "port", int, 0, lambda v: 0 <= v <= 65535, "must be 0..65535")
    variant = get(raw, "variant", "variant", dict, {})
    params = get(raw, "params", "params", dict, {})
    if cls is not None:
        for k, v in variant.items():
            if k not in cls.variant_defaults:
                bad(f"variant.{k}", f"unknown variant flag of {game}{did_you_mean(k, cls.variant_defaults)} "
                    f"(known: {', '.join(sorted(cls.variant_defaults)) or 'none'})")
        for k, v in params.items():
            if k not in cls.param_defaults:
                bad(f"params.{k}", f"unknown match parameter of {game}{did_you_mean(k, cls.param_defaults)} "
                    f"(known: {', '.join(sorted(cls.param_defaults)) or 'none'})")
        if players in cls.player_counts:
            # each flag and parameter on its own, so every bad value is reported in one pass,
            # then all of them together (for rules that tie several values)
            alone_ok = True
            for what, items in (("variant", variant), ("params", params)):
                for k, v in items.items():
                    if k not in (cls.variant_defaults if what == "variant" else cls.param_defaults):
                        alone_ok = False
                        continue
                    try:
                        cls(players, {k: v} if what == "variant" else {}, {k: v} if what == "params" else {},
                            random.Random(0))
                    except ValueError as e:
                        alone_ok = False
                        bad(f"{what}.{k}", str(e))
            if alone_ok:
                try:
                    cls(players, variant, params, random.Random(0))
                except ValueError as e:
                    bad("params" if "parameter" in str(e) else "variant", str(e))

    clock_kind = "wall"
    if isinstance(raw.get("clock"), str):  # clock = "cpu": the shorthand without a [clock] table
        clock_kind = get(raw, "clock", "clock", str, "wall", lambda v: v in CLOCKS, f"must be one of {', '.join(CLOCKS)}")
        raw = {k: v for k, v in raw.items() if k != "clock"}

    def table(key: str) -> dict[str, Any]:
        t = raw.get(key, {})
        if not isinstance(t, dict):
            bad(key, "must be a table")
            return {}
        return t

    clock, faults, ts, lim = table("clock"), table("faults"), table("trueskill"), table("limits")
    sbx = table("sandbox")
    execution = table("execution")
    for t, allowed, tn in ((clock, {"decision_ms", "bank_ms", "connect_timeout_ms", "end_grace_ms", "kind"}, "clock"),
                           (sbx, {"bot_uids", "isolate_network"}, "sandbox"),
                           (execution, {"executor", "scheduler"}, "execution"),
                           (faults, {"policy", "max_faults"}, "faults"),
                           (ts, {"mu", "sigma", "beta", "tau", "draw_probability"}, "trueskill"),
                           (lim, set(Limits.__dataclass_fields__), "limits")):
        for k in t:
            if k not in allowed:
                bad(f"{tn}.{k}", unknown_key(k, allowed))
    decision_ms = get(clock, "decision_ms", "clock.decision_ms", int, 1000, lambda v: 1 <= v <= 3_600_000,
                      "must be 1..3600000 ms")
    bank_ms = get(clock, "bank_ms", "clock.bank_ms", int, 0, lambda v: 0 <= v <= 36_000_000, "must be >= 0 ms")
    connect_ms = get(clock, "connect_timeout_ms", "clock.connect_timeout_ms", int, 15000,
                     lambda v: 100 <= v <= 600_000, "must be 100..600000 ms")
    end_grace_ms = get(clock, "end_grace_ms", "clock.end_grace_ms", int, 2000, lambda v: 0 <= v <= 600_000,
                       "must be 0..600000 ms")
    clock_kind = get(clock, "kind", "clock.kind", str, clock_kind, lambda v: v in CLOCKS,
                     f"must be one of {', '.join(CLOCKS)}")
    bot_uids = get(sbx, "bot_uids", "sandbox.bot_uids", str, "auto", _uids_ok,
                   'must be "auto", "off" or a uid range like "60000-60999"')
    isolate_network = get(sbx, "isolate_network", "sandbox.isolate_network", bool, False)
    policy = get(faults, "policy", "faults.policy", str, "default_action", lambda v: v in FAULT_POLICIES,
                 f"must be one of {', '.join(FAULT_POLICIES)}")
    max_faults = get(faults, "max_faults", "faults.max_faults", int, 5, lambda v: v >= 1, "must be >= 1")
    tsp = TrueSkillParams()
    for k in ("mu", "sigma", "beta", "tau"):
        setattr(tsp, k, float(get(ts, k, f"trueskill.{k}", (int, float), getattr(tsp, k), lambda v: v >= 0,
                                  "must be >= 0")))
    tsp.draw_probability = float(get(ts, "draw_probability", "trueskill.draw_probability", (int, float),
                                     tsp.draw_probability, lambda v: 0 <= v < 1, "must be in [0, 1)"))
    if tsp.sigma <= 0 or tsp.beta <= 0:
        bad("trueskill", "sigma and beta must be > 0")
    executor = get(execution, "executor", "execution.executor", str, "local", lambda v: v in EXECUTORS,
                   f"must be one of {', '.join(EXECUTORS)}")
    scheduler = get(execution, "scheduler", "execution.scheduler", str, "", is_scheduler_address,
                    "must be a scheduler address like tcp://HOST:8786")
    limits = Limits()
    for k in Limits.__dataclass_fields__:
        setattr(limits, k, get(lim, k, f"limits.{k}", int, getattr(limits, k), lambda v: v >= 0, "must be >= 0"))

    cwd = os.getcwd()
    bots: list[BotEntry] = []
    raw_bots = raw.get("bots")
    if not isinstance(raw_bots, list) or not raw_bots:
        bad("bots", "missing: list each bot in a [[bots]] table with name and command (here, or in the files "
            "include names)")
        raw_bots = []
    seen: dict[str, str] = {}  # name -> where it was first given, "file:line"
    for i, b in enumerate(raw_bots):
        key = f"bots[{i}]"
        if not isinstance(b, dict):
            bad(key, "must be a table")
            continue
        for k in b:
            if k not in _BOT_KEYS:
                bad(f"{key}.{k}", unknown_key(k, _BOT_KEYS))
        bname = get(b, "name", f"{key}.name", str, "", lambda v: bool(_NAME_RE.match(v)),
                    "must be 1-64 letters, digits, '_', '-', '.'")
        bfile, _, bline = place(f"{key}.name")
        bline = bline or place(key)[2]  # a bot without a name: its [[bots]] line
        where = f"{bfile}:{bline}" if bline else bfile
        if "name" not in b:
            bad(f"{key}", f"bot without a name{_twin(b, 'name', _BOT_KEYS)}")
        elif bname in seen:
            bad(f"{key}.name", f"duplicate bot name {bname!r} (also at {seen[bname]})")
        else:
            seen[bname] = where
        external = get(b, "external", f"{key}.external", bool, False)
        command = get(b, "command", f"{key}.command", str, "")
        token = get(b, "token", f"{key}.token", str, "")
        persistent = get(b, "persistent", f"{key}.persistent", bool, False)
        resources = get(b, "resources", f"{key}.resources", list, [],
                        lambda v: all(isinstance(x, str) and _NAME_RE.match(x) for x in v),
                        "must be a list of resource names, e.g. [\"java\"]")
        own_limits = None
        if "limits" in b:
            lb = get(b, "limits", f"{key}.limits", dict, {})
            lim_problems = Limits.problems(lb)
            for k, msg in lim_problems:
                bad(f"{key}.limits.{k}", msg)
            if not lim_problems:
                own_limits = limits.override(lb)
            if external and lb:
                bad(f"{key}.limits", "an external bot is not launched by the referee: limits do not apply")
        if external:
            if not token and not fixed_schedule:  # a ladder seats its external bots by token only
                bad(f"{key}.token", f"an external bot needs a token{_twin(b, 'token', _BOT_KEYS)}")
            elif not token and not remote:  # reported at BotEntry.where, its name's line
                tfile, tkey, _ = place(f"{key}.token")
                found.append((tfile, tkey, bline,
                              f"external bot {bname or '(no name)'} has no token{_twin(b, 'token', _BOT_KEYS)}: give "
                              "token = \"...\", or run on a hosted referee with --referee where the bot is "
                              "registered by this name"))
            if command:
                bad(f"{key}.command", "an external bot has no command (it connects on its own)")
        elif not command.strip():
            bad(f"{key}.command",
                f"missing (or set external = true with a token){_twin(b, 'command', _BOT_KEYS)}")
        elif check_commands and (why := check_command(command, Path(cwd))) is not None:
            bad(f"{key}.command", why)
        bots.append(BotEntry(bname, command, external, token, persistent, resources=list(resources), limits=own_limits,
                             where=where))
    if cls is not None and players and len(bots) < players:
        bad("bots[0]" if bots else "bots", f"{len(bots)} bot(s) for {players}-player matches: need at least {players}")
    if fixed_schedule and cls is not None and players in cls.player_counts and len(bots) >= players:
        first = schedule_size(len(bots), players, schedule, games, seatings, matches_per_bot, duplicate)
        if schedule != "sampled" and first > ROUND_ROBIN_LIMIT:
            bad("schedule", f"a round robin of {len(bots)} bots in {players} seats is {first:,} matches "
                f"(every combination, {block_size(players, seatings)} seat orders each, {games} time(s)), over "
                f"the limit of {ROUND_ROBIN_LIMIT:,}: use a [schedule] table with kind = \"sampled\" and "
                "matches_per_bot = K")
        if until and max_matches and max_matches < first:
            bad("schedule.max_matches", f"is below the first full schedule ({first} matches)")
    externals = [b for b in bots if b.external]
    if externals and port == 0 and not remote:
        named = _listed([f"{b.name or '(no name)'} ({b.where})" for b in externals])
        bad("port", f"external bots need a fixed port to connect to: {named}; set port = N in {path} "
            "(the port they connect to), or run the tournament on a hosted referee with --referee HOST:PORT")
    if executor == "dask" and any(b.external for b in bots):
        bad("execution.executor", "external bots connect to this machine's referee: they cannot play on a "
            "Dask cluster (use executor = \"local\")")

    if found:
        raise _spec_error(path, found)
    return TournamentSpec(
        name=name, game=game, players=players, bots=bots, schedule=schedule, games=games, seed=seed,
        seatings=seatings, matches_per_bot=matches_per_bot, duplicate=duplicate,
        until=until, confidence=confidence, max_matches=max_matches,
        concurrency=concurrency, database=database, log_dir=log_dir, port=port, variant=variant,
        params=params, decision_ms=decision_ms, bank_ms=bank_ms, fault_policy=policy, max_faults=max_faults,
        connect_timeout_ms=connect_ms, end_grace_ms=end_grace_ms, trueskill=tsp, limits=limits, base_dir=base_dir, clock=clock_kind,
        bot_uids=bot_uids, isolate_network=isolate_network, cwd=cwd, executor=executor, scheduler=scheduler)


def command_labels(bots: list[BotEntry]) -> dict[str, str]:
    """Who runs each command of the launched ``bots``, for messages about a
    command: ``{"python a.py": "bot e02 (entries/e02.toml:2)"}`` (``"bots
    a (FILE:LINE), b (FILE:LINE)"`` when several run the same one)."""
    by_command: dict[str, list[BotEntry]] = {}
    for b in bots:
        if not b.external:
            by_command.setdefault(b.command, []).append(b)
    return {cmd: f"{plural(len(bs), 'bot')} " + ", ".join(f"{b.name} ({b.where})" if b.where else b.name for b in bs)
            for cmd, bs in by_command.items()}


def schedule_size(bots: int, players: int, schedule: str, games: int = 1, seatings: str = "balanced",
                  matches_per_bot: int = 0, duplicate: bool = False) -> int:
    """Matches of a fixed schedule (before any ``until`` block), computed
    without building it. Round robin and duplicate: every combination of
    ``players`` of the ``bots``, each in every seat order of its block,
    ``games`` times. Sampled: ``ceil(bots * K / players)`` groups of one match
    each (``K = matches_per_bot``); duplicate: ``ceil(bots * R / players)``
    groups of a whole block each, ``R = ceil(K / block)``
    (:mod:`tournaments.sampled`)."""
    block = block_size(players, seatings)
    if schedule != "sampled":
        return math.comb(bots, players) * block * games
    if not duplicate:
        return group_count(bots, players, matches_per_bot)
    return group_count(bots, players, math.ceil(matches_per_bot / block)) * block


_SCHEDULER_RE = re.compile(r"^(?:(?:tcp|tls)://)?(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.\-]+):(\d{1,5})$")


def is_scheduler_address(v: str) -> bool:
    """A Dask scheduler address: ``tcp://HOST:PORT`` (or ``tls://``, or bare
    ``HOST:PORT``; an IPv6 host in brackets), port 1-65535."""
    m = _SCHEDULER_RE.match(v)
    return m is not None and 1 <= int(m.group(1)) <= 65535


def _uids_ok(v: str) -> bool:
    if v in ("auto", "off"):
        return True
    try:
        parse_uid_range(v)
        return True
    except ValueError:
        return False
