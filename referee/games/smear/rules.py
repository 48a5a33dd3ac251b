"""Pure rule functions of Cutthroat Canadian Smear (shared/rules/smear.md).

Everything here is stateless and works on plain Python data (card codes as
``str``, seats as ``int``); :class:`referee.games.smear.game.SmearGame` and
the conformance module both call these functions, so the vectors test the
very code that referees matches.

Representations:

* a card is a CONVENTIONS.md code (``"TH"``); the joker of ``with_joker``
  is ``"BJ"`` (spec section 10 and 11.3);
* a suit is one letter of ``"CDHS"``; ``None`` means "no trump yet";
* an auction call is an ``int``: ``0`` is ``pass``, ``2``/``3``/``4`` a bid
  (only legal calls are ever stored, so a stored ``0`` is always a pass).
"""

from __future__ import annotations

from typing import Iterable, Sequence

from referee.cards import RANKS, STANDARD_DECK, SUITS

JOKER = "BJ"  # the one joker of variant with_joker (spec section 11.3)
#: rank strength of a natural card, 2 -> 1 .. A -> 13 (spec section 3)
RANK_VALUE: dict[str, int] = {r: i + 1 for i, r in enumerate(RANKS)}
#: game-point values of spec section 4 (9 down to 2 are worth 0)
GAME_POINT_VALUE: dict[str, int] = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1}
#: the joker's game-point value (spec section 4, variant with_joker)
JOKER_GAME_POINTS = 1

#: the 52-card deck, suits C D H S, ranks 2..A (shuffled by the referee)
DECK52: tuple[str, ...] = STANDARD_DECK
#: the 53-card deck of ``with_joker``
DECK53: tuple[str, ...] = DECK52 + (JOKER,)
VALID_CODES: frozenset[str] = frozenset(DECK53)

HAND_SIZE = 6  # spec section 2, step 3
TRICKS = 6  # spec section 6, step 2
TARGET = 11  # spec section 8
MIN_BID, MAX_BID = 2, 4  # spec section 5, step 1
PASS_CALL = 0

# Sort key of the observation's hand order and of the fallback comparison
# (spec section 13: rank first, then suit C < D < H < S, joker lowest).
_FALLBACK_KEY: dict[str, tuple[int, int]] = {c: (RANK_VALUE[c[0]], SUITS.index(c[1])) for c in DECK52}
_FALLBACK_KEY[JOKER] = (0, -1)
_HAND_KEY: dict[str, tuple[int, int]] = {c: (SUITS.index(c[1]), RANK_VALUE[c[0]]) for c in DECK52}
_HAND_KEY[JOKER] = (4, 0)


def sort_hand(cards: Iterable[str]) -> list[str]:
    """Cards sorted by suit (C, D, H, S) then rank (2..A), joker last.

    This is only a display order; it carries no information about the deal.
    """
    return sorted(cards, key=_HAND_KEY.__getitem__)


def lowest_card(cards: Sequence[str]) -> str:
    """The lowest card for the fallback action (spec section 13).

    Rank first (2 lowest, A highest), then suit ``C < D < H < S``; the joker
    is lower than every other card. ``cards`` must be non-empty.
    """
    return min(cards, key=_FALLBACK_KEY.__getitem__)


# ---------------------------------------------------------------- ranking (3)
def is_trump(card: str, trump: str | None) -> bool:
    """True if ``card`` is a trump (spec section 3): of the trump suit, or the joker.

    Before trump is fixed (``trump is None``) nothing is a trump.
    """
    if trump is None:
        return False
    return card == JOKER or card[1] == trump


def effective_suit(card: str, trump: str | None) -> str | None:
    """Effective suit (spec section 3): the printed suit; the joker's is ``trump``."""
    return trump if card == JOKER else card[1]


def trump_rank(card: str) -> int:
    """Strength of a trump in trump order (spec section 3): joker 0, 2 -> 1 .. A -> 13."""
    return 0 if card == JOKER else RANK_VALUE[card[0]]


def game_points(cards: Iterable[str]) -> int:
    """Sum of the game-point values of ``cards`` (spec section 4); all suits count."""
    total = 0
    for c in cards:
        total += JOKER_GAME_POINTS if c == JOKER else GAME_POINT_VALUE.get(c[0], 0)
    return total


# ---------------------------------------------------------------- auction (5)
def auction_state(players: int, dealer: int, calls: Sequence[int]) -> tuple[bool, int | None, int | None, int]:
    """State of an auction after the legal ``calls`` (spec section 5).

    ``calls[i]`` was made by seat ``(dealer + 1 + i) mod players``; ``0`` is a
    pass. Returns ``(complete, next_seat, bidder, bid)``: ``complete`` when a
    4 was bid or ``players`` calls were made (step 4); ``next_seat`` is
    ``None`` when complete; ``bidder``/``bid`` are the highest bid so far
    (``None``/``0`` without a bid). Passed out = complete and no bidder.
    """
    bidder: int | None = None
    bid = 0
    for i, c in enumerate(calls):
        if c > bid:
            bid = c
            bidder = (dealer + 1 + i) % players
    complete = len(calls) >= players or bid >= MAX_BID
    nxt = None if complete else (dealer + 1 + len(calls)) % players
    return complete, nxt, bidder, bid


