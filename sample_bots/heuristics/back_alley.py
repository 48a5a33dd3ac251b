"""Heuristic decision function for Back Alley (shared/rules/back_alley.md).

``choose(req)`` reads only the ``DecisionRequest``: ``req.observation.back_alley``
(its own hand plus the public state), ``req.legal_actions`` and ``req.kind``.
It uses the generated stubs only, never the referee engine.

* **Bidding**: estimates the tricks its own hand should take (top trumps,
  guarded side-suit honours, ruffing value of short suits, scaled by the
  chance that a higher card is out in an opponent's hand), bids a bit under
  the estimate, passes with less than one expected trick, and calls board
  only when the estimate covers every trick (e.g. holding ``RJ`` in a
  one-card round).
* **Play**: tracks played cards and known voids from the public trick
  history; does not overtake a partner who is winning safely; otherwise
  wins as cheaply as possible (the lowest sure winner, or the lowest card
  that wins when last to play); discards its lowest card when it cannot
  win. Leads sure winners first, draws trumps with ``RJ`` or top trumps
  when trumps may be led and it holds several, and otherwise leads low
  from a short side suit to make a void for ruffing.
"""

from __future__ import annotations

from cardgames.v1 import referee_pb2 as pb

RANKS = "23456789TJQKA"
SUITS = "CDHS"
DECK = [r + s for s in SUITS for r in RANKS] + ["BJ", "RJ"]


def _rank(c: str) -> int:
    if c == "BJ":
        return 13
    if c == "RJ":
        return 14
    return RANKS.index(c[0])


def _suit(c: str, trump: str) -> str:
    """Effective suit: jokers belong to the trump suit ("" = no trump -> "J")."""
    if c in ("BJ", "RJ"):
        return trump or "J"
    return c[1]


def _is_trump(c: str, trump: str) -> bool:
    return bool(trump) and _suit(c, trump) == trump


def _beats(c: str, best: str, led_suit: str, trump: str) -> bool:
    """True if ``c`` would beat the currently winning card ``best``."""
    ct, bt = _is_trump(c, trump), _is_trump(best, trump)
    if ct and not bt:
        return True
    if bt and not ct:
        return False
    if ct and bt:
        return _rank(c) > _rank(best)
    return _suit(c, trump) == led_suit and _suit(best, trump) == led_suit and _rank(c) > _rank(best)


def _low_key(c: str, trump: str) -> tuple[int, int, int]:
    """Cheapest first: non-trumps by rank, then trumps by rank."""
    return (1 if _is_trump(c, trump) else 0, _rank(c), "CDHSJ".index(_suit(c, trump)))


def _winning(plays, trump: str) -> tuple[str, int]:
    """(card, seat) currently winning a non-empty trick."""
    led = plays[0].card
    led_suit = _suit(led, trump)
    best, seat = led, plays[0].seat
    for p in plays[1:]:
        if _beats(p.card, best, led_suit, trump):
            best, seat = p.card, p.seat
    return best, seat


class _View:
    """Derived public knowledge from one observation."""

    def __init__(self, o) -> None:
        self.o = o
        self.seat = o.seat
        self.partner = (o.seat + 2) % 4
        self.trump = o.trump
        self.hand = list(o.hand)
        played = []
        # voids[s] = set of effective suits seat s is known to lack
        self.voids = {s: set() for s in range(4)}
        tricks = list(o.completed_tricks)
        if o.HasField("current_trick"):
            tricks.append(o.current_trick)
        for t in tricks:
            plays = list(t.plays)
            if not plays:
                continue
            led = plays[0].card
            ls = _suit(led, self.trump)
            joker_lead = bool(self.trump) and led in ("BJ", "RJ")
            for p in plays:
                played.append(p.card)
                if p is plays[0]:
                    continue
                if joker_lead:
                    if not _is_trump(p.card, self.trump):
                        self.voids[p.seat].add(self.trump)
                elif _suit(p.card, self.trump) != ls:
                    self.voids[p.seat].add(ls)
        self.played = set(played)
        known = set(self.hand) | self.played | {o.upcard}
        if o.laid_out_joker:
            known.add(o.laid_out_joker)
        self.unseen = [c for c in DECK if c not in known]

    def higher_unseen(self, c: str) -> int:
        """Unseen cards that would beat ``c`` in its own suit (or any higher trump)."""
        tr = self.trump
        if _is_trump(c, tr):
            return sum(1 for u in self.unseen if _is_trump(u, tr) and _rank(u) > _rank(c))
        s = _suit(c, tr)
        return sum(1 for u in self.unseen if _suit(u, tr) == s and _rank(u) > _rank(c))

    def ruff_risk(self, suit: str, after: list[int]) -> bool:
        """True if an opponent still to play may be void in ``suit`` and hold a trump."""
        tr = self.trump
        if not tr or suit == tr:
            return False
        if not any(_is_trump(u, tr) for u in self.unseen):
            return False
        return any(s % 2 != self.seat % 2 and suit in self.voids[s] and tr not in self.voids[s] for s in after)


