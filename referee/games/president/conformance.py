"""Conformance queries of President (spec section 12), answered with the engine's own code.

``QUERIES`` maps each query kind of spec 12 to ``fn(case) -> answer dict``;
``case`` holds ``input`` and maybe ``players``, ``variant``, ``params``.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from referee.engine import PASS, PLAY, Action, IllegalAction

from .game import PresidentGame
from .play import RoundPlay
from .rules import (RANK_OF, Rules, deal_sizes, final_ranking, forced_gifts, match_over, roles,
                    round_start, top_from_json, top_to_json)


def _variant(case: dict[str, Any]) -> dict[str, Any]:
    v = dict(PresidentGame.variant_defaults)
    v.update(case.get("variant") or {})
    return v


def _params(case: dict[str, Any]) -> dict[str, Any]:
    p = dict(PresidentGame.param_defaults)
    p.update(case.get("params") or {})
    return p


def _rules(case: dict[str, Any]) -> Rules:
    return Rules(_variant(case))


def legal_play(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.1: ``{"legal": bool}`` for ``hand``, ``top``, ``play``, ``revolution`` (6.2)."""
    inp = case["input"]
    play = inp["play"]
    why = _rules(case).check_action(list(inp["hand"]), top_from_json(inp.get("top")),
                                    None if play == "pass" else list(play), bool(inp.get("revolution", False)))
    return {"legal": why is None}


def play_effect(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.2: new top, revolution state and skip of a legal play (6.3)."""
    inp = case["input"]
    play = list(inp["play"])
    top, rev, skip, _ = _rules(case).effect(len(play), RANK_OF[play[0]], top_from_json(inp.get("top")),
                                            bool(inp.get("revolution", False)))
    return {"top": top_to_json(top), "revolution": rev, "skip": skip}


def roles_query(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.3: role ids and role scores indexed by seat (section 4)."""
    r, s = roles(list(case["input"]["order"]))
    return {"roles": r, "scores": s}


def deal_sizes_query(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.4: cards dealt to each seat (2.3)."""
    n = int(case.get("players", 4))
    return {"sizes": deal_sizes(n, int(case["input"]["dealer"]), len(_rules(case).pack))}


def exchange(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.5: the forced gifts (5.1 step 1, 5.2 step 1)."""
    inp = case["input"]
    moves = forced_gifts(list(inp["order"]), [list(h) for h in inp["hands"]], _rules(case).double)
    return {"moves": [{"from": g, "to": r, "cards": cards} for g, r, cards in moves]}


def next_leader(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.6: trick/round over and the next seat, via :class:`RoundPlay`'s own turn logic.

    The situation is rebuilt as a :class:`RoundPlay` whose hands have the
    given counts (placeholder cards), the top by ``last_player`` and the
    passes in ``passed``; the engine's end-of-trick check then decides.
    """
    inp = case["input"]
    counts = list(inp["counts"])
    hands = [["3S"] * c for c in counts]
    last = int(inp["last_player"])
    passed = list(inp["passed"])
    rp = RoundPlay(Rules(_variant(case)), hands, last)
    if rp.over:
        return {"trick_over": True, "round_over": True, "next": None}
    rp.top, rp.last, rp.passed = (1, "3"), last, passed
    cursor = passed[-1] if passed else last
    trick_over, nxt = rp.trick_status(cursor)
    return {"trick_over": trick_over, "round_over": False, "next": nxt}


def round_start_query(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.7: dealer and first leader of a round (2.2, 6.8)."""
    inp = case["input"]
    n = int(case.get("players", 4))
    p = _params(case)
    # first_dealer is an input field of this query (spec 10); a case may also carry it in params
    dealer, leader = round_start(n, int(inp["round"]), int(inp.get("first_dealer", p["first_dealer"])),
                                 inp.get("previous_order"), p["later_leader"])
    return {"dealer": dealer, "leader": leader}


def game_over(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.8: whether the match ends, the winner and the ranking (section 8)."""
    inp = case["input"]
    p = _params(case)
    totals = list(inp["totals"])
    if not match_over(totals, int(inp["rounds_played"]), p["target_score"], p["max_rounds"]):
        return {"over": False, "winner": None, "ranking": None}
    ranking = final_ranking(totals, list(inp["last_order"]))
    return {"over": True, "winner": ranking[0], "ranking": ranking}


def play_sequence(case: dict[str, Any]) -> dict[str, Any]:
    """Spec 12.9: run the reference procedure through the match engine's play code.

    A :class:`PresidentGame` is built, then its round state is replaced by the
    given hands, finishing order, leader and revolution state; each action is
    fed to :meth:`PresidentGame.apply`-equivalent validation (turn check, then
    spec 6.2) and :meth:`RoundPlay.act`.
    """
    inp = case["input"]
    n = int(case.get("players", len(inp["hands"])))
    game = PresidentGame(n, case.get("variant"), case.get("params"), random.Random(0))
    hands = [list(h) for h in inp["hands"]]
    game.hands = hands
    game.play = RoundPlay(game.rules, hands, int(inp["leader"]), list(inp.get("finished", [])),
                          bool(inp.get("revolution", False)))
    game.phase = "play"
    game._legal = None
    rp = game.play
    for k, a in enumerate(inp["actions"]):
        seat, play = int(a["seat"]), a["play"]
        action = Action(PASS) if play == "pass" else Action(PLAY, tuple(play))
        if rp.over:
            return {"error_at": k}
        try:
            game.apply_play_only(seat, action)
        except IllegalAction:
            return {"error_at": k}
    return {"error_at": None, "to_act": rp.to_act, "top": top_to_json(rp.top),
            "counts": [len(h) for h in hands], "finished": list(rp.finished), "revolution": rp.revolution}


QUERIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "legal_play": legal_play,
    "play_effect": play_effect,
    "roles": roles_query,
    "deal_sizes": deal_sizes_query,
    "exchange": exchange,
    "next_leader": next_leader,
    "round_start": round_start_query,
    "game_over": game_over,
    "play_sequence": play_sequence,
}
