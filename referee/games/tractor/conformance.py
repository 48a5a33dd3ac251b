"""Conformance queries of Tractor (spec section 15), answered with the
engine's own rule functions (:mod:`referee.games.tractor.rules`), the same
ones :class:`~referee.games.tractor.game.TractorGame` calls.

``QUERIES[kind](case) -> answer`` where ``case`` has ``input`` and
optionally ``variant`` / ``params`` (defaults from the game class).
"""

from __future__ import annotations

from typing import Any, Callable

from referee.games.tractor import rules as R
from referee.games.tractor.game import TractorGame


def _variant(case: dict[str, Any]) -> dict[str, Any]:
    v = dict(TractorGame.variant_defaults)
    for k, x in (case.get("variant") or {}).items():
        if k not in v:
            raise ValueError(f"unknown tractor variant flag {k!r}")
        v[k] = x
    return v


def _params(case: dict[str, Any]) -> dict[str, Any]:
    p = dict(TractorGame.param_defaults)
    for k, x in (case.get("params") or {}).items():
        if k not in p:
            raise ValueError(f"unknown tractor match parameter {k!r}")
        p[k] = x
    return p


def _ctx(case: dict[str, Any]) -> R.Ctx:
    i = case["input"]
    return R.ctx_for(i.get("trump_suit"), i["trump_rank"], bool(_variant(case)["notrump_rank_cards_trump"]))


def card_order(case: dict[str, Any]) -> dict[str, Any]:
    """15.1: steps of a play-suit, highest first."""
    ctx = _ctx(case)
    return {"order": [list(step) for step in reversed(ctx.steps[case["input"]["suit"]])]}


def card_compare(case: dict[str, Any]) -> dict[str, Any]:
    """15.2: section 4.3 power, then step."""
    ctx = _ctx(case)
    i = case["input"]
    led = i["led_suit"]

    def strength(c: str) -> tuple[int, int]:
        s = ctx.suit_of[c]
        power = 2 if s == R.TRUMP else 1 if (s == led and led != R.TRUMP) else 0
        return power, ctx.step_of[c]

    a, b = strength(i["a"]), strength(i["b"])
    if a[0] == 0 and b[0] == 0:
        return {"result": "neither"}
    if a[0] == 0:
        return {"result": "b"}
    if b[0] == 0:
        return {"result": "a"}
    return {"result": "a" if a > b else "b" if b > a else "equal"}


def classify_lead(case: dict[str, Any]) -> dict[str, Any]:
    """15.3: lead type and shape (6.2-6.3); ``{"type": None}`` for an illegal lead."""
    ctx = _ctx(case)
    lead = R.analyze_lead(case["input"]["cards"], ctx)
    if lead is None:
        return {"type": None}
    return {"type": lead.type, "suit": lead.suit, "tractors": lead.tractors, "pairs": lead.pairs,
            "singles": lead.singles}


def legal_follow(case: dict[str, Any]) -> dict[str, Any]:
    """15.4: section 7 (and must_follow_tractor)."""
    ctx = _ctx(case)
    i = case["input"]
    lead = R.analyze_lead(i["lead"], ctx)
    assert lead is not None, "the lead of a legal_follow case must be a legal lead"
    err = R.follow_error(lead, R.counts_of(i["hand"]), i["play"], ctx, bool(_variant(case)["must_follow_tractor"]))
    return {"legal": err is None}


def trick_winner(case: dict[str, Any]) -> dict[str, Any]:
    """15.5: section 8 winner and the trick's card points."""
    ctx = _ctx(case)
    i = case["input"]
    plays = i["plays"]
    lead = R.analyze_lead(plays[0], ctx)
    assert lead is not None
    w = R.trick_winner(lead, plays[1:], ctx)
    return {"winner": (i["leader"] + w) % 4, "points": sum(R.points_of(p) for p in plays)}