# ---------------------------------------------------------------------------
# bidding


def _estimate(o) -> float:
    """Expected tricks this hand takes by itself."""
    h = o.round_hand_size
    tr = o.trump
    hand = list(o.hand)
    known = set(hand) | {o.upcard}
    if o.laid_out_joker:
        known.add(o.laid_out_joker)
    unseen = [c for c in DECK if c not in known]
    # chance one given unseen card sits in an opponent's hand
    q = min(1.0, 2 * h / max(1, len(unseen)))
    by_suit: dict[str, list[str]] = {}
    for c in hand:
        by_suit.setdefault(_suit(c, tr), []).append(c)
    for cs in by_suit.values():
        cs.sort(key=_rank, reverse=True)
    est = 0.0
    trumps = by_suit.get(tr, []) if tr else []
    for i, c in enumerate(trumps):
        higher = sum(1 for u in unseen if _is_trump(u, tr) and _rank(u) > _rank(c))
        # my own higher trumps absorb the first rounds: a card can be caught
        # only by higher cards that an opponent holds
        p = (1 - q) ** max(0, higher - i) if higher > i else 1.0
        est += p
    for s, cs in by_suit.items():
        if tr and s == tr:
            continue
        for i, c in enumerate(cs):
            higher = sum(1 for u in unseen if _suit(u, tr) == s and _rank(u) > _rank(c))
            p = (1 - q) ** higher
            # later rounds of a suit are more and more likely to be ruffed
            round_no = i + 1
            if tr:
                p *= max(0.0, 1.0 - 0.12 * round_no * q * 4)
            # unguarded honours fall to higher cards played first
            if higher > i:
                p *= 0.5
            est += p
    if tr:
        # ruffing value: low trumps beyond the ones already counted, when short somewhere
        short = sum(1 for s in SUITS if s != tr and len(by_suit.get(s, [])) <= 1)
        extra = max(0, len(trumps) - 2)
        est += 0.35 * min(short, extra) * min(1.0, 4 * q)
    return min(est, float(h))


def _bid(req: pb.DecisionRequest) -> pb.Action:
    o = req.observation.back_alley
    h = o.round_hand_size
    legal = list(req.legal_actions)
    est = _estimate(o)
    # board only when the hand alone should take every trick; with one card
    # the estimate is the chance that card wins (a trump with at most a
    # couple of higher trumps possibly out)
    sure_all = est >= (0.75 if h == 1 else h - 0.05)
    if sure_all:
        want = ("BID", h)
    else:
        n = int(est + 0.3)
        n = min(n, h - 1)
        want = ("PASS", 0) if n <= 0 else ("BID", n)
    kind = pb.ACTION_KIND_PASS if want[0] == "PASS" else pb.ACTION_KIND_BID
    for a in legal:
        if a.kind == kind and a.amount == want[1]:
            return a
    # pass forbidden (dealer_must_bid): the smallest number, else board
    nums = [a for a in legal if a.kind == pb.ACTION_KIND_BID]
    nums.sort(key=lambda a: a.amount)
    return nums[0] if nums else legal[0]


