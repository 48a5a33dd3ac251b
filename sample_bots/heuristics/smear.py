"""Heuristic Cutthroat Canadian Smear bot (shared/rules/smear.md; guide docs/games/smear.md).

``choose(req)`` reads only the ``DecisionRequest``: ``req.observation.smear``
(its own hand plus the public state), ``req.legal_actions``,
``req.legal_actions_complete`` and ``req.kind``; it uses only the generated
``cardgames.v1`` stubs, never the engine, and always answers one of the
legal actions sent.

Strategy:

* **Auction** - for every suit, estimate the items (High, Low, Jack, Game)
  the hand would win with that suit as trump, from the cards held and the
  chance that a better card sits in an opponent's hand (each unseen card is
  in a given opponent's hand with probability hand size / unseen cards).
  Bid the largest legal bid the best estimate supports (thresholds below),
  else pass; a dealer forced to bid bids the lowest bid.
* **First lead** - lead the estimated best suit: its top card when it is a
  high trump (A, K, Q), else its lowest card (keeps a jack or ten safe).
* **Other plays** - each legal card gets an expected value in game-point
  units: what the trick is worth (game points, the jack of trump as an item)
  times the probability the card wins it (it beats the cards so far and no
  unseen card held by a seat still to play beats it), minus what it gives
  away when it loses, minus a small cost for spending high trumps. The card
  with the best value is played.
"""

from __future__ import annotations

from cardgames.v1 import referee_pb2 as pb

RANKS = "23456789TJQKA"
RV = {r: i + 1 for i, r in enumerate(RANKS)}
GP = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1}
SUITS = "CDHS"
JOKER = "BJ"
JACK_VALUE = 14.0  # the Jack item, in game-point units
# minimum estimated items to bid 2, 3, 4
BID_THRESHOLDS = {2: 2.0, 3: 2.9, 4: 3.7}


def _gp(c: str) -> int:
    return 1 if c == JOKER else GP.get(c[0], 0)


def _full_deck(with_joker: bool) -> list[str]:
    d = [r + s for s in SUITS for r in RANKS]
    if with_joker:
        d.append(JOKER)
    return d


def _unseen(o) -> set[str]:
    """Cards this seat has not seen: not in its hand, not played this round."""
    seen = set(o.hand)
    for t in o.tricks:
        seen.update(t.cards)
    for p in o.trick:
        seen.add(p.card)
    return set(_full_deck(o.variant.with_joker)) - seen


def _suit_estimate(hand: list[str], suit: str, o) -> float:
    """Expected items (points) if ``suit`` were trump and this seat led it."""
    n = o.players
    unseen = (53 if o.variant.with_joker else 52) - len(hand)
    q = min(0.95, 6.0 * (n - 1) / unseen)  # chance a given unseen card is in an opponent's hand
    trumps = sorted((RV[c[0]] for c in hand if c != JOKER and c[1] == suit), reverse=True)
    if not trumps:
        return 0.0
    top, low = trumps[0], trumps[-1]
    est = (1 - q) ** (13 - top)  # High: nobody holds a higher trump
    p_low = (1 - q) ** (low - 1)  # Low: nobody holds a lower natural trump
    if o.variant.low_to_taker:
        p_low *= 0.6
    est += p_low
    if RV["J"] in trumps:
        higher_held = sum(1 for r in trumps if r > RV["J"])
        est += min(0.9, 0.45 + 0.2 * higher_held)
    else:
        higher_held = sum(1 for r in trumps if r > RV["J"])
        est += q * 0.35 * higher_held
    tens = sum(1 for c in hand if c[0] == "T")
    aces = sum(1 for c in hand if c[0] == "A")
    base = 0.45 if n == 2 else 0.3
    est += max(0.05, min(0.85, base + 0.08 * (len(trumps) - 2) + 0.12 * tens + 0.05 * aces))
    return est


def _best_suit(hand: list[str], o) -> tuple[str, float]:
    best, best_e = "", -1.0
    for s in SUITS:
        e = _suit_estimate(hand, s, o)
        if e > best_e:
            best, best_e = s, e
    return best, best_e


def _choose_bid(req: pb.DecisionRequest, o) -> pb.Action:
    legal = list(req.legal_actions)
    bids = sorted((a for a in legal if a.kind == pb.ACTION_KIND_BID), key=lambda a: a.amount)
    passes = [a for a in legal if a.kind == pb.ACTION_KIND_PASS]
    _suit, est = _best_suit(list(o.hand), o)
    # a bid of 4 made with a score of at least 1 wins the match outright
    thresholds = dict(BID_THRESHOLDS)
    if o.scores[o.seat] >= 1:
        thresholds[4] -= 0.15
    # close to the target: a small made bid ends the match, so bid more freely
    if o.scores[o.seat] + min(est, 2.0) >= o.target:
        for b in thresholds:
            thresholds[b] -= 0.45
    choice = None
    for a in bids:
        if est >= thresholds.get(a.amount, 99.0):
            choice = a
    if choice is not None:
        return choice
    if passes:
        return passes[0]
    return bids[0]


