"""Pure rule functions of President (shared/rules/president.md).

Everything here is plain Python data: cards are code strings, ranks are the
rank codes of spec 3.4 (``"3"`` .. ``"A"``, ``"2"``, ``"JK"``), a *top* is
``None`` or a ``(count, rank)`` tuple. The engine (:mod:`.game`), the trick
machinery (:mod:`.play`) and the conformance queries (:mod:`.conformance`)
all call these same functions.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence, TypeVar

from referee.cards import JOKERS, RANKS, SUITS

T = TypeVar("T")

#: Rank codes from lowest to highest in the normal order (spec 3.1, 3.4).
RANK_CODES: tuple[str, ...] = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "JK")
#: Normal strength of each rank code (spec 3.1).
STRENGTH: dict[str, int] = {r: i for i, r in enumerate(RANK_CODES)}
#: Strength while a revolution is in force (spec 3.2): 12 - normal for 3..2, jokers stay 13.
REV_STRENGTH: dict[str, int] = {r: (13 if r == "JK" else 12 - s) for r, s in STRENGTH.items()}

#: Rank code of every card code (jokers -> "JK").
RANK_OF: dict[str, str] = {r + s: r for r in RANKS for s in SUITS}
RANK_OF.update({j: "JK" for j in JOKERS})

#: Suit index for tie-breaks, lowest first: C < D < H < S, and BJ < RJ (spec 3.3).
_SUIT_IDX: dict[str, int] = {s: i for i, s in enumerate(SUITS)}

#: Total card order of spec 3.3 (normal strength, then suit; RJ > BJ), as an int key.
CARD_ORDER: dict[str, int] = {c: STRENGTH[RANK_OF[c]] * 4 + _SUIT_IDX[c[1]] for c in RANK_OF if c not in JOKERS}
CARD_ORDER["BJ"] = 13 * 4
CARD_ORDER["RJ"] = 13 * 4 + 1
#: Card order while a revolution is in force (for the fallback lead, spec 6.10).
REV_CARD_ORDER: dict[str, int] = {c: REV_STRENGTH[RANK_OF[c]] * 4 + (CARD_ORDER[c] % 4) for c in CARD_ORDER}

STANDARD_PACK: tuple[str, ...] = tuple(sorted((c for c in CARD_ORDER if c not in JOKERS), key=CARD_ORDER.__getitem__))
JOKER_PACK: tuple[str, ...] = STANDARD_PACK + ("BJ", "RJ")

#: Role ids by finishing position, per player count (spec 4).
ROLE_TABLE: dict[int, tuple[str, ...]] = {
    4: ("president", "vice_president", "vice_scum", "scum"),
    5: ("president", "vice_president", "neutral", "vice_scum", "scum"),
    6: ("president", "vice_president", "upper_neutral", "lower_neutral", "vice_scum", "scum"),
    7: ("president", "vice_president", "upper_neutral", "neutral", "lower_neutral", "vice_scum", "super_scum"),
}
#: Role score of each role id, in role points (spec 4).
ROLE_SCORE: dict[str, int] = {
    "president": 2, "vice_president": 1, "upper_neutral": 0, "neutral": 0, "lower_neutral": 0,
    "vice_scum": -1, "scum": -2, "super_scum": -2,
}

VARIANT_FLAGS: tuple[str, ...] = (
    "bigger_sets_beat_lower", "bigger_sets_beat_any", "equal_rank_beats", "equal_rank_skip",
    "revolution", "jokers", "two_high_low", "transparent_threes", "double_exchange",
)
LATER_LEADERS: tuple[str, ...] = ("after_dealer", "scum", "president")

Top = tuple[int, str] | None


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards sorted by the card order of spec 3.3, lowest first."""
    return sorted(cards, key=CARD_ORDER.__getitem__)


def top_from_json(t: dict[str, Any] | None) -> Top:
    """``{"count": c, "rank": r}`` or ``None`` (query format) -> ``(c, r)`` or ``None``."""
    return None if t is None else (int(t["count"]), str(t["rank"]))


def top_to_json(t: Top) -> dict[str, Any] | None:
    """``(c, r)`` or ``None`` -> ``{"count": c, "rank": r}`` or ``None``."""
    return None if t is None else {"count": t[0], "rank": t[1]}


