"""Conformance queries of Back Alley (spec section 12), answered with the
same rule functions the engine uses (:mod:`.rules`).

``QUERIES[kind](case) -> answer dict``; ``case`` holds ``input`` and maybe
``variant`` (flags of section 10) and ``params``. Inputs follow section 12:
bids in JSON form (``"pass"``, ``"board"``, integers) and in bidding order.
"""

from __future__ import annotations

from typing import Any, Callable

from . import rules as R
from .game import BackAlley


def _variant(case: dict[str, Any]) -> dict[str, Any]:
    v = dict(BackAlley.variant_defaults)
    for k, val in (case.get("variant") or {}).items():
        if k not in v:
            raise ValueError(f"unknown variant flag {k!r}")
        v[k] = val
    return v


def _bids(values: list[Any]) -> list[int]:
    out = []
    for b in values:
        x = R.parse_bid_json(b)
        if x is None:
            raise ValueError(f"not a bid: {b!r}")
        out.append(x)
    return out


def _trump(x: Any) -> str | None:
    return None if x is None else str(x)


def q_hand_size(case: dict[str, Any]) -> dict[str, Any]:
    """``hand_size``: ``{"deal": k}`` -> ``{"hand_size": h or None}`` (section 2.2)."""
    return {"hand_size": R.hand_size(case["input"]["deal"])}


def q_trump_flip(case: dict[str, Any]) -> dict[str, Any]:
    """``trump_flip``: hands + stock -> trump suit and exchange (section 2.4)."""
    inp = case["input"]
    trump, ex = R.trump_flip(inp["hands"], inp["stock"])
    exch = None if ex is None else {"seat": ex[0], "discard": ex[1], "drawn": ex[2]}
    return {"trump": trump, "exchange": exch}


def q_legal_bid(case: dict[str, Any]) -> dict[str, Any]:
    """``legal_bid``: sections 4.2 and 10."""
    inp = case["input"]
    v = _variant(case)
    prior = _bids(inp.get("prior_bids") or [])
    bid = R.parse_bid_json(inp["bid"])
    return {"legal": R.bid_problem(inp["hand_size"], bid, prior, v["dealer_must_bid"]) is None}


def q_contracts(case: dict[str, Any]) -> dict[str, Any]:
    """``contracts``: team contracts (section 4.4)."""
    inp = case["input"]
    cs = R.contracts(inp["dealer"], _bids(inp["bids"]))
    if cs is None:
        return {"contracts": None}
    return {"contracts": [{"board": m} if m else {"bid": b} for m, b in cs]}


def q_leader(case: dict[str, Any]) -> dict[str, Any]:
    """``leader``: opening leader (section 4.6)."""
    inp = case["input"]
    return {"leader": R.opening_leader(inp["dealer"], _bids(inp["bids"]))}


def _play_args(case: dict[str, Any]) -> tuple[Any, ...]:
    inp = case["input"]
    v = _variant(case)
    return (list(inp["hand"]), list(inp["trick"]), _trump(inp["trump"]), bool(inp["trumps_broken"]),
            bool(inp["first_trick"]), bool(inp["team_board"]), bool(v["board_may_lead_trump_first_trick"]))


def q_legal_play(case: dict[str, Any]) -> dict[str, Any]:
    """``legal_play``: ``card`` in hand and in LegalSet (section 5.5)."""
    args = _play_args(case)
    card = case["input"]["card"]
    return {"legal": card in args[0] and card in R.legal_set(*args)}


def q_legal_plays(case: dict[str, Any]) -> dict[str, Any]:
    """``legal_plays``: the whole LegalSet (section 5.5)."""
    return {"cards": R.legal_set(*_play_args(case))}


def q_trick_winner(case: dict[str, Any]) -> dict[str, Any]:
    """``trick_winner``: seat winning the trick (section 6)."""
    inp = case["input"]
    return {"winner": R.trick_winner(_trump(inp["trump"]), inp["leader"], inp["cards"])[0]}


def q_team_score(case: dict[str, Any]) -> dict[str, Any]:
    """``team_score``: one team's points (section 7, variants applied)."""
    inp = case["input"]
    v = _variant(case)
    return {"points": R.team_score(inp["hand_size"], inp["bid"], inp["board"], inp["tricks"],
                                   v["zero_bid_scores_nothing"])}


def q_deal_score(case: dict[str, Any]) -> dict[str, Any]:
    """``deal_score``: both teams' points for a round, ``None`` if passed out."""
    inp = case["input"]
    v = _variant(case)
    return {"scores": R.round_scores(inp["dealer"], inp["hand_size"], _bids(inp["bids"]), inp["tricks"],
                                     v["zero_bid_scores_nothing"])}


def q_game_winner(case: dict[str, Any]) -> dict[str, Any]:
    """``game_winner``: team with the higher total, ``None`` for a draw (section 8)."""
    return {"winner": R.match_winner(case["input"]["totals"])}


def q_fallback(case: dict[str, Any]) -> dict[str, Any]:
    """``fallback``: the section 13 fallback for a bid, lead or follow."""
    inp = case["input"]
    v = _variant(case)
    d = inp["decision"]
    hand = list(inp["hand"])
    if d == "bid":
        b = R.fallback_bid(len(hand), _bids(inp.get("prior_bids") or []), v["dealer_must_bid"])
        return {"action": R.bid_to_json(b)}
    if d not in ("lead", "follow"):
        raise ValueError(f"unknown decision {d!r}")
    trick = list(inp.get("trick") or [])
    return {"action": R.fallback_play(hand, trick, _trump(inp.get("trump")), bool(inp.get("trumps_broken", False)),
                                      bool(inp.get("first_trick", False)), bool(inp.get("team_board", False)),
                                      bool(v["board_may_lead_trump_first_trick"]))}


QUERIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "hand_size": q_hand_size,
    "trump_flip": q_trump_flip,
    "legal_bid": q_legal_bid,
    "contracts": q_contracts,
    "leader": q_leader,
    "legal_play": q_legal_play,
    "legal_plays": q_legal_plays,
    "trick_winner": q_trick_winner,
    "team_score": q_team_score,
    "deal_score": q_deal_score,
    "game_winner": q_game_winner,
    "fallback": q_fallback,
}