def _beats(c: str, best: str, led_suit: str, trump: str) -> bool:
    """True if ``c`` played now beats the current winning card ``best``."""
    def key(x: str) -> int:
        if x == JOKER:
            return 100
        if x[1] == trump:
            return 101 + RV[x[0]]
        if x[1] == led_suit:
            return RV[x[0]]
        return -1
    return key(c) > key(best)


def _beaters(c: str, led_suit: str, trump: str, unseen: set[str]) -> int:
    """Unseen cards that would beat ``c`` in a trick led with ``led_suit``."""
    if c == JOKER or c[1] == trump:
        r = 0 if c == JOKER else RV[c[0]]
        return sum(1 for x in unseen if x != JOKER and x[1] == trump and RV[x[0]] > r)
    if c[1] != led_suit:
        return len(unseen)  # a third-suit card never wins
    higher = sum(1 for x in unseen if x != JOKER and x[1] == c[1] and RV[x[0]] > RV[c[0]])
    trumps = sum(1 for x in unseen if x == JOKER or x[1] == trump)
    # an opponent with a trump may not be void in the led suit: count trumps at half weight
    return higher + trumps // 2


def _choose_play(req: pb.DecisionRequest, o) -> pb.Action:
    legal = [a for a in req.legal_actions if a.kind == pb.ACTION_KIND_PLAY and len(a.cards) == 1]
    if not legal:
        return req.legal_actions[0]
    if len(legal) == 1:
        return legal[0]
    hand = list(o.hand)
    n = o.players
    trump = o.trump
    if not trump:  # the bidder's first lead fixes trump
        suit, _e = _best_suit(hand, o)
        cands = [a for a in legal if a.cards[0][1] == suit] or legal
        top = max(cands, key=lambda a: RV.get(a.cards[0][0], 0))
        if top.cards[0][0] in "AKQ":
            return top
        return min(cands, key=lambda a: RV.get(a.cards[0][0], 0))
    unseen = _unseen(o)
    trick = [p.card for p in o.trick]
    played_seats = [p.seat for p in o.trick]
    to_play_after = n - 1 - len(trick)  # seats still to play after this one
    led_suit = (trump if trick[0] == JOKER else trick[0][1]) if trick else None
    jack = "J" + trump
    # cards still to come from the other seats: their hand sizes
    others_after = [(o.seat + k) % n for k in range(1, to_play_after + 1)]
    n_unseen = max(1, len(unseen))
    # current best card of the trick and its seat
    best = None
    for c in trick:
        if best is None or _beats(c, best, led_suit, trump):
            best = c
    trick_value = sum(_gp(c) for c in trick) + (JACK_VALUE if jack in trick else 0.0)

    def value(c: str) -> float:
        ls = led_suit if led_suit is not None else (trump if c == JOKER else c[1])
        wins_now = best is None or _beats(c, best, ls, trump)
        own = _gp(c) + (JACK_VALUE if c == jack else 0.0)
        if wins_now:
            u = _beaters(c, ls, trump, unseen)
            p_hold = 1.0
            for s in others_after:
                p_hold *= max(0.0, 1.0 - o.hand_sizes[s] / n_unseen) ** u
        else:
            p_hold = 0.0
        # expected cards the later seats add to the trick
        later = 2.5 * to_play_after
        v = p_hold * (trick_value + own + later) - (1.0 - p_hold) * (own + 0.3 * (trick_value + later))
        is_t = c == JOKER or c[1] == trump
        if is_t and c != jack:
            v -= 0.4 * (RV.get(c[0], 0) / 13.0) * (1.0 if p_hold < 0.5 else 0.3)
            if not trick and p_hold < 0.5:
                v -= 1.0  # leading a losing trump only feeds opponents' high trumps
        elif not is_t:
            v -= 0.05 * RV[c[0]] * (1.0 if p_hold < 0.5 else 0.0)
        return v

    scored = [(value(a.cards[0]), -RV.get(a.cards[0][0], 0), a.cards[0], a) for a in legal]
    scored.sort(key=lambda t: (t[0], t[1], t[2]))
    del played_seats
    return scored[-1][3]


def choose(req: pb.DecisionRequest) -> pb.Action:
    """Pick an action for ``req`` (see the module docstring); always one of ``req.legal_actions``."""
    o = req.observation.smear
    if req.kind == pb.DECISION_KIND_BID:
        return _choose_bid(req, o)
    return _choose_play(req, o)