_ALLOWED_TABLES: dict[tuple[bool, ...], dict[tuple[Top, bool], dict[str, tuple[int, ...]]]] = {}


class Rules:
    """The variant flags of a match, resolved for fast rule checks (spec 6.2, 6.3, 10).

    ``Rules(variant)`` takes the dict of section-10 flags (missing = False).
    """

    __slots__ = ("bsbl", "bsba", "erb", "skip", "rev", "jokers", "thl", "tt", "double", "pack", "pack_set",
                 "_allowed")

    def __init__(self, variant: dict[str, Any]):
        g = variant.get
        self.bsbl = bool(g("bigger_sets_beat_lower", False))
        self.bsba = bool(g("bigger_sets_beat_any", False))
        self.erb = bool(g("equal_rank_beats", False))
        # equal_rank_skip acts only together with equal_rank_beats (spec 10, 11.23)
        self.skip = self.erb and bool(g("equal_rank_skip", False))
        self.rev = bool(g("revolution", False))
        self.jokers = bool(g("jokers", False))
        self.thl = bool(g("two_high_low", False))
        self.tt = bool(g("transparent_threes", False))
        self.double = bool(g("double_exchange", False))
        self.pack: tuple[str, ...] = JOKER_PACK if self.jokers else STANDARD_PACK
        self.pack_set = frozenset(self.pack)
        flags = (self.bsbl, self.bsba, self.erb, self.rev, self.thl, self.tt)
        # beat tables depend only on these flags: share them between matches
        self._allowed: dict[tuple[Top, bool], dict[str, tuple[int, ...]]] = _ALLOWED_TABLES.setdefault(flags, {})

    def __deepcopy__(self, memo: dict[int, Any]) -> "Rules":
        return self  # immutable after construction; its tables are shared caches

    def allowed_counts(self, top: Top, revolution: bool) -> dict[str, tuple[int, ...]]:
        """For each rank code, the counts ``c`` (1..4, ascending) for which a set
        of ``c`` cards of that rank beats ``top`` (memoised :meth:`beats`)."""
        key = (top, revolution)
        table = self._allowed.get(key)
        if table is None:
            table = self._allowed[key] = {
                r: tuple(c for c in range(1, 5) if self.beats(c, r, top, revolution)) for r in RANK_CODES}
        return table

    # -- spec 6.2 steps 3-7 -------------------------------------------------
    def beats(self, c: int, r: str, top: Top, revolution: bool) -> bool:
        """Whether a well-formed set of ``c`` cards of rank ``r`` may be played
        on ``top`` (spec 6.2 steps 3-7); ``revolution`` is the state R."""
        if top is None:
            return True  # step 3: a lead
        ct, rt = top
        if self.tt and r == "3" and c == ct:
            return True  # step 4: transparent threes
        if c < ct:
            return False  # step 5
        if c > ct:
            if self.bsba:
                return True
            if not self.bsbl:
                return False
        if self.thl and (r == "2" or rt == "2"):
            return True  # step 6
        st = REV_STRENGTH if (self.rev and revolution) else STRENGTH
        a, b = st[r], st[rt]
        return a > b or (self.erb and a == b)  # step 7

    def why_not(self, c: int, r: str, top: Top, revolution: bool) -> str:
        """Human explanation of why ``beats`` is false (for IllegalAction messages)."""
        assert top is not None
        ct, rt = top
        if c < ct:
            return f"{c} card(s) cannot beat a top of {ct} card(s) (6.2 step 5)"
        if c > ct and not self.bsba and not self.bsbl:
            return f"a set of {c} cannot be played on a top of {ct} card(s): the count must match (6.2 step 5)"
        order = "revolution order" if (self.rev and revolution) else "normal order"
        cmp = "higher than or equal to" if self.erb else "higher than"
        return f"rank {r} is not {cmp} the top's rank {rt} in the {order} (6.2 step 7)"

    def is_transparent(self, c: int, r: str, top: Top) -> bool:
        """Whether a legal play of ``c`` cards of rank ``r`` on ``top`` is a
        transparent play (spec 6.2 step 4; step 4 decides before all others)."""
        return self.tt and top is not None and r == "3" and c == top[0]

    # -- spec 6.3 steps 2-4 -------------------------------------------------
    def effect(self, c: int, r: str, top: Top, revolution: bool) -> tuple[tuple[int, str], bool, bool, bool]:
        """Effect of a legal play (spec 6.3): ``(new_top, new_revolution, skip, transparent)``."""
        transparent = self.is_transparent(c, r, top)
        new_top = (c, top[1]) if transparent and top is not None else (c, r)  # transparent implies a top
        new_rev = (not revolution) if (self.rev and c == 4) else revolution
        skip = self.skip and top is not None and not transparent and r == top[1]
        return new_top, new_rev, skip, transparent

    # -- spec 6.2 as a whole ------------------------------------------------
    def check_action(self, hand: Sequence[str], top: Top, play: Sequence[str] | None,
                     revolution: bool) -> str | None:
        """Spec 6.2 for a proposed action: ``play`` is a list of card codes, or
        ``None`` for a pass. Returns ``None`` if legal, else the reason (a
        message mentioning only the acting seat's hand and public state)."""
        if play is None:  # step 1
            return None if top is not None else "the leader of a trick must play, not pass (6.2 step 1)"
        if not play:  # step 2
            return "a play needs at least one card (6.2 step 2)"
        pack = self.pack_set
        for code in play:
            if code not in pack:
                if isinstance(code, str) and code in RANK_OF:
                    return f"{code} is not a card of the pack in use (jokers variant off) (6.2 step 2)"
                return f"malformed card code {code!r} (6.2 step 2)"
        if len(play) == 1:
            if play[0] not in hand:
                return f"{play[0]} is not in your hand (6.2 step 2)"
        else:
            need: dict[str, int] = {}  # code -> copies wanted, in first-occurrence order
            for code in play:
                need[code] = need.get(code, 0) + 1
            for code, k in need.items():
                have = hand.count(code)
                if have < k:
                    return (f"{code} is not in your hand (6.2 step 2)" if have == 0 else
                            f"{code} is used {k} times but you hold it {have} time(s) (6.2 step 2)")
        r = RANK_OF[play[0]]
        for code in play:
            if RANK_OF[code] != r:
                return "all cards of a play must have one rank (6.2 step 2)"
        c = len(play)
        if self.beats(c, r, top, revolution):
            return None
        return self.why_not(c, r, top, revolution)

    # -- spec 6.10 ------------------------------------------------------------
    def fallback_lead(self, hand: Iterable[str], revolution: bool) -> str:
        """The fallback lead (spec 6.10): the single lowest card under the order
        in force, ties by suit C, D, H, S (BJ before RJ)."""
        order = REV_CARD_ORDER if (self.rev and revolution) else CARD_ORDER
        return min(hand, key=order.__getitem__)


