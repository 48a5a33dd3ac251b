"""The engine contract (referee/engine.py), checked the same way for every
game and player count: what each per-game test file used to check on its own.

* purity: a game's ``rules.py``, ``game.py``, ``events.py`` and every other
  module but its view and replay renderer import no protobuf or generated
  module (an AST scan of their imports);
* random playouts never crash, and follow the contract at every step:
  ``legal_actions()`` is a non-empty immutable tuple, the fallback action is
  legal, events are ``Event(record, to)`` with an immutable record, and once
  the match is over every turn method raises ``MatchOver`` and ``result()``
  is consistent;
* card multisets are conserved: the union of ``card_zones()`` is ``deck()``
  after every action;
* same seed + same actions => identical event logs, also in another process;
* on sampled states, every listed legal action validates, and every action
  that validates (among the listed ones, their variations and random card
  sets drawn from the hand) is listed when the list is complete;
* a seat's observation (and its decision request when it acts) does not
  change when the cards hidden from it are shuffled among the hidden zones.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from referee import protocol
from referee.engine import Action, Event, Game, IllegalAction, Legal, MatchOver, seeded_rng
from referee.games import GAME_IDS, game_class, implemented, view_module

#: short matches (a few rounds each); a game not listed plays its default match
PARAMS: dict[str, dict[str, Any]] = {
    "doudizhu": {"rounds": 2},
    "tractor": {"max_rounds": 1},
    "smear": {"max_rounds": 3},
    "president": {"max_rounds": 2},
    "back_alley": {"first_round": 11, "last_round": 13},
}
CONFIGS = [(g, n) for g in implemented() for n in game_class(g).player_counts]
IDS = [f"{g}-{n}p" for g, n in CONFIGS]
#: matches played per configuration by the playout test
PLAYOUTS = 6
MAX_DECISIONS = 20_000


def new_game(game: str, players: int, seed: int) -> Game:
    return game_class(game)(players, {}, PARAMS.get(game, {}), seeded_rng(seed))


def pick(g: Game, rng: random.Random) -> Action:
    acts, _ = g.legal_actions()
    return rng.choice(acts)


# ----------------------------------------------------------------------------- purity
_WIRE_MODULES = ("google.protobuf", "cardgames", "grpc", "referee.protocol")


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append(node.module)
            out += [f"{node.module}.{a.name}" for a in node.names]
    return out


#: a game's modules that read or write protocol messages: its view and its replay renderer
WIRE_FACING = ("view.py", "replay.py")


@pytest.mark.parametrize("game_name", GAME_IDS)
def test_rules_and_game_import_nothing_of_the_wire(game_name: str) -> None:
    """Every module of a game but those facing the wire (rules.py, game.py, events.py, meta.py, ...)."""
    assert view_module(game_name) is not None, f"{game_name}: no view module"
    pkg = ROOT / "referee" / "games" / game_name
    modules = sorted(p.name for p in pkg.glob("*.py") if p.name not in WIRE_FACING)
    assert {"rules.py", "game.py", "events.py"} <= set(modules)
    for name in modules:
        bad = [m for m in _imports(pkg / name) if m.startswith(_WIRE_MODULES)]
        assert not bad, f"{game_name}/{name} imports {bad}"


def test_the_scan_sees_a_protobuf_import(tmp_path: Path) -> None:
    f = tmp_path / "x.py"
    f.write_text("import os\nfrom cardgames.v1 import doudizhu_pb2 as dpb\nfrom google.protobuf import json_format\n")
    assert [m for m in _imports(f) if m.startswith(_WIRE_MODULES)]


# ----------------------------------------------------------------------------- playouts
def _check_event(ev: Event, players: int) -> None:
    assert isinstance(ev, Event)
    assert ev.to is None or 0 <= ev.to < players
    assert dataclasses.is_dataclass(ev.record) and type(ev.record).__dataclass_params__.frozen
    hash(ev.record)  # immutable all the way down (tuples, not lists)


def _check_over(g: Game) -> None:
    for call in (g.decision_kind, g.legal_actions, g.fallback_action):
        with pytest.raises(MatchOver):
            call()
    for method in (g.validate, g.apply):
        with pytest.raises(MatchOver) as e:
            method(0, Action("PASS"))
        assert isinstance(e.value, IllegalAction) and e.value.rule == "TURN"
    res = g.result()
    n = g.players
    assert len(res.scores) == n and len(res.ranks) == n and all(1 <= r <= n for r in res.ranks)
    assert res.outcomes, "a match feeds the rating at least one outcome"
    json.dumps(res.summary)


@pytest.mark.parametrize("game_name,players", CONFIGS, ids=IDS)
def test_random_playouts_follow_the_contract_and_conserve_cards(game_name: str, players: int) -> None:
    check_playouts(game_name, players)


def check_playouts(game_name: str, players: int) -> None:
    """:data:`PLAYOUTS` random matches follow the contract at every step and conserve the cards."""
    cls = game_class(game_name)
    teams = cls.teams(players)
    assert sorted(s for t in teams for s in t) in ([], list(range(players)))
    for seed in range(PLAYOUTS):
        g = new_game(game_name, players, seed)
        rng = random.Random(seed)
        deck = Counter(g.deck())
        decisions = 0
        while (seat := g.to_act) is not None:
            assert 0 <= seat < players
            kind = g.decision_kind()
            legal = g.legal_actions()
            assert isinstance(legal, Legal) and type(legal.actions) is tuple and legal.actions
            assert kind in ("BID", "PLAY", "DECLARE", "DISCARD", "EXCHANGE")
            fb = g.fallback_action()
            g.validate(seat, fb)
            if legal.complete:
                assert fb.key() in {a.key() for a in legal.actions}
            g.apply(seat, fb if rng.random() < 0.1 else rng.choice(legal.actions))
            for ev in g.pop_events():
                _check_event(ev, players)
            zones = g.card_zones()
            assert sum(map(Counter, zones.values()), Counter()) == deck, f"cards not conserved: {zones}"
            decisions += 1
            assert decisions < MAX_DECISIONS
        _check_over(g)


# ----------------------------------------------------------------------------- determinism
def _log(game_name: str, players: int, seed: int) -> list[tuple[int | None, str]]:
    """The event log of a seeded random match: (to, event as JSON) per event."""
    g = new_game(game_name, players, seed)
    rng = random.Random(seed + 1000)
    out = []
    while True:
        for ev in g.pop_events():
            out.append((ev.to, json.dumps(protocol.event_json(game_name, ev), sort_keys=True)))
        if g.to_act is None:
            return out
        g.apply(g.to_act, pick(g, rng))


@pytest.mark.parametrize("game_name,players", CONFIGS, ids=IDS)
def test_same_seed_same_actions_same_log_across_processes(game_name: str, players: int) -> None:
    here = _log(game_name, players, 7)
    assert here == _log(game_name, players, 7) and here != _log(game_name, players, 8)
    code = (f"import json, sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); "
            f"from test_engine_contract import _log; print(json.dumps(_log({game_name!r}, {players}, 7)))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env={"PYTHONHASHSEED": "12345", "PATH": ""})
    assert r.returncode == 0, r.stderr[-2000:]
    assert [tuple(x) for x in json.loads(r.stdout)] == here


# ----------------------------------------------------------------------------- legal vs validate
def _candidates(g: Game, rng: random.Random) -> list[Action]:
    """Actions to try on a state: the listed ones, their variations (other
    kinds, amounts, one card fewer or more) and random card sets of the hand."""
    seat = g.to_act
    legal, _ = g.legal_actions()
    hand = sorted(c for c in _own_cards(g, seat))
    out = list(legal)
    for a in rng.sample(legal, min(len(legal), 6)):
        out.append(Action(a.kind, a.cards, a.amount + 1))
        if a.cards:
            out.append(Action(a.kind, a.cards[1:], a.amount))
        if hand:
            out.append(Action(a.kind, a.cards + (rng.choice(hand),), a.amount))
        for k in ("PASS", "BID", "PLAY", "DECLARE", "DISCARD", "EXCHANGE"):
            if k != a.kind:
                out.append(Action(k, a.cards, a.amount))
    for _ in range(12):
        if hand:
            out.append(Action(legal[0].kind, tuple(rng.sample(hand, rng.randint(1, min(len(hand), 8))))))
    out.append(Action("PASS"))
    return out


def _own_cards(g: Game, seat: int) -> list[str]:
    """The seat's own hand: the cards of the round not hidden from it and in no public pile."""
    zones = g.card_zones()
    hand = zones.get(f"hand{seat}", ())
    return list(hand)


