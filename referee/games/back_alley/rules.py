"""Pure rule functions of Back Alley (shared/rules/back_alley.md).

Everything here is a pure function of plain Python data (lists of card
codes, ints, ``None``) so that the engine (:mod:`.game`) and the
conformance queries (:mod:`.conformance`) share exactly the same code.

Internal bid encoding (used by the engine and by these functions):

* :data:`PASS` (``0``) -- the bid "pass";
* an ``int`` ``n >= 1`` -- a number bid of ``n`` tricks;
* :data:`BOARD` (``-1``) -- the bid "board".

A trump suit is one of ``"S" "H" "D" "C"`` or ``None`` (no-trump round).
Teams: seat ``s`` belongs to team ``s % 2``.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from referee.cards import JOKERS, RANKS, STANDARD_DECK

#: the 54-card deck (spec section 1), in a fixed canonical order
DECK: tuple[str, ...] = STANDARD_DECK + JOKERS
TRUMP_CHOICES: tuple[str | None, ...] = (None, "C", "D", "H", "S")

PASS = 0
BOARD = -1

#: number of counted round indices in a match (spec section 1)
ROUNDS = 25
#: pass-outs in a row that close a round index at 0 : 0 (spec section 4.5)
MAX_PASSOUTS = 4

#: canonical sort index of each card: suits C < D < H < S, rank 2 < .. < A, then BJ < RJ
CANON: dict[str, int] = {c: i for i, c in enumerate(DECK)}
#: printed rank index 0 (2) .. 12 (A); jokers 13 (BJ), 14 (RJ)
RANK: dict[str, int] = {c: (RANKS.index(c[0]) if c not in JOKERS else 13 + JOKERS.index(c)) for c in DECK}


def _tables(trump: str | None) -> tuple[dict[str, str], dict[str, int], dict[str, int]]:
    """(effective suit, trump power, fallback "lowest" key) of every card under ``trump``.

    * effective suit (section 1.1): jokers belong to ``trump``. At no trump
      a joker never reaches play (section 2.4); for robustness it is given
      the pseudo-suit ``"J"`` and treated as a plain card.
    * trump power (section 3): -1 for a non-trump, else 0 (2) .. 12 (A),
      13 (BJ), 14 (RJ).
    * fallback key (section 13): non-trumps first, by rank then suit
      (C < D < H < S); then trumps in trump order.
    """
    eff: dict[str, str] = {}
    power: dict[str, int] = {}
    low: dict[str, int] = {}
    for c in DECK:
        if c in JOKERS:
            s = trump if trump is not None else "J"
        else:
            s = c[1]
        eff[c] = s
        if trump is not None and s == trump:
            power[c] = RANK[c]
            low[c] = 1000 + RANK[c]
        else:
            power[c] = -1
            low[c] = RANK[c] * 8 + ("CDHSJ".index(s))
    return eff, power, low


_T = {t: _tables(t) for t in TRUMP_CHOICES}
#: EFF[trump][card] -> effective suit letter
EFF: dict[str | None, dict[str, str]] = {t: v[0] for t, v in _T.items()}
#: POWER[trump][card] -> trump power (-1 = not a trump)
POWER: dict[str | None, dict[str, int]] = {t: v[1] for t, v in _T.items()}
#: LOW[trump][card] -> fallback order key (smaller = "lower", section 13)
LOW: dict[str | None, dict[str, int]] = {t: v[2] for t, v in _T.items()}


# ---------------------------------------------------------------------------
# Section 2: schedule, deal, upcard


def hand_size(k: Any) -> int | None:
    """Hand size ``h(k) = |13 - k| + 1`` for round index ``1 <= k <= 25`` (section 2.2).

    Returns ``None`` for any other ``k`` (including non-integers).
    """
    if type(k) is not int or not 1 <= k <= ROUNDS:
        return None
    return abs(13 - k) + 1


def deal(deck: Sequence[str], dealer: int, h: int) -> tuple[list[list[str]], list[str]]:
    """Deal ``h`` cards each from the shuffled ``deck`` (section 2.3).

    Card ``i`` goes to seat ``(dealer + 1 + i) % 4`` for ``i < 4h``. Returns
    ``(hands, stock)``: hands per seat in the order received, and the
    remaining ``54 - 4h`` cards, top first.
    """
    hands: list[list[str]] = [[], [], [], []]
    first = dealer + 1
    for i in range(4 * h):
        hands[(first + i) & 3].append(deck[i])
    return hands, list(deck[4 * h:])


def trump_flip(hands: Sequence[Sequence[str]], stock: Sequence[str]
               ) -> tuple[str | None, tuple[int, str, str] | None]:
    """Upcard, trump suit and joker exchange (section 2.4).

    ``stock`` lists the undealt cards from the top down (at least 2).
    Returns ``(trump, exchange)``: ``trump`` is the upcard's suit or ``None``
    for a joker upcard; ``exchange`` is ``None`` or ``(seat, joker, drawn)``
    when the seat holding the other joker lays it out and draws
    ``stock[1]``. Does not modify its arguments.
    """
    up = stock[0]
    if up not in JOKERS:
        return up[1], None
    other = "BJ" if up == "RJ" else "RJ"
    for seat, hand in enumerate(hands):
        if other in hand:
            return None, (seat, other, stock[1])
    return None, None


# ---------------------------------------------------------------------------
# Section 4: bidding


def parse_bid_json(value: Any) -> int | None:
    """JSON bid (``"pass"``, ``"board"`` or an integer) -> internal bid.

    Returns ``None`` for a value that is no bid at all in section 4.2's
    sense: the integer 0 (zero is bid as "pass"), negative numbers,
    non-integers (booleans, floats, numeric strings) and other strings.
    Range against ``h`` is checked by :func:`bid_problem`.
    """
    if value == "pass" and isinstance(value, str):
        return PASS
    if value == "board" and isinstance(value, str):
        return BOARD
    if type(value) is int and value >= 1:
        return value
    return None


def bid_to_json(bid: int) -> Any:
    """Internal bid -> JSON form (``"pass"``, ``"board"`` or the integer)."""
    if bid == PASS:
        return "pass"
    if bid == BOARD:
        return "board"
    return bid


def dealer_may_not_pass(prior_bids: Sequence[int], dealer_must_bid: bool) -> bool:
    """True when variant ``dealer_must_bid`` forbids "pass" (section 10): the
    bidder is the dealer (3 prior bids) and all three passed."""
    return dealer_must_bid and len(prior_bids) == 3 and all(b == PASS for b in prior_bids)


def bid_problem(h: int, bid: int | None, prior_bids: Sequence[int],
                dealer_must_bid: bool = False) -> tuple[str, str] | None:
    """Why ``bid`` (internal encoding, or ``None`` = not a bid) is illegal, or ``None`` if legal.

    Sections 4.2 and 10. Returns ``(rule, message)``: rule ``"4.2"`` for a
    malformed or out-of-range bid, ``"10"`` for a pass that
    ``dealer_must_bid`` forbids.
    """
    if bid is None:
        return ("4.2", "a bid is \"pass\", a number of tricks 1..h-1, or \"board\"")
    if bid == PASS:
        if dealer_may_not_pass(prior_bids, dealer_must_bid):
            return ("10", "dealer_must_bid: the dealer may not pass after three passes")
        return None
    if bid == BOARD:
        return None
    if 1 <= bid <= h - 1:
        return None
    if h == 1:
        return ("4.2", "with one card per seat no number is legal: bid pass or board")
    return ("4.2", f"a number bid must be 1..{h - 1} (all {h} tricks is bid as board)")


def legal_bids(h: int, prior_bids: Sequence[int], dealer_must_bid: bool = False) -> list[int]:
    """Every legal bid (internal encoding) in the order pass, 1..h-1, board (sections 4.2, 10)."""
    out = [] if dealer_may_not_pass(prior_bids, dealer_must_bid) else [PASS]
    out.extend(range(1, h))
    out.append(BOARD)
    return out


def bid_seat(dealer: int, i: int) -> int:
    """Seat that makes the ``i``-th bid (0-based) of a round (section 4.1)."""
    return (dealer + 1 + i) & 3


def board_levels(bids: Sequence[int]) -> list[int]:
    """Board level of each bid in bidding order: the k-th board call has level k, others 0 (section 4.3)."""
    out = []
    n = 0
    for b in bids:
        if b == BOARD:
            n += 1
            out.append(n)
        else:
            out.append(0)
    return out


def contracts(dealer: int, bids: Sequence[int]) -> list[tuple[int, int]] | None:
    """Team contracts from four bids in bidding order (section 4.4).

    Returns ``None`` when all four passed, else ``[(m0, b0), (m1, b1)]`` per
    team: ``m`` is the board level (0 = numeric contract) and ``b`` the
    numeric target (sum of the members' numbers, pass = 0; 0 when ``m > 0``).
    """
    if all(b == PASS for b in bids):
        return None
    level = [0, 0]
    total = [0, 0]
    n = 0
    for i, b in enumerate(bids):
        team = bid_seat(dealer, i) & 1
        if b == BOARD:
            n += 1
            level[team] = n  # later calls have higher levels
        elif b > 0:
            total[team] += b
    return [(level[t], 0 if level[t] else total[t]) for t in (0, 1)]


def opening_leader(dealer: int, bids: Sequence[int]) -> int | None:
    """Opening leader from individual bids (section 4.6): the last board
    caller; else the highest number, the first to bid it; ``None`` when all passed."""
    best = None
    best_val = 0
    for i, b in enumerate(bids):
        seat = bid_seat(dealer, i)
        if b == BOARD:
            best, best_val = seat, 10_000  # a later board always replaces
        elif b > best_val:
            best, best_val = seat, b
    return best


# ---------------------------------------------------------------------------
# Section 5: play


def legal_set_rule(hand: Sequence[str], trick: Sequence[str], trump: str | None,
                   trumps_broken: bool, first_trick: bool, team_board: bool,
                   board_may_lead_trump_first_trick: bool = False) -> tuple[list[str], str, str]:
    """``LegalSet`` of section 5.5, with the rule that restricted it.

    Returns ``(cards, rule, why)``: ``cards`` is the legal subset of
    ``hand`` (in hand order; the whole hand when nothing restricts);
    ``rule``/``why`` name the spec rule (``"5.3.3"``, ``"5.3.4"``,
    ``"5.4.1"``, ``"5.4.2"``, ``"5.4.3"``) and explain it in terms of the
    acting seat's own hand only; ``("", "")`` when unrestricted.
    """
    if not trick:
        if trump is None:
            return list(hand), "", ""
        pw = POWER[trump]
        non = [c for c in hand if pw[c] < 0]
        if not non or len(non) == len(hand):
            return list(hand), "", ""
        if first_trick:
            # Seed reading (shared/seeds/back_alley.txt): the garbled sentence
            # "they may play any card but a trump from the hand to lead the first
            # trick" is read as spec 11.20 does -- the ban holds even for a board
            # team, because the source attaches the board exception only to the
            # later broken-trump sentence; the variant flag relaxes it.
            if board_may_lead_trump_first_trick and team_board:
                return list(hand), "", ""
            return non, "5.3.3", "a trump (jokers included) may not be led to the first trick while you hold a non-trump"
        if trumps_broken or team_board:
            return list(hand), "", ""
        return non, "5.3.4", "trumps are not broken and your team holds no board contract: lead a non-trump"
    led = trick[0]
    if trump is not None and (led == "RJ" or led == "BJ"):
        pw = POWER[trump]
        s = [c for c in hand if pw[c] >= 0]
        if not s:
            return list(hand), "", ""
        if led == "RJ":
            top = max(s, key=pw.__getitem__)
            return [top], "5.4.1", f"after a Big Blooper (RJ) lead you must play your highest trump, {top}"
        low = min(s, key=pw.__getitem__)
        return [low], "5.4.2", f"after a Little Blooper (BJ) lead you must play your lowest trump, {low}"
    eff = EFF[trump]
    ls = eff[led]
    f = [c for c in hand if eff[c] == ls]
    if not f or len(f) == len(hand):
        return list(hand), "", ""
    return f, "5.4.3", f"you must follow the led suit {ls} (jokers count as trumps): " + " ".join(f)


def legal_set(hand: Sequence[str], trick: Sequence[str], trump: str | None,
              trumps_broken: bool, first_trick: bool, team_board: bool,
              board_may_lead_trump_first_trick: bool = False) -> list[str]:
    """``LegalSet(hand, trick, T, trumps_broken, first_trick, team_board)`` of section 5.5.

    ``hand`` and ``trick`` are lists of card codes (``trick`` in play order,
    0..3 cards). Returns the legal cards, a non-empty sub-list of ``hand``
    when ``hand`` is non-empty.
    """
    return legal_set_rule(hand, trick, trump, trumps_broken, first_trick, team_board,
                          board_may_lead_trump_first_trick)[0]


def trick_winner(trump: str | None, leader: int, cards: Sequence[str]) -> tuple[int, int]:
    """Winner of a complete trick (section 6).

    ``cards`` are the four cards in play order, led by seat ``leader``.
    Returns ``(seat, index)``: the winning seat ``(leader + index) % 4`` and
    the index of the winning card in ``cards``.
    """
    if trump is not None:
        pw = POWER[trump]
        best = -1
        bi = 0
        for i, c in enumerate(cards):
            p = pw[c]
            if p > best:
                best, bi = p, i
        if best >= 0:
            return (leader + bi) & 3, bi
    eff = EFF[trump]
    ls = eff[cards[0]]
    best = -1
    bi = 0
    for i, c in enumerate(cards):
        if eff[c] == ls and RANK[c] > best:
            best, bi = RANK[c], i
    return (leader + bi) & 3, bi


def contains_trump(trump: str | None, cards: Iterable[str]) -> bool:
    """True if any of ``cards`` is a trump card (breaks trumps, section 5.2)."""
    if trump is None:
        return False
    pw = POWER[trump]
    return any(pw[c] >= 0 for c in cards)


# ---------------------------------------------------------------------------
# Sections 7 and 8: scoring and the match winner


def team_score(h: int, b: int, m: int, t: int, zero_bid_scores_nothing: bool = False) -> int:
    """Points of one team for one round (section 7; variant of section 10).

    ``h`` hand size, ``b`` numeric target (ignored when ``m > 0``), ``m``
    board level (0 = numeric contract), ``t`` tricks won. Numeric: made
    (``t >= b``) ``5b + (t - b)``, failed ``-5b``; ``b = 0`` scores ``t`` (or
    0 under ``zero_bid_scores_nothing``). Board: ``+-10 h m``.
    """
    if m:
        v = 10 * h * m
        return v if t == h else -v
    if b == 0 and zero_bid_scores_nothing:
        return 0
    if t >= b:
        return 5 * b + (t - b)
    return -5 * b


def round_scores(dealer: int, h: int, bids: Sequence[int], tricks: Sequence[int],
                 zero_bid_scores_nothing: bool = False) -> list[int] | None:
    """Points per team for a round (sections 4.4 and 7), or ``None`` if passed out.

    ``bids`` four internal bids in bidding order; ``tricks`` per team.
    """
    cs = contracts(dealer, bids)
    if cs is None:
        return None
    return [team_score(h, cs[t][1], cs[t][0], tricks[t], zero_bid_scores_nothing) for t in (0, 1)]


def match_winner(totals: Sequence[int]) -> int | None:
    """Winning team (0 or 1) by the higher total, ``None`` on equal totals (section 8)."""
    if totals[0] > totals[1]:
        return 0
    if totals[1] > totals[0]:
        return 1
    return None


# ---------------------------------------------------------------------------
# Section 13: fallback actions


def fallback_bid(h: int, prior_bids: Sequence[int], dealer_must_bid: bool = False) -> int:
    """Fallback bid (section 13): pass; if ``dealer_must_bid`` forbids it,
    ``1`` when ``h >= 2`` and board when ``h == 1``."""
    if dealer_may_not_pass(prior_bids, dealer_must_bid):
        return 1 if h >= 2 else BOARD
    return PASS


def lowest(cards: Iterable[str], trump: str | None) -> str:
    """The "lowest" card of section 13: non-trumps before trumps; non-trumps
    by rank then suit (C < D < H < S); trumps in trump order."""
    return min(cards, key=LOW[trump].__getitem__)


def fallback_play(hand: Sequence[str], trick: Sequence[str], trump: str | None,
                  trumps_broken: bool, first_trick: bool, team_board: bool,
                  board_may_lead_trump_first_trick: bool = False) -> str:
    """Fallback lead or follow (section 13): the lowest legal card."""
    return lowest(legal_set(hand, trick, trump, trumps_broken, first_trick, team_board,
                            board_may_lead_trump_first_trick), trump)