# -- spec 2.3 -------------------------------------------------------------------
def deal_sizes(n: int, dealer: int, pack_size: int) -> list[int]:
    """Cards dealt to each seat, indexed by seat (spec 2.3)."""
    q, e = divmod(pack_size, n)
    sizes = [q] * n
    for k in range(1, e + 1):
        sizes[(dealer + k) % n] += 1
    return sizes


def deal(shuffled: Sequence[T], n: int, dealer: int) -> list[list[T]]:
    """Deal a shuffled pack (of codes, or of any items) one card at a time from the seat after
    the dealer (spec 2.3)."""
    hands: list[list[T]] = [[] for _ in range(n)]
    for i, code in enumerate(shuffled):
        hands[(dealer + 1 + i) % n].append(code)
    return hands


# -- spec 4 -------------------------------------------------------------------
def roles(order: Sequence[int]) -> tuple[list[str], list[int]]:
    """``(roles, scores)`` indexed by seat from a finishing order of all seats (spec 4)."""
    n = len(order)
    table = ROLE_TABLE[n]
    out_roles = [""] * n
    out_scores = [0] * n
    for pos, seat in enumerate(order):
        out_roles[seat] = table[pos]
        out_scores[seat] = ROLE_SCORE[table[pos]]
    return out_roles, out_scores