@pytest.mark.parametrize("game_name,players", CONFIGS, ids=IDS)
def test_listed_actions_validate_and_valid_actions_are_listed(game_name: str, players: int) -> None:
    check_legal_vs_validate(game_name, players)


def check_legal_vs_validate(game_name: str, players: int) -> None:
    """On sampled states of 3 random matches: every listed action validates,
    and an action that validates is listed when the list is complete."""
    checked = 0
    for seed in range(3):
        g = new_game(game_name, players, 100 + seed)
        rng = random.Random(seed)
        while (seat := g.to_act) is not None:
            if rng.random() < 0.25:
                legal, complete = g.legal_actions()
                keys = {a.key() for a in legal}
                for a in legal:
                    g.validate(seat, a)  # every listed action validates
                if complete:
                    for a in _candidates(g, rng):
                        try:
                            g.validate(seat, a)
                        except IllegalAction as e:
                            assert a.key() not in keys, (a, e)
                            assert e.rule, "an illegal action names its rule"
                        else:
                            assert a.key() in keys, f"{a} validates but is not listed"
                # another seat may not act
                other = (seat + 1) % players
                with pytest.raises(IllegalAction):
                    g.validate(other, legal[0])
                checked += 1
            g.apply(seat, pick(g, rng))
            g.pop_events()
    assert checked > 10


