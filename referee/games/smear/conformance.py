"""Conformance queries of smear.md section 12, answered by the engine's own rule code.

Every function takes a vector ``case`` (``input``, ``players``, optional
``variant`` and ``params``) and returns the ``expect``-shaped dict; each one
calls the same :mod:`referee.games.smear.rules` functions that
:class:`referee.games.smear.game.SmearGame` uses during a match.
"""

from __future__ import annotations

from typing import Any, Callable

from . import rules as R
from .game import SmearGame


def _players(case: dict[str, Any]) -> int:
    return int(case.get("players", 3))


def _variant(case: dict[str, Any]) -> dict[str, bool]:
    """The case's flags merged over the engine's defaults (missing = false)."""
    v = dict(SmearGame.variant_defaults)
    v.update(case.get("variant") or {})
    return v


def _call(c: Any) -> tuple[bool, int] | None:
    """A vector call (``"pass"`` or an integer) -> ``(is_pass, amount)``; ``None``
    for anything else (a non-integer number or another string is never a call)."""
    if c == "pass":
        return True, 0
    if isinstance(c, bool):
        return None
    if isinstance(c, float) and c.is_integer():
        c = int(c)
    if not isinstance(c, int):
        return None
    return False, c


def _history(calls: list[Any]) -> list[int]:
    """Stored-call form of the rules module: pass -> 0, bids as integers."""
    return [0 if c == "pass" else int(c) for c in calls]


def legal_bid(case: dict[str, Any]) -> dict[str, Any]:
    """``legal_bid``: ``{"legal": bool}`` via :func:`rules.check_call` (spec 5)."""
    i = case["input"]
    call = _call(i["call"])
    if call is None:
        return {"legal": False}
    is_pass, amount = call
    err = R.check_call(_players(case), int(i["dealer"]), _history(i["calls"]), int(i["seat"]), is_pass, amount,
                       _variant(case)["dealer_forced_bid"])
    return {"legal": err is None}


def auction_result(case: dict[str, Any]) -> dict[str, Any]:
    """``auction_result`` via :func:`rules.auction_state` (spec 5)."""
    i = case["input"]
    complete, nxt, bidder, bid = R.auction_state(_players(case), int(i["dealer"]), _history(i["calls"]))
    return {"complete": complete, "next": nxt, "bidder": bidder, "bid": bid if bidder is not None else None,
            "passed_out": complete and bidder is None}


def legal_play(case: dict[str, Any]) -> dict[str, Any]:
    """``legal_play`` via :func:`rules.is_legal_play` (spec 6.3)."""
    i = case["input"]
    ok = R.is_legal_play(list(i["hand"]), i.get("led"), i.get("trump"), i["card"], _variant(case)["strict_follow"])
    return {"legal": ok}


def trick_winner(case: dict[str, Any]) -> dict[str, Any]:
    """``trick_winner`` via :func:`rules.trick_winner` (spec 6.4)."""
    i = case["input"]
    return {"winner": R.trick_winner(int(i["leader"]), list(i["cards"]), i["trump"], _players(case))}


def round_points(case: dict[str, Any]) -> dict[str, Any]:
    """``round_points`` via :func:`rules.award_items` (spec 4)."""
    i = case["input"]
    a = R.award_items(_players(case), i["trump"], [list(w) for w in i["won"]],
                      [list(t) for t in i["trumps_played"]], _variant(case)["low_to_taker"])
    return {k: a[k] for k in ("high", "low", "jack", "game", "game_points", "points")}


def round_score(case: dict[str, Any]) -> dict[str, Any]:
    """``round_score`` via :func:`rules.score_round` (spec 7)."""
    i = case["input"]
    made, scores = R.score_round(int(i["bidder"]), int(i["bid"]), list(i["points"]), list(i["scores"]))
    return {"made": made, "scores": scores}


def game_over(case: dict[str, Any]) -> dict[str, Any]:
    """``game_over`` (the match end) via :func:`rules.match_end` (spec 8).

    ``max_rounds`` comes from the input, else the case's ``params``, else the
    default 200; without ``rounds_played`` the limit is not checked.
    """
    i = case["input"]
    params = case.get("params") or {}
    max_rounds = i.get("max_rounds", params.get("max_rounds", SmearGame.param_defaults["max_rounds"]))
    winner, over = R.match_end(i.get("bidder"), i.get("bid"), i.get("made"), list(i["scores_before"]),
                               list(i["scores_after"]), i.get("rounds_played"), int(max_rounds))
    if winner is not None:
        return {"winner": winner}
    if over:
        return {"winner": None, "over": True}
    return {"winner": None}


QUERIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "legal_bid": legal_bid,
    "auction_result": auction_result,
    "legal_play": legal_play,
    "trick_winner": trick_winner,
    "round_points": round_points,
    "round_score": round_score,
    "game_over": game_over,
}
