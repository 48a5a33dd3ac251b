"""Heuristic Tractor bot (shared/rules/tractor.md): ``choose(req) -> Action``.

Uses only the DecisionRequest (``req.observation.tractor``, ``req.legal_actions``,
``req.legal_actions_complete``, ``req.kind``) and the generated stubs; it
keeps its own small card model (play-suits and steps, spec 4.1-4.2) instead
of importing the engine.

Strategy, by decision:

* DECLARE -- never override the partner; reinforce its own single; else
  declare the legal declaration whose trump suit gives the hand the largest
  share of trumps, if that share is decent (lower bar in round 1, where the
  declarer becomes starter, and when overriding an opponent).
* DISCARD -- bury non-trump, non-point, unpaired low cards, shortest suits
  first (to make voids); trumps only if needed.
* PLAY, lead -- lead the cards of a play-suit that nobody can beat (counting
  every card seen: own hand, played cards, own buried kitty) as one throw,
  preferring natural suits where no opponent is known void; else a low
  non-point single of the shortest natural suit.
* PLAY, follow -- score every candidate (the legal list, complete or not):
  expected points for the team minus the value of the cards spent, where a
  candidate that beats the current winner (or lets the partner keep the
  trick) wins the trick's points for the team.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from cardgames.v1 import referee_pb2 as pb

RANKS = "23456789TJQKA"
SUITS = "SHDC"
JOKERS = ("BJ", "RJ")
TRUMP = "T*"  # internal play-suit name of the trumps (never a card suit)
ALL = [r + s for s in SUITS for r in RANKS] + list(JOKERS)
POINTS = {c: (5 if c[0] == "5" else 10 if c[0] in "TK" else 0) if c not in JOKERS else 0 for c in ALL}
SF = {c: (SUITS.index(c[1]) if c not in JOKERS else 0) for c in ALL}


class Model:
    """Play-suit and step of every card for one round (spec 4.1-4.2)."""

    def __init__(self, trump_suit: str, r: str, nrt: bool):
        ts = None if trump_suit in ("", "NT") else trump_suit
        rank_trump = ts is not None or nrt
        self.suit: dict[str, str] = {}
        self.step: dict[str, int] = {}
        self.nsteps: dict[str, int] = {}
        for x in SUITS:
            if x == ts:
                continue
            v = 0
            for k in RANKS:
                if rank_trump and k == r:
                    continue
                self.suit[k + x], self.step[k + x] = x, v
                v += 1
            self.nsteps[x] = v
        v = 0
        if ts is not None:
            for k in RANKS:
                if k != r:
                    self.suit[k + ts], self.step[k + ts] = TRUMP, v
                    v += 1
            for x in SUITS:
                if x != ts:
                    self.suit[r + x], self.step[r + x] = TRUMP, v
            v += 1
            self.suit[r + ts], self.step[r + ts] = TRUMP, v
            v += 1
        elif nrt:
            for x in SUITS:
                self.suit[r + x], self.step[r + x] = TRUMP, v
            v += 1
        for j in JOKERS:
            self.suit[j], self.step[j] = TRUMP, v
            v += 1
        self.nsteps[TRUMP] = v

    def suit_of(self, cards: Iterable[str]) -> str | None:
        s = None
        for c in cards:
            x = self.suit[c]
            if s is None:
                s = x
            elif s != x:
                return None
        return s

    def value(self, c: str) -> float:
        """How much a card is worth keeping (0 = worthless low card)."""
        s = self.suit[c]
        rel = self.step[c] / max(1, self.nsteps[s] - 1)
        return (6.0 + 8.0 * rel) if s == TRUMP else 7.0 * rel ** 2

    # -- shapes (spec 6.2, 8) ------------------------------------------------
    def units(self, cards: Iterable[str]) -> tuple[dict[int, int], int]:
        """(step -> pair units, highest step) of a card multiset."""
        cnt = Counter(cards)
        u: dict[int, int] = {}
        top = -1
        for c, k in cnt.items():
            v = self.step[c]
            top = max(top, v)
            if k >= 2:
                u[v] = u.get(v, 0) + k // 2
        return u, top

    def shape(self, cards: list[str]) -> tuple[list[int], int, int, int]:
        """Decomposition shape of a lead: (tractor lengths desc, pairs, singles, top step)."""
        cnt = Counter(cards)
        singles = sum(1 for k in cnt.values() if k % 2)
        u, top = self.units(cards)
        trs, pairs = [], 0
        u = dict(u)
        while any(u.values()):
            vs = sorted(v for v, k in u.items() if k > 0)
            i = 0
            while i < len(vs):
                j = i
                while j + 1 < len(vs) and vs[j + 1] == vs[j] + 1:
                    j += 1
                L = j - i + 1
                if L == 1:
                    pairs += 1
                else:
                    trs.append(L)
                for v in vs[i:j + 1]:
                    u[v] -= 1
                i = j + 1
        ptop = max((self.step[c] for c, k in cnt.items() if k >= 2), default=top)
        return sorted(trs, reverse=True), pairs, singles, (ptop if (trs or pairs) else top)

    def _fit(self, u: dict[int, int], trs: list[int], pairs: int) -> bool:
        if not trs:
            return sum(u.values()) >= pairs
        L = trs[0]
        for t in list(u):
            if all(u.get(t - i, 0) >= 1 for i in range(L)):
                for i in range(L):
                    u[t - i] -= 1
                ok = self._fit(u, trs[1:], pairs)
                for i in range(L):
                    u[t - i] += 1
                if ok:
                    return True
        return False

    def strength(self, lead: list[str], play: list[str]) -> tuple[int, int] | None:
        """Section 8 strength of ``play`` against the effective ``lead`` (None = cannot win)."""
        S = self.suit_of(lead)
        X = self.suit_of(play)
        if S is None or X is None or len(play) != len(lead) or not (X == S or (X == TRUMP and S != TRUMP)):
            return None
        cls = 2 if X == TRUMP else 1
        trs, pairs, singles, _ = self.shape(lead)
        n = len(lead)
        if n == 1:
            return cls, self.step[play[0]]
        if n == 2 and pairs == 1:
            return (cls, self.step[play[0]]) if play[0] == play[1] else None
        if len(trs) == 1 and pairs == 0 and singles == 0:
            ptrs, pp, ps, ptop = self.shape(play)
            return (cls, ptop) if (ptrs == trs and pp == 0 and ps == 0) else None
        # throw
        if X != TRUMP or S == TRUMP:
            return None
        u, top = self.units(play)
        if not trs:
            if pairs == 0:
                return 2, top
            return (2, max(u)) if sum(u.values()) >= pairs else None
        L = trs[0]
        for t in sorted(u, reverse=True):
            if all(u.get(t - i, 0) >= 1 for i in range(L)):
                for i in range(L):
                    u[t - i] -= 1
                ok = self._fit(u, trs[1:], pairs)
                for i in range(L):
                    u[t - i] += 1
                if ok:
                    return 2, t
        return None

    def lead_strength(self, lead: list[str]) -> tuple[int, int]:
        S = self.suit_of(lead)
        trs, pairs, singles, top = self.shape(lead)
        if len(trs) + pairs + singles > 1:
            return (2 if S == TRUMP else 1), 10 ** 6
        return (2 if S == TRUMP else 1), top


def _act(kind: int, cards: Iterable[str] = ()) -> pb.Action:
    return pb.Action(kind=kind, cards=list(cards))


# ---------------------------------------------------------------------------
# declaration
# ---------------------------------------------------------------------------

def _declare(req: pb.DecisionRequest, o) -> pb.Action:
    decls = [list(a.cards) for a in req.legal_actions if a.kind == pb.ACTION_KIND_DECLARE]
    if not decls:
        return _act(pb.ACTION_KIND_PASS)
    me, partner = o.seat, (o.seat + 2) % 4
    standing = o.declarations[-1] if len(o.declarations) else None
    if standing is not None and standing.seat == partner:
        return _act(pb.ACTION_KIND_PASS)
    if standing is not None and standing.seat == me:
        for d in decls:  # reinforcement: protect our own suit
            if len(d) == 2 and d[0] == standing.cards[0]:
                return _act(pb.ACTION_KIND_DECLARE, d)
        return _act(pb.ACTION_KIND_PASS)
    hand = list(o.hand)
    r = o.trump_rank
    n = max(1, len(hand))
    jokers = sum(1 for c in hand if c in JOKERS)
    rankc = sum(1 for c in hand if c[0] == r and c not in JOKERS)
    best, best_score = None, -1.0
    for d in decls:
        if d[0] in JOKERS:
            aces = sum(1 for c in hand if c[0] in "AK" and c not in JOKERS)
            share = (jokers + aces * 0.5) / n
            share *= 0.7
        else:
            s = d[0][1]
            share = (sum(1 for c in hand if c[1:] == s and c[0] != r and c not in JOKERS) + rankc + jokers) / n
        if share > best_score:
            best, best_score = d, share
    bar = 0.34
    if o.round_number == 1:
        bar = 0.22 if o.cards_dealt < 40 else 0.28
    if standing is not None:
        bar -= 0.04
    if len(hand) <= 3 and o.round_number == 1:
        bar = 0.0
    if best is not None and best_score >= bar:
        return _act(pb.ACTION_KIND_DECLARE, best)
    return _act(pb.ACTION_KIND_PASS)


# ---------------------------------------------------------------------------
# kitty exchange
# ---------------------------------------------------------------------------

def _bury(req: pb.DecisionRequest, o) -> pb.Action:
    m = Model(o.trump_suit, o.trump_rank, o.notrump_rank_cards_trump)
    hand = list(o.hand)
    cnt = Counter(hand)
    lens = Counter(m.suit[c] for c in hand)
    nat = [c for c in hand if m.suit[c] != TRUMP]
    top_step = {s: m.nsteps[s] - 1 for s in SUITS if s in m.nsteps}

    def key(c: str):
        s = m.suit[c]
        return (POINTS[c] > 0, cnt[c] >= 2, m.step[c] >= top_step.get(s, 99) - 1, lens[s], m.step[c])

    chosen: list[str] = sorted(nat, key=key)[:8]
    if len(chosen) < 8:
        rest = Counter(hand) - Counter(chosen)
        trumps = sorted(rest.elements(), key=lambda c: (POINTS[c] > 0, m.step[c]))
        chosen += trumps[:8 - len(chosen)]
    return _act(pb.ACTION_KIND_DISCARD, chosen)


# ---------------------------------------------------------------------------
# play
# ---------------------------------------------------------------------------

def _tricks(o) -> list:
    return list(o.tricks) + ([o.current_trick] if o.HasField("current_trick") else [])


def _unseen(o, hand: list[str]) -> Counter:
    """Cards this seat has not seen: in other hands or (not starter) the kitty."""
    seen = list(hand)
    for t in _tricks(o):
        for p in t.plays:
            seen.extend(p.cards)
    seen.extend(o.kitty_buried)
    out = Counter({c: 2 for c in ALL})
    out.subtract(Counter(seen))
    return +out


def _voids(o, m: Model) -> dict[int, set[str]]:
    """Play-suits each seat is known to be void in (it did not follow them)."""
    v: dict[int, set[str]] = {s: set() for s in range(4)}
    suit = m.suit
    for t in _tricks(o):
        if not t.plays:
            continue
        S = m.suit_of(t.plays[0].cards)
        for p in t.plays[1:]:
            for c in p.cards:
                if suit[c] != S:
                    v[p.seat].add(S)
                    break
    return v


def _sure_cards(m: Model, mine: Counter, unseen: Counter, S: str) -> list[str]:
    """Own cards of play-suit S that no other hand can beat (as singles or pairs)."""
    out_steps = [m.step[c] for c, k in unseen.items() if k > 0 and m.suit[c] == S]
    out_pair_steps = [m.step[c] for c, k in unseen.items() if k >= 2 and m.suit[c] == S]
    hi = max(out_steps, default=-1)
    hip = max(out_pair_steps, default=-1)
    res: list[str] = []
    for c, k in mine.items():
        if m.suit[c] != S:
            continue
        v = m.step[c]
        if k >= 2 and v > hip:  # no higher pair can be outside: the pair is safe
            res += [c, c]
        elif v > hi:  # no higher card outside: safe as a single
            res.append(c)
    return res


def _lead(req: pb.DecisionRequest, o, m: Model, hand: list[str]) -> pb.Action:
    me = o.seat
    team = me % 2
    mine = Counter(hand)
    unseen = _unseen(o, hand)
    voids = _voids(o, m)
    opps = [(me + 1) % 4, (me + 3) % 4]
    opp_trumpless = all(TRUMP in voids[s] for s in opps)
    by_suit: dict[str, list[str]] = {}
    for c in hand:
        by_suit.setdefault(m.suit[c], []).append(c)
    best, best_score = None, -1e9
    for S, cards in by_suit.items():
        sure = _sure_cards(m, mine, unseen, S)
        if not sure:
            continue
        if S != TRUMP and any(S in voids[s] for s in opps) and not opp_trumpless:
            continue
        # split a sure pair/tractor from hopeless leftovers is already done: `sure` only holds winners
        score = 20 + 5 * len(sure) + sum(POINTS[c] for c in sure) * 0.5
        if S == TRUMP:
            outside_trumps = sum(k for c, k in unseen.items() if m.suit[c] == TRUMP)
            score = 10 + 3 * len(sure) if outside_trumps > 0 else 5
            if o.declarer_team != team:
                score -= 8
        if score > best_score:
            best, best_score = sure, score
    if best is not None:
        return _act(pb.ACTION_KIND_PLAY, best)
    # no sure winner: a low non-point single of the shortest natural suit
    nat = [S for S in by_suit if S != TRUMP]
    if nat:
        def suit_key(S: str):
            cs = by_suit[S]
            return (any(S in voids[s] for s in opps), len(cs))
        for S in sorted(nat, key=suit_key):
            cs = sorted(by_suit[S], key=lambda c: (POINTS[c] > 0, mine[c] >= 2, m.step[c]))
            return _act(pb.ACTION_KIND_PLAY, [cs[0]])
    cs = sorted(by_suit[TRUMP], key=lambda c: (POINTS[c] > 0, mine[c] >= 2, m.step[c]))
    return _act(pb.ACTION_KIND_PLAY, [cs[0]])


def _follow(req: pb.DecisionRequest, o, m: Model, hand: list[str]) -> pb.Action:
    me = o.seat
    team = me % 2
    partner = (me + 2) % 4
    t = o.current_trick
    lead = list(t.plays[0].cards)
    plays = {p.seat: list(p.cards) for p in t.plays}
    win_seat = t.winner
    win_play = plays[win_seat]
    win_str = m.lead_strength(lead) if win_seat == t.leader else m.strength(lead, win_play)
    unseen = _unseen(o, hand)
    voids = _voids(o, m)
    S = m.suit_of(lead)
    remaining = [(me + i) % 4 for i in range(1, 4 - len(t.plays))]
    opp_after = [s for s in remaining if s % 2 != team]
    defenders = o.declarer_team != team
    trick_pts = t.points
    mine = Counter(hand)

    outside: dict[str, list[int]] = {}
    for c, k in unseen.items():
        outside.setdefault(m.suit[c], []).extend([m.step[c]] * k)
    n_out_trumps = len(outside.get(TRUMP, ()))
    can_trump = S != TRUMP and any(S in voids[s] for s in opp_after)

    def beatable_after(strength: tuple[int, int]) -> float:
        """Rough chance that an opponent still to play beats ``strength``."""
        if not opp_after:
            return 0.0
        cls, rank = strength
        if len(lead) > 1:
            return 0.15 if cls == 2 else 0.3
        if cls == 2:
            higher = sum(1 for v in outside.get(TRUMP, ()) if v > rank)
        else:
            higher = sum(1 for v in outside.get(S, ()) if v > rank)
            if can_trump:
                higher += n_out_trumps
        return min(0.9, 0.25 * higher) if higher else 0.0

    cands = [list(a.cards) for a in req.legal_actions]
    best, best_score = None, -1e9
    for c in cands:
        s = m.strength(lead, c)
        beats = s is not None and win_str is not None and s > win_str
        if beats:
            p_team = 1.0 - beatable_after(s)
        elif win_seat == partner:
            p_team = 1.0 - (beatable_after(win_str) if win_str is not None else 0.5)
        else:
            p_team = 0.0
        pts = trick_pts + sum(POINTS[x] for x in c)
        gain = p_team * pts if defenders else -(1.0 - p_team) * pts
        # winning the lead matters a little by itself (control), more late in the round
        cost = sum(m.value(x) for x in c)
        # do not break pairs needlessly
        cc = Counter(c)
        broken = sum(1 for x, k in cc.items() if k == 1 and mine[x] >= 2)
        score = gain + (3.0 * p_team if beats else 0.0) - cost - 1.5 * broken
        if score > best_score:
            best, best_score = c, score
    assert best is not None
    return _act(pb.ACTION_KIND_PLAY, best)


def choose(req: pb.DecisionRequest) -> pb.Action:
    """Decide one Tractor decision from the request alone (see module doc)."""
    o = req.observation.tractor
    if req.kind == pb.DECISION_KIND_DECLARE:
        return _declare(req, o)
    if req.kind == pb.DECISION_KIND_DISCARD:
        return _bury(req, o)
    m = Model(o.trump_suit, o.trump_rank, o.notrump_rank_cards_trump)
    hand = list(o.hand)
    if not len(o.current_trick.plays):
        return _lead(req, o, m, hand)
    return _follow(req, o, m, hand)