# -- spec 5 -------------------------------------------------------------------
def highest_cards(hand: Iterable[str], k: int) -> list[str]:
    """The ``k`` highest cards of ``hand`` by card order (spec 3.3), highest first."""
    return sorted(hand, key=CARD_ORDER.__getitem__, reverse=True)[:k]


def lowest_cards(hand: Iterable[str], k: int) -> list[str]:
    """The ``k`` lowest cards of ``hand`` by card order (spec 3.3), lowest first."""
    return sorted(hand, key=CARD_ORDER.__getitem__)[:k]


def exchange_pairs(order: Sequence[int], double: bool) -> list[tuple[int, int, int]]:
    """The forced gifts of the exchange (spec 5.1 step 1, 5.2 step 1):
    ``[(giver, receiver, count), ...]``; the first is last place -> President."""
    pairs = [(order[-1], order[0], 2 if double else 1)]
    if double:
        pairs.append((order[-2], order[1], 1))
    return pairs


def forced_gifts(order: Sequence[int], hands: Sequence[Sequence[str]], double: bool) -> list[tuple[int, int, list[str]]]:
    """``[(giver, receiver, cards), ...]``: each giver's highest cards by card
    order (spec 5.1 step 1, 5.2 step 1), computed from the hands as dealt."""
    return [(g, r, highest_cards(hands[g], k)) for g, r, k in exchange_pairs(order, double)]


def return_duties(order: Sequence[int], double: bool) -> list[tuple[int, int, int, bool]]:
    """The returns to decide (spec 5.1 step 2, 5.2 step 2): ``[(returner,
    receiver, count, optional), ...]``, President first.

    Seed-text reading (shared/seeds/president.txt): "ਸਕੂਮ ਰਾਸ਼ਟਰਪਤੀ ਨੂੰ ਆਪਣਾ
    ਸਭ ਤੋਂ ਉੱਚਾ ਕਾਰਡ ਦਿੰਦਾ ਹੈ ਅਤੇ ਰਾਸ਼ਟਰਪਤੀ ... ਜੇਕਰ ਉਹ ਨਹੀਂ ਚਾਹੁੰਦੇ ਤਾਂ
    ਕਾਰਡਾਂ ਦਾ ਵਪਾਰ ਕਰਨ ਦੀ ਲੋੜ ਨਹੀਂ ਹੈ" (the Scum gives the President their
    highest card; the President need not trade back if they do not want to)
    is read, as spec 11.9 does, as an optional return of exactly one card.
    """
    if not double:
        return [(order[0], order[-1], 1, True)]
    return [(order[0], order[-1], 2, False), (order[1], order[-2], 1, False)]


# -- spec 2.2, 6.8 ----------------------------------------------------------------
def round_start(n: int, round_no: int, first_dealer: int, previous_order: Sequence[int] | None,
                later_leader: str) -> tuple[int, int]:
    """``(dealer, first_leader)`` of a round (spec 2.2, 6.8)."""
    if round_no == 1 or not previous_order:
        return first_dealer, (first_dealer + 1) % n
    dealer = previous_order[0]
    if later_leader == "scum":
        return dealer, previous_order[-1]
    if later_leader == "president":
        return dealer, dealer
    return dealer, (dealer + 1) % n


# -- spec 6.6 / 12.6 --------------------------------------------------------------
def next_active(counts: Sequence[int], x: int) -> int | None:
    """First seat among x+1, x+2, ... (mod n) holding a card, or ``None``."""
    n = len(counts)
    for k in range(1, n + 1):
        s = (x + k) % n
        if counts[s]:
            return s
    return None


# -- spec 8 -------------------------------------------------------------------
def final_ranking(totals: Sequence[int], last_order: Sequence[int]) -> list[int]:
    """Seats by total, highest first; ties by position in the last round's
    finishing order (earlier finisher ahead) (spec 8)."""
    pos = {s: i for i, s in enumerate(last_order)}
    return sorted(range(len(totals)), key=lambda s: (-totals[s], pos.get(s, len(totals))))


def match_over(totals: Sequence[int], rounds_played: int, target_score: int, max_rounds: int) -> bool:
    """Whether the match ends after a round (spec 8)."""
    return rounds_played >= max_rounds or any(t >= target_score for t in totals)