# ----------------------------------------------------------------------------- hidden information
def _shuffled(zones: dict[str, list[str]], fixed: set[str], rng: random.Random) -> dict[str, list[str]]:
    """The hidden cards permuted among the hidden places (sizes kept), except
    the ``fixed`` codes, which keep their places."""
    free = [(k, i) for k, z in zones.items() for i, c in enumerate(z) if c not in fixed]
    cards = [zones[k][i] for k, i in free]
    rng.shuffle(cards)
    out = {k: list(z) for k, z in zones.items()}
    for (k, i), c in zip(free, cards):
        out[k][i] = c
    return out


def _codes(m: Any) -> set[str]:
    """Every string of a protobuf message (card codes among them)."""
    out: set[str] = set()
    for fd, v in m.ListFields():
        if fd.message_type is not None:
            for x in (v if fd.is_repeated else [v]):
                out |= _codes(x)
        elif isinstance(v, str):
            out.add(v)
        elif fd.is_repeated and v and isinstance(v[0], str):
            out.update(v)
    return out


def _view_of(g: Game, seat: int) -> bytes:
    obs = protocol.game_observation(g, seat).SerializeToString(deterministic=True)
    if g.to_act == seat:
        obs += protocol.decision_request(g, "m", 1, 1000, 0).SerializeToString(deterministic=True)
    return obs


@pytest.mark.parametrize("game_name,players", CONFIGS, ids=IDS)
def test_observation_does_not_change_when_hidden_zones_are_shuffled(game_name: str, players: int) -> None:
    """At sampled states, for every seat: the cards hidden from it, shuffled
    among the hidden places, give the same observation (and decision request
    when it acts). Hidden cards the observation itself names (a declared
    card still in a hand, a card the seat gave away) keep their places: the
    spec lets the seat know where they are. tests/test_hidden_info.py checks
    the events and every message of a match the same way."""
    rng = random.Random(3)
    checks = moved = 0
    for seed in range(2):
        g = new_game(game_name, players, 200 + seed)
        while (actor := g.to_act) is not None:
            if rng.random() < 0.15:
                for s in range(players):
                    zones = g.hidden_zones(s)
                    fixed = _codes(protocol.game_observation(g, s))
                    alt_zones = _shuffled(zones, fixed, rng)
                    alt = g.with_hidden_zones(alt_zones)
                    assert alt.hidden_zones(s) == alt_zones or Counter(
                        c for z in alt.hidden_zones(s).values() for c in z) == Counter(
                        c for z in alt_zones.values() for c in z)
                    assert _view_of(alt, s) == _view_of(g, s), f"seat {s} sees hidden cards"
                    checks += 1
                    moved += any(Counter(zones[k]) != Counter(alt_zones[k]) for k in zones)
            g.apply(actor, pick(g, rng))
            g.pop_events()
    assert checks > 10 and moved > checks // 3, (checks, moved)