def check_call(players: int, dealer: int, calls: Sequence[int], seat: int, is_pass: bool, amount: int,
               dealer_forced_bid: bool) -> tuple[str, str] | None:
    """Check one call (spec section 5); ``None`` if legal, else ``(rule, message)``.

    ``is_pass`` is true for a pass (then ``amount`` is ignored); otherwise
    ``amount`` is the bid attempted (any integer). Rules: ``"TURN"`` for an
    auction that is over or a seat out of turn (5.2, 5.4), ``"5.1"`` for a
    number that is not a bid, ``"5.3"`` for a bid not above the highest,
    ``"5.6"`` for a pass by a dealer forced to bid (``dealer_forced_bid``).
    """
    complete, nxt, _bidder, high = auction_state(players, dealer, calls)
    if complete:
        return ("TURN", "the auction is over: every seat calls at most once and a bid of 4 ends it")
    if seat != nxt:
        return ("TURN", f"it is seat {nxt}'s call, not seat {seat}'s")
    if is_pass:
        if dealer_forced_bid and seat == dealer and high == 0:
            return ("5.6", "dealer_forced_bid: every other seat passed, so the dealer must bid 2, 3 or 4")
        return None
    if amount < MIN_BID or amount > MAX_BID:
        return ("5.1", f"{amount} is not a bid: a bid is 2, 3 or 4")
    if amount <= high:
        return ("5.3", f"a bid of {amount} does not exceed the highest bid so far ({high})")
    return None


def legal_calls(players: int, dealer: int, calls: Sequence[int], dealer_forced_bid: bool) -> list[int]:
    """Every legal call of the seat to call (``0`` = pass, then bids ascending)."""
    complete, nxt, _b, high = auction_state(players, dealer, calls)
    if complete:
        return []
    out = [] if (dealer_forced_bid and nxt == dealer and high == 0) else [PASS_CALL]
    out.extend(range(max(high + 1, MIN_BID), MAX_BID + 1))
    return out


# ---------------------------------------------------------------- play (6)
def legal_plays(hand: Sequence[str], led: str | None, trump: str | None, strict_follow: bool) -> list[str]:
    """Cards of ``hand`` that may be played (spec section 6, step 3), in hand order.

    ``led`` is the first card of the current trick (``None`` when leading);
    ``trump`` the trump suit (``None`` before the round's first card).
    """
    if led is None:
        if trump is None:  # 6.3.2: the joker may not fix trump
            return [c for c in hand if c != JOKER]
        return list(hand)
    s = trump if led == JOKER else led[1]
    if s == trump:  # trump led: a trump if the hand holds one (joker included, 11.17)
        trumps = [c for c in hand if c == JOKER or c[1] == trump]
        return trumps if trumps else list(hand)
    if not any(c != JOKER and c[1] == s for c in hand):
        return list(hand)  # void in the suit led: anything
    if strict_follow:
        return [c for c in hand if c != JOKER and c[1] == s]
    return [c for c in hand if c == JOKER or c[1] == s or c[1] == trump]


def play_error(hand: Sequence[str], led: str | None, trump: str | None, card: str,
               strict_follow: bool) -> str | None:
    """Why ``card`` may not be played (spec section 6, step 3), or ``None`` if legal.

    The message mentions only the player's own hand and public state.
    """
    if card not in hand:
        if card not in VALID_CODES:
            return f"{card!r} is not a card of this game (codes: rank 2-9TJQKA + suit CDHS, joker BJ)"
        return f"{card} is not in your hand"
    if card in legal_plays(hand, led, trump, strict_follow):
        return None
    if led is None:
        return "the joker may not be the first card of a round: it cannot fix the trump suit"
    s = trump if led == JOKER else led[1]
    if s == trump:
        return f"trump ({trump}) was led and you hold a trump: you must play a trump"
    if strict_follow:
        return f"strict_follow: you hold {s}, so you must follow suit {s}"
    return f"you hold {s}: you must follow suit {s} or play a trump ({trump})"


def is_legal_play(hand: Sequence[str], led: str | None, trump: str | None, card: str, strict_follow: bool) -> bool:
    """True if ``card`` is legal (spec section 6, step 3; false if not in ``hand``)."""
    return card in hand and card in legal_plays(hand, led, trump, strict_follow)


