"""What is particular to a game lives in its package (docs/adding-a-game.md):

* every implemented game provides the modules the registry hands out (the
  engine, its view, its conformance queries, its metadata, its replay
  renderer, its environments' module) with what their callers use, and its
  metadata reads the summary and the log events its engine really writes;
* no Python source outside the game packages names a game id, except the
  registry and the examples listed in :data:`ALLOWED`, so adding a game
  asks for no edit of the code around the games;
* a toy game package kept outside ``referee/games/`` (``tests/toy_game/toy``),
  once its directory is on the registry's package path and its id in
  ``GAME_IDS``, is accepted by the engine contract checks, the tournaments'
  outcomes and role tables, the summary lines of ``referee match`` and the
  replay pages, with no other edit. (It has no view and no environments'
  module: a game's messages are members of ``referee.proto``'s oneofs, so
  the wire and the environments need the game's ``.proto`` and regenerated
  stubs, the one step outside the package.)
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import sys
from pathlib import Path

import pytest

import referee.games
from conftest import ROOT
from referee import protocol
from referee.engine import seeded_rng
from referee.games import (
    GAME_IDS,
    conformance_module,
    envs_module,
    game_class,
    game_meta,
    implemented,
    replay_module,
    view_module,
)
from referee.games.metakit import GameMeta, RoleEvent
from referee.summary import round_lines
from referee.web.replay import build_replay, read_log
from referee.web.site import game_label, replay_page
from referee.web.table import Table, table_class
from test_engine_contract import PARAMS, check_legal_vs_validate, check_playouts
from tournaments.aggregates import ROLE_COLUMNS, Totals
from tournaments.details import tables
from tournaments.outcomes import teams_of

TOY_DIR = Path(__file__).parent / "toy_game"


# ----------------------------------------------------------------------------- every game's package
@pytest.mark.parametrize("game", implemented())
def test_every_game_package_provides_what_the_layers_use(game: str) -> None:
    cls = game_class(game)
    assert cls.name == game
    view = view_module(game)
    assert callable(view.observation) and callable(view.event_message)
    assert conformance_module(game).QUERIES
    meta = game_meta(game)
    assert isinstance(meta, GameMeta) and meta.label and meta.short_label and meta.role_note
    assert all(meta.role_events({}, n) == [] for n in cls.player_counts)
    assert list(meta.round_lines([], [])) == []
    renderer = replay_module(game).TABLE
    assert issubclass(renderer, Table) and renderer.EVENT is not None and table_class(game) is renderer
    envs = envs_module(game)
    assert envs.PLAYERS in cls.player_counts and isinstance(envs.BID_AMOUNTS, tuple)
    assert callable(envs.encode) and callable(envs.match_scores)


@pytest.mark.parametrize("game", implemented())
def test_meta_reads_what_the_engine_writes(game: str) -> None:
    """A random match of every player count: the round lines come from its
    public events as the log writes them, the role events from its summary."""
    meta = game_meta(game)
    for n in game_class(game).player_counts:
        g = game_class(game)(n, {}, PARAMS.get(game, {}), seeded_rng(n))
        rng = random.Random(n)
        public = []
        while True:
            public += [protocol.event_json(game, ev) for ev in g.pop_events() if ev.to is None]
            if g.to_act is None:
                break
            g.apply(g.to_act, rng.choice(g.legal_actions().actions))
        names = [f"bot{s}" for s in range(n)]
        lines = list(meta.round_lines(public, names))
        assert lines and all(isinstance(x, str) and x.startswith("round ") for x in lines), lines
        summary = json.loads(json.dumps(g.result().summary))  # as stored
        roles = meta.role_events(summary, n)
        assert all(isinstance(e, RoleEvent) and 0 <= e.seat < n and e.role for e in roles)
        assert all(e.won is None or isinstance(e.won, bool) for e in roles)
        assert all((e.value is None) == (meta.value is None) for e in roles)


# ----------------------------------------------------------------------------- no game id elsewhere
ALL = frozenset(GAME_IDS)
#: Python sources outside the game packages that may name a game id: path (a
#: folder ends with "/") -> (the ids, why). None needs an edit for a new game.
ALLOWED: dict[str, tuple[frozenset[str], str]] = {
    "referee/games/__init__.py": (ALL, "the registry: GAME_IDS"),
    "referee/cli.py": (frozenset({"doudizhu"}), "an example tournament file in a --help text"),
    "referee/laddercli.py": (frozenset({"doudizhu"}), "an example ladder file in a --help text"),
    "referee/botnew.py": (frozenset({"doudizhu"}), "the example command printed for a new bot"),
    "referee/initcli.py": (frozenset({"doudizhu"}), "the example tournament file `referee init` tells to run"),
    "referee/templates/python_bot.py": (frozenset({"doudizhu"}), "the template of a new bot: a sample bot"),
    "tournaments/spec.py": (frozenset({"doudizhu"}), "the example tournament file of its docstring"),
    "bench/": (ALL, "benchmarks: the games they measure, at which length and against which peer "
                    "(a game they do not list is not measured)"),
}
SCANNED = ("referee", "tournaments", "bench")


def _mentions(text: str) -> set[str]:
    return {g for g in GAME_IDS if re.search(rf"(?<![A-Za-z0-9]){g}(?![A-Za-z0-9])", text)}


def _allowed(rel: str) -> frozenset[str]:
    parts = rel.split("/")
    if parts[:2] == ["referee", "games"] and len(parts) > 3 and parts[2] in GAME_IDS:
        return frozenset({parts[2]})  # a game's own package names itself
    for path, (ids, _why) in ALLOWED.items():
        if rel == path or (path.endswith("/") and rel.startswith(path)):
            return ids
    return frozenset()


def test_no_source_outside_the_game_packages_names_a_game() -> None:
    found = {}
    for top in SCANNED:
        for p in sorted((ROOT / top).rglob("*.py")):
            rel = p.relative_to(ROOT).as_posix()
            extra = _mentions(p.read_text(encoding="utf-8")) - _allowed(rel)
            if extra:
                found[rel] = sorted(extra)
    assert not found, f"per-game knowledge outside the game packages: {found}"


def test_the_scan_sees_a_game_id_and_only_ids() -> None:
    assert _mentions('if game == "back_alley":') == {"back_alley"}
    assert _mentions("from cardgames.v1 import smear_pb2") == {"smear"}
    assert _mentions("ROLES = ('vice_president',)") == {"president"}
    assert _mentions("doudizhus tractors BackAlley") == set()
    assert _allowed("referee/games/smear/meta.py") == {"smear"} and _allowed("referee/web/site.py") == set()


# ----------------------------------------------------------------------------- a toy game, added from outside
@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch):
    """The toy game ``toy`` registered: its folder on the package path of
    :mod:`referee.games`, its id in ``GAME_IDS``; undone afterwards."""
    monkeypatch.setattr(referee.games, "__path__", [*referee.games.__path__, str(TOY_DIR)])
    monkeypatch.setattr(referee.games, "GAME_IDS", (*GAME_IDS, "toy"))
    monkeypatch.setattr(referee.games, "_PARTS", {})
    yield "toy"
    for name in [m for m in sys.modules if m == "referee.games.toy" or m.startswith("referee.games.toy.")]:
        del sys.modules[name]


def _toy_log(path: Path, players: int, seed: int) -> Path:
    """A match of the toy played with random legal actions, written as the
    runner writes a match log (header, events, decisions, result); the
    events' JSON is each record's fields, which is what the game's ``.proto``
    messages would give."""
    g = game_class("toy")(players, {}, {}, seeded_rng(seed))
    rng = random.Random(seed)
    names = [f"bot{s}" for s in range(players)]
    spec = {"game": "toy", "players": players, "seat_names": names, "match_id": f"toy-{seed}", "seed": seed,
            "params": {}, "variant": {}}
    lines: list[dict] = [{"type": "header", "format": 1, "spec": spec, "ruleset": g.ruleset}]

    def events() -> None:
        for ev in g.pop_events():
            kind = re.sub(r"(?<!^)(?=[A-Z])", "_", type(ev.record).__name__).lower()
            fields = {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(ev.record).items()}
            lines.append({"type": "event", "to": ev.to, "event": {kind: fields}})

    events()
    while (seat := g.to_act) is not None:
        action = rng.choice(g.legal_actions().actions)
        lines.append({"type": "decision", "seat": seat, "kind": g.decision_kind(), "applied": action.to_json(),
                      "fault": None, "rule": ""})
        g.apply(seat, action)
        events()
    r = g.result()
    lines.append({"type": "result", "status": "complete", "scores": r.scores, "ranks": r.ranks,
                  "summary": r.summary, "faults": [], "forfeited": []})
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


def test_a_toy_game_from_outside_needs_no_other_edit(toy: str, tmp_path: Path) -> None:
    assert toy in referee.games.implemented()
    for n in game_class(toy).player_counts:
        check_playouts(toy, n)
        check_legal_vs_validate(toy, n)
    assert teams_of(toy, 3) == ((0,), (1,), (2,))

    log = _toy_log(tmp_path / "toy.jsonl", 3, seed=5)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    result = lines[-1]
    rounds = game_class(toy).param_defaults["rounds"]
    t = Totals()
    t.add(toy, 3, [10, 11, 12], "complete", result)
    assert sum(v[0] for v in t.role.values()) == rounds  # one leader per round
    rows = [{"bot_id": b, "role": ro, **dict(zip(ROLE_COLUMNS, v))} for (b, ro), v in t.role.items()]
    summary = tables({10: "a", 11: "b", 12: "c"}, toy, 3, [], rows, [])["role_summary"]
    assert [set(x) for x in summary] == [{"role", "rounds", "won_rate"}] and summary[0]["role"] == "leader"

    said = round_lines(toy, str(log), ["a", "b", "c"])
    assert len(said) == rounds and said[-1].endswith(f"scores [{' '.join(str(int(x)) for x in result['scores'])}]")

    parsed = read_log(log)
    assert game_label(toy) == "High Card"
    for view in ("all", "public", 1):
        frames = build_replay(parsed, view)["frames"]
        assert len(frames) == 1 + sum(1 for x in lines if x["type"] == "decision")
        hands = [f.get("s0", {}).get("hand") for f in frames if "s0" in f]
        assert all(h is None for h in hands) if view in ("public", 1) else any(hands)
    page = replay_page(parsed, "all", "../../")
    assert "<h1>High Card · toy-5</h1>" in page
