"""A simple rule-of-thumb President player (shared/rules/president.md).

``choose(req)`` takes a ``cardgames.v1.DecisionRequest`` and returns a
``cardgames.v1.Action``. It only reads the request (the typed observation
``req.observation.president``, ``req.legal_actions``, ``req.kind``) and uses
only the generated protocol stubs, so it works unchanged inside a gRPC bot.

Strategy, in short:

* **Exchange** (return): give back the lowest cards, preferring cards that
  are alone in their rank so no set is broken; in the default exchange
  always return one card (keeping an extra card only slows the President down).
* **Lead**: go out if the whole hand is one set; otherwise lead the lowest
  rank (in the order in force) as a whole set, keeping top cards (2s,
  jokers, the current highest ranks) for later, unless only top cards remain.
* **Follow**: go out if possible; else play the cheapest legal play that does
  not break a set; break a set or spend a top card only when the hand is
  small or the play is cheap; otherwise pass.
"""

from __future__ import annotations

from collections import Counter

from cardgames.v1 import referee_pb2 as pb

_NORMAL = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "JK")
_STRENGTH = {r: i for i, r in enumerate(_NORMAL)}
_SUIT = {"C": 0, "D": 1, "H": 2, "S": 3, "J": 4}


def _rank(card: str) -> str:
    return "JK" if card in ("BJ", "RJ") else card[0]


def _strength(rank: str, revolution: bool) -> int:
    """Strength of a rank in the order in force (spec 3.1, 3.2)."""
    s = _STRENGTH[rank]
    if revolution and rank != "JK":
        return 12 - s
    return s


def _card_key(card: str) -> tuple[int, int]:
    """Card order of spec 3.3 (normal strength, then suit C < D < H < S, BJ < RJ)."""
    return _STRENGTH[_rank(card)], (1 if card == "RJ" else 0) if card in ("BJ", "RJ") else _SUIT[card[1]]


def choose(req: pb.DecisionRequest) -> pb.Action:
    """Pick an action for ``req`` (always one of ``req.legal_actions`` when they are complete)."""
    legal = list(req.legal_actions)
    obs = req.observation.president
    if req.kind == pb.DECISION_KIND_EXCHANGE:
        return _choose_return(obs, legal)
    return _choose_play(obs, legal)


def _choose_return(obs, legal: list[pb.Action]) -> pb.Action:
    counts = Counter(_rank(c) for c in obs.hand)
    returns = [a for a in legal if a.kind == pb.ACTION_KIND_EXCHANGE and a.cards]
    if not returns:
        return legal[0]

    def cost(a: pb.Action) -> tuple:
        # prefer cards alone in their rank, then the lowest cards
        broken = sum(1 for c in a.cards if counts[_rank(c)] > 1)
        return (broken, sorted((_card_key(c) for c in a.cards), reverse=True))

    return min(returns, key=cost)


def _choose_play(obs, legal: list[pb.Action]) -> pb.Action:
    rev = obs.revolution and obs.rules.revolution
    hand = list(obs.hand)
    counts = Counter(_rank(c) for c in hand)
    plays = [a for a in legal if a.kind == pb.ACTION_KIND_PLAY]
    can_pass = any(a.kind == pb.ACTION_KIND_PASS for a in legal)
    if not plays:
        return legal[0]
    n_hand = len(hand)
    # go out at once when a play empties the hand
    for a in plays:
        if len(a.cards) == n_hand:
            return a
    ranks_held = sorted(counts, key=lambda r: _strength(r, rev))
    top_ranks = set(ranks_held[-2:]) if len(ranks_held) > 2 else set()
    high = {"JK", "2"} if not rev else {"JK", "3"}
    if obs.rules.two_high_low:
        high.add("2")

    def cost(a: pb.Action) -> tuple:
        r = _rank(a.cards[0])
        breaks = len(a.cards) < counts[r]
        is_high = r in high or r in top_ranks
        return (is_high, breaks, _strength(r, rev), -len(a.cards))

    best = min(plays, key=cost)
    if not obs.HasField("top"):
        # a lead: any play is fine; prefer whole low sets
        return best
    is_high, breaks, strength, _ = cost(best)
    small = n_hand <= 4
    if not can_pass:
        return best
    if is_high and not small:
        # spending a top card mid-round only pays when the remaining hand is short
        return _pass(legal)
    if breaks and strength >= 8 and not small:
        return _pass(legal)
    return best


def _pass(legal: list[pb.Action]) -> pb.Action:
    for a in legal:
        if a.kind == pb.ACTION_KIND_PASS:
            return a
    return legal[0]
