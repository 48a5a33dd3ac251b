"""Dou Dizhu conformance queries (shared/rules/doudizhu.md §13).

``QUERIES`` maps each query kind to a function ``case -> answer dict``. Every
answer is computed with the engine's own rules code
(:mod:`referee.games.doudizhu.rules`: :func:`classify`, :func:`beats`,
:func:`check_play`, :class:`Auction`, :func:`settle`, :class:`PlayPhase`),
the same objects :class:`referee.games.doudizhu.game.DouDizhu` runs.
"""

from __future__ import annotations

from typing import Any, Callable

from referee.engine import IllegalAction
from referee.games.doudizhu import rules as R
from referee.games.doudizhu.game import DouDizhu


def _n(case: dict[str, Any]) -> int:
    n = int(case.get("players", 3))
    if n not in DouDizhu.player_counts:
        raise ValueError(f"Dou Dizhu has 3 or 4 players, not {n}")
    return n


def _spring_variant(case: dict[str, Any]) -> bool:
    variant = dict(DouDizhu.variant_defaults)
    variant.update(case.get("variant") or {})
    return bool(variant["spring"])


def q_classify(case: dict[str, Any]) -> dict[str, Any]:
    """§13.1: ``{"type", "rank", "length"}`` or ``{"type": None}``."""
    combo = R.classify(case["input"]["cards"], _n(case))
    if combo is None:
        return {"type": None}
    return {"type": combo[0], "rank": R.rank_name(combo[1]), "length": combo[2]}


def q_beats(case: dict[str, Any]) -> dict[str, Any]:
    """§13.2: ``{"beats": bool}``; an invalid play never beats."""
    n = _n(case)
    top = R.classify(case["input"]["top"], n)
    play = R.classify(case["input"]["play"], n)
    if top is None:
        raise ValueError("beats: the top is not a combination")
    return {"beats": play is not None and R.beats(top, play, n)}


def q_legal_play(case: dict[str, Any]) -> dict[str, Any]:
    """§13.3: ``{"legal": bool}`` via the engine's :func:`rules.check_play`."""
    n = _n(case)
    inp = case["input"]
    top = None
    if inp.get("top") is not None:
        top = R.classify(inp["top"], n)
        if top is None:
            raise ValueError("legal_play: the top is not a combination")
    play = inp.get("play") or []
    if not play:
        return {"legal": top is not None}  # [PLAY-2] / [PLAY-4]
    counts: dict[str, int] = {}
    for c in inp["hand"]:
        counts[c] = counts.get(c, 0) + 1
    try:
        R.check_play(counts, play, top, n)
    except IllegalAction:
        return {"legal": False}
    return {"legal": True}


def _run_auction(n: int, first: int, bids: list[int]) -> tuple[R.Auction, int | None]:
    """Feed ``bids`` to an :class:`rules.Auction`; returns it and the index of
    the first illegal action (or ``None``)."""
    a = R.Auction(n, first % n)
    for i, b in enumerate(bids):
        try:
            a.check(b)
        except IllegalAction:
            return a, i
        a.apply(b)
    return a, None


def q_legal_bid(case: dict[str, Any]) -> dict[str, Any]:
    """§13.4: ``{"legal": bool}``."""
    n = _n(case)
    a, bad = _run_auction(n, 0, list(case["input"]["bids"]))
    if bad is not None:
        raise ValueError("legal_bid: the given bids are not a legal sequence")
    try:
        a.check(case["input"]["bid"])
    except IllegalAction:
        return {"legal": False}
    return {"legal": True}


def q_auction_result(case: dict[str, Any]) -> dict[str, Any]:
    """§13.5: landlord / redeal / incomplete / invalid."""
    n = _n(case)
    first = int(case["input"]["first"])
    bids = list(case["input"]["bids"])
    a, bad = _run_auction(n, first, bids)
    if bad is not None:
        return {"outcome": "invalid", "index": bad}
    if a.outcome == "landlord":
        return {"outcome": "landlord", "landlord": a.landlord, "bid": a.bid}
    if a.outcome == "redeal":
        return {"outcome": "redeal"}
    return {"outcome": "incomplete", "to_bid": a.to_act}


def q_payment(case: dict[str, Any]) -> dict[str, Any]:
    """§13.6: ``{"deltas": [...]}`` via :func:`rules.doublings` and :func:`rules.settle`."""
    n = _n(case)
    inp = case["input"]
    d = R.doublings(n, inp.get("bombs", []), int(inp.get("rockets", 0)))
    spring = _spring_variant(case) and bool(inp.get("spring", False))
    deltas, _ = R.settle(n, int(inp["bid"]), int(inp["landlord"]), bool(inp["landlord_won"]), d, spring)
    return {"deltas": deltas}


def q_play_sequence(case: dict[str, Any]) -> dict[str, Any]:
    """§13.7: run a play phase with :class:`rules.PlayPhase` (the engine's own)."""
    n = _n(case)
    inp = case["input"]
    hands = inp["hands"]
    if len(hands) != n:
        raise ValueError(f"play_sequence: {len(hands)} hands for {n} players")
    p = R.PlayPhase(n, int(inp["landlord"]), hands)
    for i, cards in enumerate(inp["actions"]):
        if p.to_act is None:
            return {"outcome": "invalid", "index": i}  # after the round ended
        try:
            combo = p.check(p.to_act, cards)
        except IllegalAction:
            return {"outcome": "invalid", "index": i}
        if combo is None:
            p.pass_(p.to_act)
        else:
            p.play(p.to_act, tuple(cards), combo)
    if p.to_act is not None:
        return {"outcome": "incomplete", "to_move": p.to_act}
    deltas, m, _ = p.multiplier_and_deltas(int(inp["bid"]), _spring_variant(case))
    return {"outcome": "finished", "winner": p.winner, "landlord_won": p.landlord_won,
            "multiplier": m, "deltas": deltas}


QUERIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "classify": q_classify,
    "beats": q_beats,
    "legal_play": q_legal_play,
    "legal_bid": q_legal_bid,
    "auction_result": q_auction_result,
    "payment": q_payment,
    "play_sequence": q_play_sequence,
}