# ---------------------------------------------------------------------------
# play


def _play(req: pb.DecisionRequest) -> pb.Action:
    o = req.observation.back_alley
    legal_actions = list(req.legal_actions)
    if len(legal_actions) == 1:
        return legal_actions[0]
    by_card = {a.cards[0]: a for a in legal_actions}
    legal = list(by_card)
    v = _View(o)
    tr = v.trump
    plays = list(o.current_trick.plays)
    if not plays:
        return by_card[_lead(v, legal, o)]
    best, best_seat = _winning(plays, tr)
    led_suit = _suit(plays[0].card, tr)
    after = [(o.seat + i) % 4 for i in range(1, 4 - len(plays))]
    last = not after
    partner_winning = best_seat == v.partner
    if partner_winning:
        safe = last or (v.higher_unseen(best) == 0 and not v.ruff_risk(led_suit, after)
                        and not _is_trump(best, tr) or (_is_trump(best, tr) and v.higher_unseen(best) == 0))
        if safe:
            return by_card[min(legal, key=lambda c: _low_key(c, tr))]
    winners = [c for c in legal if _beats(c, best, led_suit, tr)]
    if winners:
        if last:
            return by_card[min(winners, key=lambda c: _low_key(c, tr))]
        sure = [c for c in winners if v.higher_unseen(c) == 0
                and (_is_trump(c, tr) or not v.ruff_risk(led_suit, after))]
        if sure:
            return by_card[min(sure, key=lambda c: _low_key(c, tr))]
        if partner_winning:
            return by_card[min(legal, key=lambda c: _low_key(c, tr))]
        return by_card[min(winners, key=lambda c: _low_key(c, tr))]
    return by_card[min(legal, key=lambda c: _low_key(c, tr))]


def _lead(v: _View, legal: list[str], o) -> str:
    tr = v.trump
    trumps_in_hand = [c for c in v.hand if _is_trump(c, tr)]
    legal_trumps = [c for c in legal if _is_trump(c, tr)]
    unseen_trumps = [u for u in v.unseen if _is_trump(u, tr)] if tr else []
    # draw trumps when strong in them
    if legal_trumps and unseen_trumps and len(trumps_in_hand) >= 3:
        if "RJ" in legal_trumps and len(trumps_in_hand) >= 2:
            return "RJ"
        top = max(legal_trumps, key=_rank)
        if v.higher_unseen(top) == 0:
            return top
    # sure side-suit winners
    others = [(s % 2 != v.seat % 2) for s in range(4)]
    sure = []
    for c in legal:
        if _is_trump(c, tr):
            continue
        s = _suit(c, tr)
        if v.higher_unseen(c) == 0 and not v.ruff_risk(s, [x for x in range(4) if others[x]]):
            sure.append(c)
    if sure:
        return max(sure, key=_rank)
    non_trumps = [c for c in legal if not _is_trump(c, tr)]
    pool = non_trumps or legal
    if trumps_in_hand and non_trumps:
        # lead low from the shortest side suit to create a ruffing void
        counts: dict[str, int] = {}
        for c in v.hand:
            counts[_suit(c, tr)] = counts.get(_suit(c, tr), 0) + 1
        return min(pool, key=lambda c: (counts[_suit(c, tr)], _rank(c)))
    if legal_trumps and not non_trumps:
        top = max(legal_trumps, key=_rank)
        if v.higher_unseen(top) == 0:
            return top
    return min(pool, key=lambda c: _low_key(c, tr))


def choose(req: pb.DecisionRequest) -> pb.Action:
    """Pick an action for ``req`` (a Back Alley ``DecisionRequest``).

    Returns one of ``req.legal_actions`` (Back Alley lists are always
    complete): ``PASS`` / ``BID amount`` (``amount = hand size`` is board)
    when ``req.kind`` is BID, a one-card ``PLAY`` otherwise.
    """
    if req.kind == pb.DECISION_KIND_BID:
        return _bid(req)
    return _play(req)