def throw_check(case: dict[str, Any]) -> dict[str, Any]:
    """15.6: section 9 check, forced component and penalty."""
    ctx = _ctx(case)
    i = case["input"]
    lead = R.analyze_lead(i["lead"], ctx)
    assert lead is not None
    others = [R.counts_of(h) for s, h in sorted(i["hands"].items()) if int(s) != i["leader"]]
    forced = R.throw_check(lead, others, ctx)
    if forced is None:
        return {"ok": True}
    pen = R.throw_penalty(lead.n, forced.size, bool(_variant(case)["no_throw_penalty"]))
    delta = pen if i["leader"] % 2 == i["declarer_team"] else -pen
    return {"ok": False, "forced": list(forced.cards), "penalty": pen, "defender_points_delta": delta}


def kitty_bonus(case: dict[str, Any]) -> dict[str, Any]:
    """15.7: section 10.2 (and kitty_multiplier_power)."""
    i = case["input"]
    power = bool(_variant(case)["kitty_multiplier_power"])
    ctx = _ctx(case) if power else None
    return {"bonus": R.kitty_bonus(i["kitty"], i["last_lead"], bool(i["defenders_won_last"]), ctx, power)}


def level_change(case: dict[str, Any]) -> dict[str, Any]:
    """15.8: sections 10.3, 10.4, 11."""
    i = case["input"]
    lv = [R.RANK_VALUE[x] for x in i["levels"]]
    ch = R.level_change(i["defender_points"], i["declarer_team"], i["starter"], lv, i.get("rounds_played"),
                        int(_params(case)["max_rounds"]), bool(_variant(case)["must_play_ace"]))
    return {"team_up": ch.team_up, "levels_up": ch.levels_up, "new_levels": [R.VALUE_RANK[x] for x in ch.new_levels],
            "next_declarer_team": ch.next_declarer_team, "next_starter": ch.next_starter,
            "game_winner": ch.winner, "draw": ch.draw}


def declare(case: dict[str, Any]) -> dict[str, Any]:
    """15.9: sections 2.2-2.3."""
    i = case["input"]
    cur = i.get("current")
    standing = None if cur is None else (int(cur["seat"]), tuple(cur["cards"]))
    err = R.declaration_error(standing, int(i["seat"]), i["cards"], R.counts_of(i["hand"]), i["trump_rank"])
    if err is not None:
        return {"legal": False}
    kind = R.declaration_kind(i["cards"], i["trump_rank"])
    assert kind is not None
    suit = kind.trump_suit
    return {"legal": True, "trump_suit": suit}


def kitty_flip(case: dict[str, Any]) -> dict[str, Any]:
    """15.10: section 2.6."""
    i = case["input"]
    suit, n = R.kitty_flip(list(i["kitty"]), i["trump_rank"])
    return {"trump_suit": suit, "flipped": n}


def fallback(case: dict[str, Any]) -> dict[str, Any]:
    """15.11: section 16 fallback actions."""
    i = case["input"]
    d = i["decision"]
    if d == "declare":
        return {"cards": []}
    if d == "bury":
        return {"cards": list(i["kitty"])}
    ctx = _ctx(case)
    hand = R.counts_of(i["hand"])
    if d == "lead":
        return {"cards": list(R.fallback_lead(hand, ctx))}
    if d == "follow":
        lead = R.analyze_lead(i["lead"], ctx)
        assert lead is not None
        return {"cards": list(R.fallback_follow(lead, hand, ctx, bool(_variant(case)["must_follow_tractor"])))}
    raise ValueError(f"unknown fallback decision {d!r}")


#: query kind -> answer function (spec section 15)
QUERIES: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "card_order": card_order,
    "card_compare": card_compare,
    "classify_lead": classify_lead,
    "legal_follow": legal_follow,
    "trick_winner": trick_winner,
    "throw_check": throw_check,
    "kitty_bonus": kitty_bonus,
    "level_change": level_change,
    "declare": declare,
    "kitty_flip": kitty_flip,
    "fallback": fallback,
}


def normalize(kind: str, answer: Any) -> Any:
    """Order-insensitive comparison of the step lists of ``card_order``
    (the codes inside one step are unordered)."""
    if kind == "card_order" and isinstance(answer, dict) and isinstance(answer.get("order"), list):
        return {**answer, "order": [sorted(s) for s in answer["order"]]}
    return answer