def trick_winner_index(cards: Sequence[str], trump: str) -> int:
    """Index in ``cards`` (play order) of the card that wins the trick (spec 6.4).

    The highest trump if any (joker lowest), else the highest card of the
    suit of ``cards[0]`` (the joker led makes it a trump lead).
    """
    led_suit = trump if cards[0] == JOKER else cards[0][1]
    best_i = 0
    best = -1
    for i, c in enumerate(cards):
        if c == JOKER:
            k = 100
        elif c[1] == trump:
            k = 101 + RANK_VALUE[c[0]]
        elif c[1] == led_suit:
            k = RANK_VALUE[c[0]]
        else:
            continue
        if k > best:
            best, best_i = k, i
    return best_i


def trick_winner(leader: int, cards: Sequence[str], trump: str, players: int) -> int:
    """Seat that wins the trick; ``cards[i]`` was played by ``(leader + i) mod players``."""
    return (leader + trick_winner_index(cards, trump)) % players


# ---------------------------------------------------------------- items (4)
def award_items(players: int, trump: str, won: Sequence[Sequence[str]], trumps_played: Sequence[Sequence[str]],
                low_to_taker: bool) -> dict:
    """Award High, Low, Jack and Game (spec section 4, 11.5-11.11).

    ``won[s]``: all cards of the tricks seat ``s`` won; ``trumps_played[s]``:
    the trumps seat ``s`` played (the joker may be among them and is never
    High or Low). Returns ``{"high", "low", "jack", "game": seat | None,
    "high_card", "low_card": code | None, "game_points": [int per seat],
    "points": [int per seat]}``.
    """
    # Reading of the seed text (shared/seeds/smear.txt): it gives High to "the
    # player who plays the ace of trump" and Low to whoever plays the lowest
    # trump "in play". Taken as spec 11.5/11.6 resolve it: the highest / lowest
    # *natural* trump actually played, to the seat that played it (identical to
    # the source whenever the ace is dealt; the joker is never High or Low).
    high = low = None
    high_card = low_card = None
    hi_r, lo_r = 0, 99
    for s in range(players):
        for c in trumps_played[s]:
            if c == JOKER:
                continue
            r = RANK_VALUE[c[0]]
            if r > hi_r:
                hi_r, high, high_card = r, s, c
            if r < lo_r:
                lo_r, low, low_card = r, s, c
    jack_card = "J" + trump
    jack = None
    for s in range(players):
        if jack_card in won[s]:
            jack = s
            break
    # Seed text: Jack goes to "the player who wins the jack of trump in a
    # trick" (spec 11.9), not to whoever played it; nobody if it was not dealt.
    if low_to_taker and low_card is not None:
        low = None
        for s in range(players):
            if low_card in won[s]:
                low = s
                break
    gp = [game_points(w) for w in won]
    top = max(gp)
    game = gp.index(top) if gp.count(top) == 1 else None
    points = [0] * players
    for seat in (high, low, jack, game):
        if seat is not None:
            points[seat] += 1
    return {"high": high, "low": low, "jack": jack, "game": game, "high_card": high_card,
            "low_card": low_card, "game_points": gp, "points": points}


# ---------------------------------------------------------------- scoring (7)
def score_round(bidder: int, bid: int, points: Sequence[int], scores: Sequence[int]) -> tuple[bool, list[int]]:
    """Apply round scoring (spec section 7): returns ``(made, new_scores)``.

    Made (``points[bidder] >= bid``): the bidder adds all points won; set: the
    bidder loses ``bid`` and its points are forfeited (11.19). Every other
    seat adds its points either way. No floor, no ceiling.
    """
    made = points[bidder] >= bid
    new = [sc + p for sc, p in zip(scores, points)]
    if not made:
        new[bidder] = scores[bidder] - bid
    return made, new


# ---------------------------------------------------------------- match end (8)
def match_end(bidder: int | None, bid: int | None, made: bool | None, old: Sequence[int], new: Sequence[int],
              rounds_played: int | None, max_rounds: int) -> tuple[int | None, bool]:
    """The end-of-round check of spec section 8: returns ``(winner, over)``.

    ``bidder is None`` means a passed-out deal. The bidder wins when it made
    the bid and has ``>= 11`` after scoring, or made a bid of 4 with ``>= 1``
    before it. Otherwise the match ends without a winner when
    ``rounds_played == max_rounds`` (``rounds_played is None`` skips the limit).
    """
    if bidder is not None and made and (new[bidder] >= TARGET or (bid == MAX_BID and old[bidder] >= 1)):
        return bidder, True
    if rounds_played is not None and rounds_played >= max_rounds:
        return None, True
    return None, False


def standings(scores: Sequence[int], winner: int | None) -> list[int]:
    """Final places, 1 = best (spec section 8, "Final standings").

    The winner (if any) is first; the other seats follow by final score,
    highest first; equal scores share a place (competition ranking).
    """
    out = []
    for s, sc in enumerate(scores):
        if s == winner:
            out.append(1)
            continue
        ahead = sum(1 for o, osc in enumerate(scores) if o != winner and o != s and osc > sc)
        out.append(1 + (1 if winner is not None else 0) + ahead)
    return out
