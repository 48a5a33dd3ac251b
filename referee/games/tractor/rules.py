"""Pure rule functions of Tractor (shared/rules/tractor.md, "the spec").

Everything here is a plain function of plain data (card codes, ``dict``
code -> count multisets, ints), shared by the :class:`~referee.games.tractor.game.TractorGame`
engine and by the conformance queries, so that both answer identically.

Vocabulary used in this module:

* ``Ctx`` -- the card context of a round: trump suit (or ``None`` for a
  no-trump round), trump rank, and the ``notrump_rank_cards_trump`` flag.
  It maps every code to its play-suit (section 4.1) and its step (4.2).
* A *step* is an ``int``; inside one play-suit the steps are numbered
  ``0, 1, 2, ...`` from the lowest up, so that two steps are consecutive
  exactly when they differ by 1.
* A *multiset* of cards is a ``dict`` code -> count (count >= 1).
* A component (:class:`Comp`) is a single, a pair or a tractor of the
  decomposition of section 6.2.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import chain, combinations, product
from math import comb, floor
from typing import Any, Iterable, NamedTuple

RANKS = "23456789TJQKA"
#: numeric value of a level / rank (2..9, T=10, J=11, Q=12, K=13, A=14), spec "level"
RANK_VALUE = {r: i + 2 for i, r in enumerate(RANKS)}
VALUE_RANK = {v: r for r, v in RANK_VALUE.items()}
NATURAL_SUITS = "SHDC"
TRUMP = "trump"
JOKERS = ("BJ", "RJ")
#: the 108-card pack of spec 1.2, in a fixed canonical order (the referee shuffles it)
DECK: tuple[str, ...] = tuple(r + s for s in NATURAL_SUITS for r in RANKS) * 2 + ("BJ", "BJ", "RJ", "RJ")
ALL_CODES = frozenset(DECK)
#: spades-first order (S, H, D, C) used by the decomposition (6.2 step 4) and the forced component (9.2)
SPADES_FIRST = {c: ("SHDC".index(c[1]) if c not in JOKERS else 0) for c in ALL_CODES}
#: CONVENTIONS tie-break order C < D < H < S, BJ < RJ (used by the fallback order of section 16)
TIEBREAK = {c: ("CDHS".index(c[1]) if c not in JOKERS else JOKERS.index(c)) for c in ALL_CODES}
#: card points of section 5
POINTS = {c: (5 if c[0] == "5" else 10 if c[0] in "TK" else 0) if c not in JOKERS else 0 for c in ALL_CODES}

INF = 10 ** 6


# ---------------------------------------------------------------------------
# card context (sections 4.1, 4.2)
# ---------------------------------------------------------------------------

class Ctx:
    """Card context of a round (spec 4.1-4.2, 13 ``notrump_rank_cards_trump``).

    Attributes: ``trump_suit`` ("S"/"H"/"D"/"C" or ``None``), ``trump_rank``
    (rank char), ``nrt`` (flag); ``suit_of[code]`` -> play-suit name ("S",
    "H", "D", "C" or "trump"); ``step_of[code]`` -> step int (0 = lowest of
    its play-suit, consecutive steps differ by 1); ``key_of[code]`` -> the
    fallback "lowest" order key of section 16 (natural suits before trumps,
    then step, then suit C < D < H < S); ``order_of[code]`` -> int of the
    display order (play-suits S, H, D, C, trump; then step; then suit C < D <
    H < S); ``steps[suit]`` -> list of steps (low to high), each a list of
    codes in spades-first order.
    """

    __slots__ = ("trump_suit", "trump_rank", "nrt", "suit_of", "step_of", "key_of", "steps", "order_of")

    def __deepcopy__(self, memo: dict[int, Any]) -> Ctx:
        return self  # never changed after construction (and a compiled class is not copied without __init__)

    def __init__(self, trump_suit: str | None, trump_rank: str, nrt: bool = False):
        r = trump_rank
        self.trump_suit, self.trump_rank, self.nrt = trump_suit, r, nrt
        steps: dict[str, list[list[str]]] = {}
        rank_is_trump = trump_suit is not None or nrt
        for x in NATURAL_SUITS:
            if x == trump_suit:
                steps[x] = []
            else:
                steps[x] = [[k + x] for k in RANKS if not (rank_is_trump and k == r)]
        if trump_suit is not None:
            s = trump_suit
            tr = [[k + s] for k in RANKS if k != r]
            tr.append([r + x for x in NATURAL_SUITS if x != s])
            tr.append([r + s])
        elif nrt:
            tr = [[r + x for x in NATURAL_SUITS]]
        else:
            tr = []
        tr += [["BJ"], ["RJ"]]
        steps[TRUMP] = tr
        self.steps = steps
        self.suit_of: dict[str, str] = {}
        self.step_of: dict[str, int] = {}
        self.key_of: dict[str, tuple[int, int, int]] = {}
        self.order_of: dict[str, int] = {}
        for gi, suit in enumerate(("S", "H", "D", "C", TRUMP)):
            for v, codes in enumerate(steps[suit]):
                for c in codes:
                    self.suit_of[c] = suit
                    self.step_of[c] = v
                    self.key_of[c] = (1 if suit == TRUMP else 0, v, TIEBREAK[c])
                    self.order_of[c] = gi * 1000 + v * 10 + TIEBREAK[c]

    def is_trump(self, code: str) -> bool:
        """True if ``code`` belongs to the trump play-suit (4.1)."""
        return self.suit_of[code] == TRUMP


@lru_cache(maxsize=None)
def ctx_for(trump_suit: str | None, trump_rank: str, nrt: bool = False) -> Ctx:
    """Cached :class:`Ctx` for (trump suit or None, trump rank char, notrump_rank_cards_trump)."""
    return Ctx(trump_suit, trump_rank, nrt)


def counts_of(cards: Iterable[str]) -> dict[str, int]:
    """Multiset (code -> count) of a card list."""
    d: dict[str, int] = {}
    for c in cards:
        d[c] = d.get(c, 0) + 1
    return d


def expand(counts: dict[str, int]) -> list[str]:
    """Card list of a multiset (each code repeated by its count)."""
    out: list[str] = []
    for c, k in counts.items():
        if k == 1:  # most codes of a hand (two decks: at most two copies)
            out.append(c)
        elif k:
            out.extend([c] * k)
    return out


def points_of(cards: Iterable[str]) -> int:
    """Card points (section 5) of a card list."""
    return sum(POINTS[c] for c in cards)


# ---------------------------------------------------------------------------
# decomposition and leads (sections 6.1 - 6.3)
# ---------------------------------------------------------------------------

class Comp(NamedTuple):
    """One component of a decomposition (6.2).

    ``size`` cards; ``top`` step of the card / pair / top pair; ``sf`` the
    spades-first index (S=0 .. C=3) of the top card's suit (tie-break of 9.2);
    ``kind`` "single" / "pair" / "tractor"; ``length`` number of pairs (0 for
    a single); ``cards`` the cards.
    """

    size: int
    top: int
    sf: int
    kind: str
    length: int
    cards: tuple[str, ...]


def decompose(counts: dict[str, int], ctx: Ctx) -> list[Comp]:
    """Decomposition of section 6.2 of a multiset of ONE play-suit.

    Pair units are the codes held twice; singles the codes held once; then
    repeated passes turn every maximal run of consecutive steps holding pair
    units into one pair (run of 1) or tractor (run of k >= 2), using at a
    step with several units the spades-first unit first (6.2 step 4).
    Returns the components (order: singles, then pass by pass, low runs first).
    """
    step = ctx.step_of
    comps: list[Comp] = []
    units: dict[int, list[str]] = {}
    for c, k in counts.items():
        if k >= 2:
            lst = units.setdefault(step[c], [])
            lst.extend([c] * (k // 2))
        if k & 1:
            comps.append(Comp(1, step[c], SPADES_FIRST[c], "single", 0, (c,)))
    if not units:
        return comps
    for lst in units.values():
        if len(lst) > 1:
            lst.sort(key=SPADES_FIRST.__getitem__)
    while units:
        vs = sorted(units)
        i, nv = 0, len(vs)
        while i < nv:
            j = i
            while j + 1 < nv and vs[j + 1] == vs[j] + 1:
                j += 1
            codes = [units[v].pop(0) for v in vs[i:j + 1]]
            length = j - i + 1
            cards = tuple(x for c in codes for x in (c, c))
            top = codes[-1]
            comps.append(Comp(2 * length, vs[j], SPADES_FIRST[top], "pair" if length == 1 else "tractor",
                              length, cards))
            i = j + 1
        units = {v: lst for v, lst in units.items() if lst}
    return comps


class Lead:
    """A lead analysed by section 6.3 (one play-suit, non-empty).

    ``cards`` tuple; ``counts`` multiset; ``suit`` play-suit; ``n`` card
    count; ``comps`` decomposition; ``type`` "single"/"pair"/"tractor"/"throw";
    ``tractors`` tractor lengths (descending); ``pairs``/``singles`` counts;
    ``need`` pair count of section 7 rule 3 (a tractor of length L counts L);
    ``top`` step of a single/pair/tractor lead (``INF`` for a throw).
    """

    __slots__ = ("cards", "counts", "suit", "n", "comps", "type", "tractors", "pairs", "singles", "need", "top")

    def __deepcopy__(self, memo: dict[int, Any]) -> Lead:
        return self  # never changed after construction (and a compiled class is not copied without __init__)

    def __init__(self, cards: tuple[str, ...], counts: dict[str, int], suit: str, comps: list[Comp]):
        self.cards, self.counts, self.suit, self.n, self.comps = cards, counts, suit, len(cards), comps
        self.tractors = sorted((c.length for c in comps if c.kind == "tractor"), reverse=True)
        self.pairs = sum(1 for c in comps if c.kind == "pair")
        self.singles = sum(1 for c in comps if c.kind == "single")
        self.need = sum(c.length for c in comps)
        if len(comps) == 1:
            self.type = comps[0].kind
            self.top = comps[0].top
        else:
            self.type = "throw"
            self.top = INF


def play_suit_of(cards: Iterable[str], ctx: Ctx) -> str | None:
    """The common play-suit of ``cards``, or ``None`` if empty or mixed."""
    so = ctx.suit_of
    suit = None
    for c in cards:
        s = so[c]
        if suit is None:
            suit = s
        elif s != suit:
            return None
    return suit


def analyze_lead(cards: Iterable[str], ctx: Ctx) -> Lead | None:
    """Section 6.3: the :class:`Lead` of ``cards``, or ``None`` when the list
    is empty or holds several play-suits (never a legal lead)."""
    cards = tuple(cards)
    suit = play_suit_of(cards, ctx)
    if suit is None:
        return None
    counts = counts_of(cards)
    return Lead(cards, counts, suit, decompose(counts, ctx))


def pair_steps(counts: dict[str, int], ctx: Ctx, suit: str | None = None) -> dict[int, int]:
    """step -> number of pair units (codes held twice) of ``counts`` (restricted to ``suit`` if given)."""
    step, so = ctx.step_of, ctx.suit_of
    out: dict[int, int] = {}
    for c, k in counts.items():
        if k >= 2 and (suit is None or so[c] == suit):
            v = step[c]
            out[v] = out.get(v, 0) + k // 2
    return out


def has_tractor(counts: dict[str, int], length: int, ctx: Ctx, suit: str | None = None, above: int = -1) -> bool:
    """True if ``counts`` (restricted to ``suit``) holds a tractor of ``length``
    pairs whose top step is > ``above`` (6.1: one pair per consecutive step)."""
    ps = pair_steps(counts, ctx, suit)
    if len(ps) < length:
        return False
    for t in ps:
        if t > above and all((t - i) in ps for i in range(1, length)):
            return True
    return False


def tractors_in(counts: dict[str, int], ctx: Ctx, length: int | None = None) -> list[tuple[str, ...]]:
    """Every distinct tractor (card tuple, low step first) held in ``counts``
    (cards of one play-suit), of the given length or of any length >= 2.
    Steps holding several pairs (the rank-r step) give one tractor per choice."""
    step = ctx.step_of
    units: dict[int, list[str]] = {}
    for c, k in counts.items():
        if k >= 2:
            units.setdefault(step[c], []).append(c)
    out: list[tuple[str, ...]] = []
    if len(units) < 2:
        return out
    for lst in units.values():
        lst.sort(key=SPADES_FIRST.__getitem__)
    vs = sorted(units)
    for i, a in enumerate(vs):
        j = i
        while j + 1 < len(vs) and vs[j + 1] == vs[j] + 1:
            j += 1
            L = j - i + 1
            if length is not None and L != length:
                continue
            combos: list[tuple[str, ...]] = [()]
            for v in vs[i:j + 1]:
                combos = [cb + (c, c) for cb in combos for c in units[v]]
            out.extend(combos)
    return out


# ---------------------------------------------------------------------------
# following (section 7, variant must_follow_tractor)
# ---------------------------------------------------------------------------

def follow_error(lead: Lead, hand: dict[str, int], play: Iterable[str], ctx: Ctx,
                 must_follow_tractor: bool = False) -> tuple[str, str] | None:
    """Section 7: ``None`` if ``play`` is a legal follow of the effective
    ``lead`` from ``hand`` (the whole hand before playing), else
    ``(rule, message)`` with rule "7.1" (count / not in hand), "7.2" (suit),
    "7.3" (pairs) or "13" (``must_follow_tractor``)."""
    play = list(play)
    n = lead.n
    if len(play) != n:
        return "7.1", f"the lead has {n} card(s); a follow must have {n}, got {len(play)}"
    if n == 1:  # fast path of the rules below for a single lead
        c = play[0]
        if not hand.get(c):
            return "7.1", f"{c} is not in your hand"
        S = lead.suit
        so = ctx.suit_of
        if so[c] != S and any(so[x] == S for x in hand):
            return "7.2", f"you hold cards of the led play-suit {S}: play one of them"
        return None
    pc = counts_of(play)
    for c, k in pc.items():
        if hand.get(c, 0) < k:
            return "7.1", f"{c} is not in your hand" if hand.get(c, 0) == 0 else f"you hold {c} only {hand[c]} time(s)"
    S = lead.suit
    so = ctx.suit_of
    hs = {c: k for c, k in hand.items() if so[c] == S}
    nhs = sum(hs.values())
    ps = {c: k for c, k in pc.items() if so[c] == S}
    if nhs >= n:
        if sum(ps.values()) != n:
            return "7.2", f"you hold {nhs} card(s) of the led play-suit {S}: all {n} cards must be of it"
    else:
        for c, k in hs.items():
            if pc.get(c, 0) < k:
                return "7.2", f"you hold only {nhs} card(s) of the led play-suit {S}: all of them must be played"
    if lead.need:
        hp = sum(1 for k in hs.values() if k >= 2)
        m = min(lead.need, hp)
        if m and sum(1 for k in ps.values() if k >= 2) < m:
            return "7.3", f"the lead holds {lead.need} pair(s) and you hold {hp} pair(s) of {S}: play at least {m}"
    if must_follow_tractor and lead.type == "tractor":
        L = lead.tractors[0]
        if has_tractor(hs, L, ctx) and not has_tractor(ps, L, ctx):
            return "13", f"must_follow_tractor: you hold a tractor of {L} pairs in {S} and must play one"
    return None


def _count_choices(t: int, u: int, k: int, m: int) -> int:
    """Number of distinct k-card sub-multisets of a multiset with ``t`` codes
    held twice and ``u`` codes held once, using >= ``m`` codes twice."""
    total = 0
    for j in range(max(m, 0), t + 1):
        if 2 * j > k:
            break
        for i in range(0, t - j + 1):
            r = k - 2 * j - i
            if r < 0:
                break
            if r <= u:
                total += comb(t, j) * comb(t - j, i) * comb(u, r)
    return total


def _choose(items: list[tuple[str, int]], k: int, m: int, limit: int) -> list[tuple[str, ...]]:
    """Up to ``limit`` distinct k-card sub-multisets of ``items`` ((code,
    count) in preference order) with >= ``m`` codes taken twice, in the
    lexicographic order that prefers the earliest items."""
    n = len(items)
    cap = [0] * (n + 1)
    twos = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        cap[i] = cap[i + 1] + items[i][1]
        twos[i] = twos[i + 1] + (1 if items[i][1] >= 2 else 0)
    out: list[tuple[str, ...]] = []
    chosen: list[str] = []

    def rec(i: int, k: int, m: int) -> bool:
        if k == 0:
            if m <= 0:
                out.append(tuple(chosen))
                return len(out) >= limit
            return False
        if i == n or cap[i] < k or twos[i] < m or 2 * m > k:
            return False
        code, cnt = items[i]
        if cnt >= 2 and k >= 2:
            chosen.append(code)
            chosen.append(code)
            if rec(i + 1, k - 2, m - 1):
                return True
            chosen.pop()
            chosen.pop()
        chosen.append(code)
        if rec(i + 1, k - 1, m):
            return True
        chosen.pop()
        return rec(i + 1, k, m)

    if limit > 0:
        rec(0, k, m)
    return out


def _all_choices(items: list[tuple[str, int]], k: int, m: int) -> list[tuple[str, ...]]:
    """Every distinct k-card sub-multiset of ``items`` ((code, count)) with
    >= ``m`` codes taken twice (pairs first, then split pairs, then singles)."""
    twos = [c for c, q in items if q >= 2]
    ones = [c for c, q in items if q == 1]
    out: list[tuple[str, ...]] = []
    for j in range(max(m, 0), len(twos) + 1):
        if 2 * j > k:
            break
        for P in combinations(twos, j):
            pp = tuple(x for c in P for x in (c, c))
            rest = [c for c in twos if c not in P] if j else twos
            for i in range(0, min(len(rest), k - 2 * j) + 1):
                r = k - 2 * j - i
                if r > len(ones):
                    continue
                for Q in combinations(rest, i):
                    pq = pp + Q
                    if r == 0:
                        out.append(pq)
                    else:
                        for U in combinations(ones, r):
                            out.append(pq + U)
    return out


def single_follows(lead: Lead, hand: dict[str, int], ctx: Ctx) -> list[str]:
    """The cards that may follow a single lead (section 7): those of the led
    play-suit, or every card when void in it; distinct codes, in section 16's
    "lowest" order (``legal_follows`` of a single lead lists them as plays)."""
    so, S = ctx.suit_of, lead.suit
    pool = [c for c in hand if so[c] == S] or list(hand)
    pool.sort(key=ctx.key_of.__getitem__)
    return pool


def legal_follows(lead: Lead, hand: dict[str, int], ctx: Ctx, must_follow_tractor: bool = False,
                  limit: int = 100) -> tuple[list[tuple[str, ...]], bool]:
    """Legal follows (section 7) of ``lead`` from ``hand``: ``(plays, complete)``.

    When the number of legal follows (counted exactly) is at most ``limit``
    the list is complete. Otherwise it is a deterministic partial list:
    the first ``limit // 2`` legal plays in ascending order of section 16's
    "lowest" order and the first ``limit // 2`` in descending order (so
    both the cheapest and the strongest plays are offered), deduplicated.
    """
    so, key = ctx.suit_of, ctx.key_of
    S, n = lead.suit, lead.n
    if n == 1:  # a single lead: one card of the led play-suit, or any card when void
        pool = single_follows(lead, hand, ctx)
        return [(c,) for c in pool[:limit]], len(pool) <= limit
    hs = sorted(((c, k) for c, k in hand.items() if so[c] == S), key=lambda ck: key[ck[0]])
    nhs = sum(k for _, k in hs)
    if must_follow_tractor and lead.type == "tractor":
        L = lead.tractors[0]
        hsd = dict(hs)
        if has_tractor(hsd, L, ctx):
            trs = tractors_in(hsd, ctx, L)
            trs.sort(key=lambda t: [key[c] for c in t])
            return trs[:limit], len(trs) <= limit
    prefix: tuple[str, ...]
    if nhs >= n:
        items, k, prefix = hs, n, ()
        m = min(lead.need, sum(1 for _, c in hs if c >= 2))
    else:
        items = sorted(((c, q) for c, q in hand.items() if so[c] != S), key=lambda ck: key[ck[0]])
        k, m = n - nhs, 0
        prefix = tuple(c for c, q in hs for _ in range(q))
    t = sum(1 for _, q in items if q >= 2)
    total = _count_choices(t, len(items) - t, k, m)
    if total <= limit:
        if prefix:
            return [prefix + ch for ch in _all_choices(items, k, m)], True
        return _all_choices(items, k, m), True
    half = max(1, limit // 2)
    asc = _choose(items, k, m, half)
    desc = _choose(items[::-1], k, m, half)
    seen = set()
    out = []
    for ch in asc + desc:
        s = tuple(sorted(ch))
        if s not in seen:
            seen.add(s)
            out.append(prefix + ch)
    return out, False


def legal_leads(hand: dict[str, int], ctx: Ctx, limit: int = 100) -> tuple[list[tuple[str, ...]], bool]:
    """Legal leads (section 6.3: any non-empty sub-multiset of one play-suit)
    from ``hand``: ``(plays, complete)``.

    Complete (every distinct lead, shortest first) when there are at most
    ``limit``; else a deterministic partial list: per play-suit (S, H, D, C,
    trump), every single and every pair (lowest first), every tractor, and
    the whole holding of the play-suit when it is a throw attempt.
    """
    so, order = ctx.suit_of, ctx.order_of
    groups: list[list[tuple[str, int]]] = []
    last = None
    for c in sorted(hand, key=order.__getitem__):
        s = so[c]
        if s != last:
            groups.append([])
            last = s
        groups[-1].append((c, hand[c]))
    total = 0
    for items in groups:
        p = 1
        for _, k in items:
            p *= k + 1
        total += p - 1
    out: list[tuple[str, ...]] = []
    if total <= limit:
        for items in groups:
            opts = [((), (c,), (c, c)) if k >= 2 else ((), (c,)) for c, k in items]
            it = product(*opts)
            next(it)  # the empty choice comes first
            out.extend(tuple(chain.from_iterable(p)) for p in it)
        out.sort(key=len)
        return out, True
    for items in groups:
        out.extend((c,) for c, _ in items)
        pairs = [(c, c) for c, k in items if k >= 2]
        out.extend(pairs)
        if len(pairs) >= 2:
            out.extend(tractors_in(dict(items), ctx))
        # the whole holding as a throw attempt, unless it is a single, pair or tractor (listed above)
        if len(items) >= 2:
            vs = [ctx.step_of[c] for c, _ in items]
            if not (len(pairs) == len(items) and vs[-1] - vs[0] == len(vs) - 1 and len(set(vs)) == len(vs)):
                out.append(tuple(c for c, k in items for _ in range(k)))
    return out, False


# ---------------------------------------------------------------------------
# winning a trick (section 8)
# ---------------------------------------------------------------------------

def _fit(c: dict[int, int], tractors: list[int], pairs: int) -> bool:
    """Can tractors of the given lengths and then ``pairs`` pairs be cut,
    disjointly, from the pair units ``c`` (step -> units)?"""
    if not tractors:
        return sum(c.values()) >= pairs
    L = tractors[0]
    for t in list(c):
        if all(c.get(t - i, 0) >= 1 for i in range(L)):
            for i in range(L):
                c[t - i] -= 1
            ok = _fit(c, tractors[1:], pairs)
            for i in range(L):
                c[t - i] += 1
            if ok:
                return True
    return False


def throw_key(counts: dict[str, int], lead: Lead, ctx: Ctx) -> int | None:
    """Section 8 for an all-trump follow of a throw: ``None`` if the cards
    cannot be divided into groups matching the lead's shape, else the key
    (highest step among groups of the deciding type over the best division)."""
    step = ctx.step_of
    c: dict[int, int] = {}
    top = -1
    for code, k in counts.items():
        v = step[code]
        if v > top:
            top = v
        if k >= 2:
            c[v] = c.get(v, 0) + k // 2
    tr, p = lead.tractors, lead.pairs
    if not tr:
        if p == 0:
            return top
        if sum(c.values()) < p:
            return None
        return max(c)
    L = tr[0]
    for t in sorted(c, reverse=True):
        if all(c.get(t - i, 0) >= 1 for i in range(L)):
            for i in range(L):
                c[t - i] -= 1
            ok = _fit(c, tr[1:], p)
            for i in range(L):
                c[t - i] += 1
            if ok:
                return t
    return None


def play_strength(lead: Lead, cards: Iterable[str], ctx: Ctx) -> tuple[int, int] | None:
    """Strength ``(class, rank)`` of a follow (section 8), or ``None`` when
    it does not qualify (cannot win)."""
    cards = tuple(cards)
    S = lead.suit
    X = play_suit_of(cards, ctx)
    if X is None or not (X == S or (X == TRUMP and S != TRUMP)) or len(cards) != lead.n:
        return None
    cls = 2 if X == TRUMP else 1
    t = lead.type
    if t == "single":
        return cls, ctx.step_of[cards[0]]
    if t == "pair":
        if cards[0] != cards[1]:
            return None
        return cls, ctx.step_of[cards[0]]
    if t == "tractor":
        comps = decompose(counts_of(cards), ctx)
        if len(comps) != 1 or comps[0].kind != "tractor" or comps[0].length != lead.tractors[0]:
            return None
        return cls, comps[0].top
    # throw: only an all-trump play against a natural-suit throw can qualify
    if X != TRUMP or S == TRUMP:
        return None
    key = throw_key(counts_of(cards), lead, ctx)
    return None if key is None else (2, key)


def lead_strength(lead: Lead) -> tuple[int, int]:
    """Section 8: the strength ``(class, rank)`` the lead holds the trick with."""
    return (2 if lead.suit == TRUMP else 1, lead.top)


def taking_strength(lead: Lead, cards: Iterable[str], best: tuple[int, int], ctx: Ctx) -> tuple[int, int] | None:
    """Section 8: the strength of a follow that takes the trick from the play
    winning it so far (of strength ``best``), else ``None``. Equal strength
    never replaces the current winner."""
    s = play_strength(lead, cards, ctx)
    return s if s is not None and s > best else None


def trick_winner(lead: Lead, follows: list[Iterable[str]], ctx: Ctx) -> int:
    """Section 8: index of the winning play (0 = the lead, 1..3 the follows
    in play order): the last follow that took the trick (:func:`taking_strength`)."""
    best = lead_strength(lead)
    win = 0
    for i, f in enumerate(follows, 1):
        s = taking_strength(lead, f, best, ctx)
        if s is not None:
            best, win = s, i
    return win


# ---------------------------------------------------------------------------
# throws (section 9)
# ---------------------------------------------------------------------------

def throw_check(lead: Lead, others: Iterable[dict[str, int]], ctx: Ctx) -> Comp | None:
    """Section 9.1-9.2: ``None`` if ``lead`` is not a throw or the throw
    stands against the hands ``others`` (the three other seats), else the
    forced component (fewest cards, then lowest top step, then spades first)."""
    if lead.type != "throw":
        return None
    S = lead.suit
    so, step = ctx.suit_of, ctx.step_of
    profiles = []
    for h in others:
        mx = -1
        ps: set[int] = set()
        for c, k in h.items():
            if so[c] == S:
                v = step[c]
                if v > mx:
                    mx = v
                if k >= 2:
                    ps.add(v)
        profiles.append((mx, ps))
    beatable = []
    for comp in lead.comps:
        for mx, ps in profiles:
            if comp.kind == "single":
                hit = mx > comp.top
            elif comp.kind == "pair":
                hit = any(v > comp.top for v in ps)
            else:
                L = comp.length
                hit = any(t > comp.top and all((t - i) in ps for i in range(1, L)) for t in ps)
            if hit:
                beatable.append(comp)
                break
    if not beatable:
        return None
    return min(beatable, key=lambda c: (c.size, c.top, c.sf))


def throw_penalty(attempted: int, forced: int, no_throw_penalty: bool = False) -> int:
    """Section 9.2 step 3: 10 points per card taken back (0 under ``no_throw_penalty``)."""
    return 0 if no_throw_penalty else 10 * (attempted - forced)


# ---------------------------------------------------------------------------
# declarations (2.2 - 2.3) and the kitty flip (2.6)
# ---------------------------------------------------------------------------

class DeclKind(NamedTuple):
    """Kind of a declaration (2.2): strength 1/2/3, the trump suit it sets
    (``None`` = no-trump), and its name."""

    strength: int
    trump_suit: str | None
    kind: str


def declaration_kind(cards: Iterable[str], trump_rank: str) -> DeclKind | None:
    """Section 2.2: the kind of a shown card list, or ``None`` if it is no declaration."""
    cards = list(cards)
    if len(cards) == 1:
        c = cards[0]
        if c not in JOKERS and c in ALL_CODES and c[0] == trump_rank:
            return DeclKind(1, c[1], "single")
    elif len(cards) == 2 and cards[0] == cards[1] and cards[0] in ALL_CODES:
        c = cards[0]
        if c in JOKERS:
            return DeclKind(3, None, "joker_pair")
        if c[0] == trump_rank:
            return DeclKind(2, c[1], "pair")
    return None


def declaration_error(standing: tuple[int, tuple[str, ...]] | None, seat: int, cards: Iterable[str],
                      hand: dict[str, int], trump_rank: str) -> tuple[str, str] | None:
    """Section 2.3: ``None`` if ``seat`` may declare ``cards`` over the
    ``standing`` declaration ``(seat, cards)`` (or ``None``), else
    ``(rule, message)``."""
    cards = list(cards)
    for c, k in counts_of(cards).items():
        if hand.get(c, 0) < k:
            return "2.3", f"{c} is not in your hand" if hand.get(c, 0) == 0 else f"you hold {c} only once"
    kind = declaration_kind(cards, trump_rank)
    if kind is None:
        return "2.2", (f"{' '.join(cards) or 'nothing'} is not a declaration: show one card of rank "
                       f"{trump_rank}, two identical cards of rank {trump_rank}, or BJ BJ / RJ RJ")
    if standing is None:
        return None
    sseat, scards = standing
    sk = declaration_kind(scards, trump_rank)
    assert sk is not None
    if sseat != seat:
        if kind.strength > sk.strength:
            return None
        return "2.3", f"the standing declaration has strength {sk.strength}; yours ({kind.strength}) must be greater"
    if sk.strength == 1 and kind.kind == "pair" and cards[0] == scards[0]:
        return None
    return "2.3", "you hold the standing declaration: you may only reinforce your own single into its pair"


#: per rank char, its four natural-suit codes in S, H, D, C order
_RANK_CODES = {r: tuple(r + x for x in NATURAL_SUITS) for r in RANKS}


def legal_declarations(standing: tuple[int, tuple[str, ...]] | None, seat: int, hand: dict[str, int],
                       trump_rank: str) -> list[tuple[str, ...]]:
    """Every legal declaration (2.2-2.3) of ``seat`` with ``hand``, in a fixed order
    (singles S, H, D, C, then pairs, then joker pairs). Same answers as
    :func:`declaration_error` (checked by the tests), computed directly."""
    if standing is None:
        floor_strength = 0
    else:
        sseat, scards = standing
        s_strength = 3 if scards[0] in JOKERS else len(scards)
        if sseat == seat:
            # only reinforcement of one's own single
            c = scards[0]
            if s_strength == 1 and hand.get(c, 0) >= 2:
                return [(c, c)]
            return []
        floor_strength = s_strength
    out: list[tuple[str, ...]] = []
    if floor_strength >= 3:
        return out
    codes = [c for c in _RANK_CODES.get(trump_rank) or [trump_rank + x for x in NATURAL_SUITS] if c in hand]
    if floor_strength < 1:
        out.extend((c,) for c in codes)
    if floor_strength < 2:
        out.extend((c, c) for c in codes if hand[c] >= 2)
    for j in JOKERS:
        if hand.get(j, 0) >= 2:
            out.append((j, j))
    return out


def kitty_flip(kitty: list[str], trump_rank: str) -> tuple[str, int]:
    """Section 2.6 (later rounds): ``(trump suit, cards turned)``. Stops at the
    first rank-r card; otherwise all 8 are turned and the highest non-joker
    rank (A > K > ... > 2) decides, the first turned on a tie."""
    for i, c in enumerate(kitty):
        if c not in JOKERS and c[0] == trump_rank:
            return c[1], i + 1
    best = None
    for c in kitty:
        if c in JOKERS:
            continue
        if best is None or RANKS.index(c[0]) > RANKS.index(best[0]):
            best = c
    if best is None:  # impossible with 8 cards and only 4 jokers; kept total
        return "S", len(kitty)
    return best[1], len(kitty)


# ---------------------------------------------------------------------------
# end of the round (section 10) and of the match (section 11)
# ---------------------------------------------------------------------------

def kitty_multiplier(last_lead: Iterable[str], ctx: Ctx | None, power: bool = False) -> int:
    """Section 10.2: ``2 * m`` (m = cards in the last effective lead), or
    under ``kitty_multiplier_power`` ``2 ** k`` with k = the card count of the
    largest component of the last effective lead (needs ``ctx``)."""
    last_lead = list(last_lead)
    if not power:
        return 2 * len(last_lead)
    assert ctx is not None
    comps = decompose(counts_of(last_lead), ctx)
    return 2 ** max(c.size for c in comps)


def kitty_bonus(kitty: Iterable[str], last_lead: Iterable[str], defenders_won_last: bool, ctx: Ctx | None,
                power: bool = False) -> int:
    """Section 10.2: kitty points x multiplier if a defender won the last trick, else 0."""
    if not defenders_won_last:
        return 0
    return points_of(kitty) * kitty_multiplier(last_lead, ctx, power)


class LevelChange(NamedTuple):
    """Result of sections 10.3, 10.4 and 11 for one round.

    ``team_up`` (None in the 80-115 band), ``levels_up`` (table value),
    ``new_levels`` (two ints 2..14, capped at 14), next declarer team and
    starter, ``winner`` (team that won the match or None), ``draw`` (round
    cap with equal levels), ``passed_ace``.
    """

    team_up: int | None
    levels_up: int
    new_levels: tuple[int, int]
    next_declarer_team: int
    next_starter: int
    winner: int | None
    draw: bool
    passed_ace: bool


def level_change(p: float, declarer_team: int, starter: int, levels: tuple[int, int] | list[int],
                 rounds_played: int | None = None, max_rounds: int = 100,
                 must_play_ace: bool = False) -> LevelChange:
    """Sections 10.3-10.4 and 11 for defender points ``p`` (kitty bonus and
    penalties included). ``levels`` are numeric (2..14). The round cap is
    applied only when ``rounds_played`` is given (>= ``max_rounds`` ends
    the match: higher level wins, equal levels draw)."""
    D = declarer_team
    if p <= 0:
        team, up = D, 3
    elif p < 40:
        team, up = D, 2
    elif p < 80:
        team, up = D, 1
    elif p < 120:
        team, up = None, 0
    else:
        team, up = 1 - D, 1 + floor((p - 120) / 40)
    new = [levels[0], levels[1]]
    winner = None
    passed = False
    if team is not None:
        lv = levels[team] + up
        if lv > 14:
            if not must_play_ace or (team == D and levels[team] == 14):
                winner, passed = team, True
            lv = 14
        new[team] = lv
    if p < 80:
        nd, ns = D, (starter + 2) % 4
    else:
        nd, ns = 1 - D, (starter + 1) % 4
    draw = False
    if winner is None and rounds_played is not None and rounds_played >= max_rounds:
        if new[0] > new[1]:
            winner = 0
        elif new[1] > new[0]:
            winner = 1
        else:
            draw = True
    return LevelChange(team, up, (new[0], new[1]), nd, ns, winner, draw, passed)


# ---------------------------------------------------------------------------
# fallback actions (section 16)
# ---------------------------------------------------------------------------

def fallback_lead(hand: dict[str, int], ctx: Ctx) -> tuple[str, ...]:
    """Section 16, lead: the lowest single card of the hand."""
    return (min(hand, key=ctx.key_of.__getitem__),)


def fallback_follow(lead: Lead, hand: dict[str, int], ctx: Ctx, must_follow_tractor: bool = False) -> tuple[str, ...]:
    """Section 16, follow: (tractor under must_follow_tractor), the lowest
    pairs of the led play-suit up to ``need``, then its lowest cards, then
    the lowest other cards of the hand (natural suits before trumps)."""
    key = ctx.key_of
    so = ctx.suit_of
    S, n, need = lead.suit, lead.n, lead.need
    left = dict(hand)
    chosen: list[str] = []
    npairs = 0

    def take(c: str, k: int = 1) -> None:
        chosen.extend([c] * k)
        left[c] -= k
        if not left[c]:
            del left[c]

    if must_follow_tractor and lead.type == "tractor":
        L = lead.tractors[0]
        hs = {c: k for c, k in left.items() if so[c] == S}
        trs = tractors_in(hs, ctx, L)
        if trs:
            best = min(trs, key=lambda t: (max(ctx.step_of[c] for c in t), sorted(key[c] for c in t)))
            for c in best[::2]:
                take(c, 2)
            npairs = L
    if npairs < need:
        for c in sorted((c for c, k in left.items() if k >= 2 and so[c] == S), key=key.__getitem__):
            if npairs >= need:
                break
            take(c, 2)
            npairs += 1
    for c in sorted((c for c in left if so[c] == S), key=key.__getitem__):
        while len(chosen) < n and left.get(c, 0):
            take(c)
    if len(chosen) < n:
        for c in sorted(left, key=key.__getitem__):
            while len(chosen) < n and left.get(c, 0):
                take(c)
    return tuple(chosen)


def lowest_cards(hand: dict[str, int], ctx: Ctx, k: int) -> tuple[str, ...]:
    """The ``k`` lowest cards of ``hand`` in the order of section 16."""
    out: list[str] = []
    for c in sorted(hand, key=ctx.key_of.__getitem__):
        for _ in range(hand[c]):
            if len(out) < k:
                out.append(c)
    return tuple(out)
