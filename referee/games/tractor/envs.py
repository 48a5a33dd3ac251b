"""Tractor in the training environments (docs/envs.md): its player count
by default, its BID indices (none), its match scores, its observation array
(written with :mod:`referee.envs.encode`) and the exact oracles of the
decisions whose legal actions the engine does not list in full
(``Legal.complete`` false; shared/rules/tractor.md):

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

Imported only by :mod:`referee.envs`, through :func:`referee.games.envs_module`.
"""

from __future__ import annotations

from typing import Any, Sequence

from referee.engine import DISCARD, PLAY, Action, Game
from referee.envs.actions import Oracle
from referee.envs.encode import BIG, RANKS, Writer, common, phase

from . import rules as R

#: the player count of an environment made without one
PLAYERS = 4
#: the BID amounts with an index of their own: none (Tractor declares with cards)
BID_AMOUNTS: tuple[int, ...] = ()

KITTY = 8
SUITS = ("C", "D", "H", "S", "NT")
LEAD_TYPES = ("single", "pair", "tractor", "throw")


def match_scores(game: Game) -> list[float]:
    """Each seat's team's level so far, 2..14 (before the end of the match)."""
    return [float(game.levels[s % 2]) for s in range(game.players)]  # type: ignore[attr-defined]


def _level(r: str) -> int:
    return RANKS.index(r) + 2 if r in RANKS else 15 if r else 0


def encode(w: Writer, o: Any, kind: str | None) -> None:
    """The array of a ``TractorObservation``."""
    common(w, kind, o.hand)
    phase(w, o.phase, ("declare", "bury", "play", "over"))
    w.flags("variant", [o.notrump_rank_cards_trump, o.must_follow_tractor, o.kitty_multiplier_power,
                        o.must_play_ace, o.no_throw_penalty],
            "variant flags notrump_rank_cards_trump, must_follow_tractor, kitty_multiplier_power, must_play_ace, "
            "no_throw_penalty")
    w.scalar("round", o.round_number, "the round (1-based)", 0, BIG)
    me_team = w.me % 2
    levels = [_level(x) for x in o.levels] or [0, 0]
    w.scalar("my_level", levels[me_team], "this seat's team's level (2..14)", 0, 15)
    w.scalar("their_level", levels[1 - me_team], "the other team's level (2..14)", 0, 15)
    w.choice("trump_rank", tuple(RANKS), o.trump_rank, "the round's trump rank, one-hot 2..A")
    w.choice("trump_suit", SUITS, o.trump_suit, "the trump suit once fixed: C, D, H, S, NT")
    dt = o.declarer_team
    w.choice("declarer_team", ("mine", "theirs"), None if dt < 0 else "mine" if dt == me_team else "theirs",
             "which team declares (none until known)")
    w.seat("starter", o.starter, "the starter")
    w.seat("first_drawer", o.first_drawer, "who received the first card")
    w.scalar("cards_dealt", o.cards_dealt, "cards dealt so far", 0, 108)
    w.flags("window", [o.final_window, o.declaration_closed], "the final declaration window is open; the trump is fixed")
    last = o.declarations[-1] if o.declarations else None
    w.seat("declared_by", last.seat if last is not None else -1, "who made the standing declaration")
    w.cards("declared", last.cards if last is not None else (), "the cards of the standing declaration")
    w.cards("kitty_flipped", o.kitty_flipped, "the kitty cards turned up")
    w.cards("kitty_taken", o.kitty_taken, "the kitty this seat took (the starter only)")
    w.cards("kitty_buried", o.kitty_buried, "the kitty this seat buried (the starter only)")
    w.per_seat("hand_sizes", o.hand_sizes, "cards in each hand", 0, 33)
    t = o.current_trick
    w.seat("trick_leader", t.leader if o.phase == 3 else -1, "who led the current trick")
    w.seat_cards("trick", ((p.seat, p.cards) for p in t.plays), "the current trick: each seat's cards")
    w.choice("lead_type", LEAD_TYPES, t.lead_type, "the effective lead's type: single, pair, tractor, throw")
    w.cards("throw_attempted", t.throw_failure.attempted, "the cards of a failed throw in the current trick")
    w.seat("trick_winner", t.winner if t.plays else -1, "who is winning the current trick")
    w.scalar("trick_points", t.points, "points in the current trick", 0, 200)
    w.scalar("defender_points", o.defender_points, "the defenders' points so far", -BIG, BIG)
    w.seat_cards("played", ((p.seat, p.cards) for tr in o.tricks for p in tr.plays),
                 "cards each seat played in the completed tricks of the round")


# ----------------------------------------------------------------------------- the oracles


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

