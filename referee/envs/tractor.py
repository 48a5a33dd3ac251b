"""Tractor's exact oracles for the decisions whose legal actions the engine
does not list in full (``Legal.complete`` false; shared/rules/tractor.md):

* the kitty burial (section 3): any 8 cards of the starter's 33;
* a lead (section 6.3): any non-empty set of cards of one play-suit (a
  throw is checked by the referee after it is sent);
* a follow (section 7, rules 1-3): ``n`` cards; all of the led play-suit
  when the hand holds ``n`` of it, else every card of it plus any others;
  at least ``min(need, pairs held in the suit)`` pairs of the suit.

Each oracle answers the questions of :class:`referee.envs.actions.Oracle`
exactly, from the seat's observation alone (its hand, the trump, the
effective lead of the trick). Variant ``must_follow_tractor`` only matters
when the follower holds a tractor of the lead's length; its legal follows
are then few and the engine lists them all, so the list oracle serves.
"""

from __future__ import annotations

from typing import Any, Sequence

from referee.engine import DISCARD, PLAY, Action
from referee.games.tractor import rules as R

from .actions import Oracle

KITTY = 8


def _room(hand: dict[str, int], selection: dict[str, int]) -> dict[str, int]:
    """The cards of ``hand`` not selected yet."""
    return {c: k - selection.get(c, 0) for c, k in hand.items() if k > selection.get(c, 0)}


class KittyOracle:
    """Section 3: any 8 cards of the hand."""

    def __init__(self, hand: dict[str, int]):
        self.hand = hand

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        return set(_room(self.hand, selection)) if size < KITTY else set()

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        return size == KITTY

    def closed(self, selection: dict[str, int], size: int) -> bool:
        return True


class LeadOracle:
    """Section 6.3: any non-empty set of one play-suit."""

    def __init__(self, hand: dict[str, int], ctx: R.Ctx):
        self.hand, self.ctx = hand, ctx

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        room = _room(self.hand, selection)
        if not size:
            return set(room)
        suit = self.ctx.suit_of[next(iter(selection))]
        so = self.ctx.suit_of
        return {c for c in room if so[c] == suit}

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        return size > 0

    def closed(self, selection: dict[str, int], size: int) -> bool:
        return not self.addable(selection, size)


class FollowOracle:
    """Section 7, rules 1-3, for the effective ``lead``."""

    def __init__(self, hand: dict[str, int], lead: R.Lead, ctx: R.Ctx):
        self.hand, self.lead, self.ctx = hand, lead, ctx
        so = ctx.suit_of
        self.hs = {c: k for c, k in hand.items() if so[c] == lead.suit}  # HS: the hand's cards of the led suit
        self.nhs = sum(self.hs.values())
        self.need = min(lead.need, sum(1 for k in self.hs.values() if k >= 2))

    def _feasible(self, sel: dict[str, int], size: int) -> bool:
        """True if the selection ``sel`` (a sub-multiset of the hand) can be
        completed to a legal follow."""
        n = self.lead.n
        if size > n:
            return False
        m = n - size  # cards still to add
        so, suit = self.ctx.suit_of, self.lead.suit
        if self.nhs >= n:  # every card of the led suit; the pairs rule
            if any(so[c] != suit for c in sel):
                return False
            pairs = completions = fresh = 0
            for c, k in self.hs.items():
                s = sel.get(c, 0)
                if s >= 2:
                    pairs += 1
                elif s == 1:
                    completions += k >= 2
                elif k >= 2:
                    fresh += 1
            done = min(completions, m)  # a completed pair costs one card, a fresh one two
            return pairs + done + min(fresh, (m - done) // 2) >= self.need
        off = sum(k for c, k in sel.items() if so[c] != suit)  # every card of the suit, then anything
        return off <= n - self.nhs

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        out = set()
        for c in _room(self.hand, selection):
            selection[c] = selection.get(c, 0) + 1
            if self._feasible(selection, size + 1):
                out.add(c)
            selection[c] -= 1
            if not selection[c]:
                del selection[c]
        return out

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        return size == self.lead.n and self._feasible(selection, size)

    def closed(self, selection: dict[str, int], size: int) -> bool:
        return True


def oracle(obs: Any, kind: str, legal: Sequence[Action], complete: bool) -> Oracle | None:
    """The oracle of a Tractor decision from the seat's ``TractorObservation``
    ``obs``: ``None`` (the list oracle) when ``complete``, else the kitty,
    lead or follow oracle. ``ValueError`` for an incomplete list of another
    decision kind (the engine has none)."""
    if complete:
        return None
    hand = R.counts_of(obs.hand)
    if kind == DISCARD:
        return KittyOracle(hand)
    if kind != PLAY:
        raise ValueError(f"tractor: an incomplete legal list for a {kind} decision")
    trump = obs.trump_suit
    ctx = R.ctx_for(None if trump in ("", "NT") else trump, obs.trump_rank, obs.notrump_rank_cards_trump)
    plays = obs.current_trick.plays
    if not plays:
        return LeadOracle(hand, ctx)
    lead = R.analyze_lead(tuple(plays[0].cards), ctx)  # the effective lead (a failed throw's forced part)
    if lead is None:
        raise ValueError("tractor: the trick's lead is not one play-suit")
    return FollowOracle(hand, lead, ctx)

