"""Dou Dizhu rules core (shared/rules/doudizhu.md): cards, combinations,
beating, legal-play enumeration, the auction, the play phase and payments.

Everything here is plain Python data so the engine stays fast:

* a card is its code string (``"7H"``, ``"BJ"``); a rank is an index
  ``0..14`` (``3`` .. ``A`` = 0..11, ``2`` = 12, ``BJ`` = 13, ``RJ`` = 14,
  spec §3);
* a **combo** (a classified play) is the tuple ``(type, rank, length, size)``:
  ``type`` a §5.3 type name, ``rank`` the rank index that orders it,
  ``length`` the §5.3 ``length`` column and ``size`` the number of cards;
* a **move** (a play at rank level) is a tuple of ``(rank, count)`` pairs in
  ascending rank order; :func:`expand` turns it into concrete code tuples.

The :class:`referee.games.doudizhu.game.DouDizhu` engine and the conformance
module both call these functions; nothing is re-implemented elsewhere.
"""

from __future__ import annotations

import copy
from itertools import combinations, product
from typing import Any, Callable, Iterable, Sequence

from referee.engine import IllegalAction

# --------------------------------------------------------------------------
# Cards and ranks (§2.1, §2.3, §3)
# --------------------------------------------------------------------------

#: rank names by index (§3, [RANK-2])
RANK_NAMES: tuple[str, ...] = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ")
TWO, BJ, RJ = 12, 13, 14
#: highest chain rank (A), [RANK-3]
CHAIN_MAX = 11

#: every code in canonical order (§2.3): by rank, then suit C < D < H < S; BJ, RJ last
CANON_CODES: tuple[str, ...] = tuple(r + s for r in "3456789TJQKA2" for s in "CDHS") + ("BJ", "RJ")
#: canonical position of a code (sort key)
ORDER: dict[str, int] = {c: i for i, c in enumerate(CANON_CODES)}
#: rank index of a code
RANK_OF: dict[str, int] = {c: (i // 4 if i < 52 else i - 39) for i, c in enumerate(CANON_CODES)}

# combination type names (§5.3)
SINGLE = "single"
PAIR = "pair"
TRIO = "trio"
TRIO_SINGLE = "trio_single"
TRIO_PAIR = "trio_pair"
STRAIGHT = "straight"
PAIR_CHAIN = "pair_chain"
TRIO_CHAIN = "trio_chain"
AIRPLANE_SINGLE = "airplane_single"
AIRPLANE_PAIR = "airplane_pair"
BOMB = "bomb"
ROCKET = "rocket"
QUAD_TWO_SINGLES = "quad_two_singles"
QUAD_TWO_PAIRS = "quad_two_pairs"
TYPES: tuple[str, ...] = (SINGLE, PAIR, TRIO, TRIO_SINGLE, TRIO_PAIR, STRAIGHT, PAIR_CHAIN, TRIO_CHAIN,
                          AIRPLANE_SINGLE, AIRPLANE_PAIR, BOMB, ROCKET, QUAD_TWO_SINGLES, QUAD_TWO_PAIRS)

Combo = tuple  # (type: str, rank: int, length: int, size: int)
Move = tuple  # ((rank, count), ...) ascending rank


def deck(n: int) -> list[str]:
    """The §2.1 deck for ``n`` players in canonical order: 54 codes (3p) or
    every code twice, 108 codes (4p). Raises ``ValueError`` for other ``n``."""
    if n == 3:
        return list(CANON_CODES)
    if n == 4:
        return [c for c in CANON_CODES for _ in (0, 1)]
    raise ValueError(f"Dou Dizhu is for 3 or 4 players, not {n}")


def hand_size(n: int) -> int:
    """Cards dealt to each seat, ``H`` of §2.1 (17 or 25)."""
    return 17 if n == 3 else 25


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Codes sorted in the canonical order of §2.3 (rank, then suit C<D<H<S)."""
    return sorted(cards, key=ORDER.__getitem__)


def rank_name(rank: int) -> str:
    """Rank index -> the [RANK-2] string (``"3"`` .. ``"2"``, ``"BJ"``, ``"RJ"``)."""
    return RANK_NAMES[rank]


# --------------------------------------------------------------------------
# Classification (§5)
# --------------------------------------------------------------------------

_SIG_MEMO: dict[tuple, Combo | None] = {}


def _consecutive(ranks: list[int]) -> bool:
    """[RANK-4]: sorted distinct ``ranks`` are all chain ranks without gaps."""
    return ranks[-1] <= CHAIN_MAX and ranks[-1] - ranks[0] == len(ranks) - 1


def _classify_sig(sig: tuple, n: int) -> Combo | None:
    """Classify a rank signature ``((rank, count), ...)`` (ascending, counts
    > 0, already within the deck's supply) for ``n`` players. §5.2-§5.3."""
    size = 0
    for _, k in sig:
        size += k
    jk = 1 if n == 3 else 2
    d = dict(sig)
    # [COMB-2] whole-joker rule: a play holding every joker is only the rocket
    if d.get(BJ, 0) == jk and d.get(RJ, 0) == jk:
        return (ROCKET, RJ, 1, size) if len(sig) == 2 else None
    if len(sig) == 1:
        r, k = sig[0]
        if k == 1:
            return (SINGLE, r, 1, 1)
        if k == 2:
            # BJ BJ / RJ RJ are pairs in 4p only (3p cannot hold two of a code)
            return (PAIR, r, 1, 2) if (r <= TWO or n == 4) else None
        if r > TWO:
            return None
        if k == 3:
            return (TRIO, r, 1, 3)
        if k == 4 or (n == 4 and k <= 8):
            return (BOMB, r, 1, k)
        return None
    groups: dict[int, list[int]] = {}
    for r, k in sig:
        g = groups.get(k)
        if g is None:
            groups[k] = [r]
        else:
            g.append(r)
    if len(groups) == 1:
        ((k, rs),) = groups.items()
        L = len(rs)
        if k == 1 and L >= 5 and _consecutive(rs):
            return (STRAIGHT, rs[-1], L, size)
        if k == 2 and L >= 3 and _consecutive(rs):
            return (PAIR_CHAIN, rs[-1], L, size)
        if k == 3 and L >= 2 and _consecutive(rs):
            return (TRIO_CHAIN, rs[-1], L, size)
        return None
    if len(groups) != 2:
        return None
    threes = groups.get(3)
    if threes is not None:
        L = len(threes)
        ones = groups.get(1)
        if ones is not None:
            if n != 3 or len(ones) != L:
                return None
            if L == 1:
                return (TRIO_SINGLE, threes[0], 1, 4) if threes[0] <= TWO else None
            return (AIRPLANE_SINGLE, threes[-1], L, size) if _consecutive(threes) else None
        twos = groups.get(2)
        if twos is not None and len(twos) == L:
            if n == 3 and twos[-1] > TWO:  # unreachable under [COMB-3]; kept for clarity
                return None
            if L == 1:
                return (TRIO_PAIR, threes[0], 1, 5) if threes[0] <= TWO else None
            return (AIRPLANE_PAIR, threes[-1], L, size) if _consecutive(threes) else None
        return None
    fours = groups.get(4)
    if fours is not None and len(fours) == 1 and n == 3 and fours[0] <= TWO:
        if len(groups.get(1, ())) == 2:
            return (QUAD_TWO_SINGLES, fours[0], 1, 6)
        if len(groups.get(2, ())) == 2:
            return (QUAD_TWO_PAIRS, fours[0], 1, 8)
    return None


def classify_signature(sig: tuple, n: int) -> Combo | None:
    """Memoised :func:`_classify_sig`: ``sig`` is ``((rank, count), ...)`` in
    ascending rank order. Returns a combo or ``None``."""
    key = (n, sig)
    if key in _SIG_MEMO:
        return _SIG_MEMO[key]
    res = _classify_sig(sig, n)
    if len(_SIG_MEMO) > 200_000:
        _SIG_MEMO.clear()
    _SIG_MEMO[key] = res
    return res


def signature(cards: Sequence[str], n: int) -> tuple | None:
    """Rank signature of a code list, or ``None`` if the deck for ``n``
    cannot supply it ([COMB-3]: unknown code, a code repeated in 3p, a code
    more than twice in 4p)."""
    maxc = 1 if n == 3 else 2
    seen: dict[str, int] = {}
    counts: dict[int, int] = {}
    for c in cards:
        r = RANK_OF.get(c)
        if r is None:
            return None
        k = seen.get(c, 0) + 1
        if k > maxc:
            return None
        seen[c] = k
        counts[r] = counts.get(r, 0) + 1
    return tuple(sorted(counts.items()))


def classify(cards: Sequence[str], n: int) -> Combo | None:
    """Classify a play (§5, query ``classify``).

    ``cards``: list of codes (a multiset; order ignored). Returns the combo
    ``(type, rank, length, size)`` when the cards form a combination for
    ``n`` players, else ``None`` (also for an empty list or [COMB-3]
    violations). At most one reading exists (§5.4).
    """
    if not cards:
        return None
    sig = signature(cards, n)
    if sig is None:
        return None
    return classify_signature(sig, n)


def beats(top: Combo, play: Combo, n: int) -> bool:
    """True when combo ``play`` beats combo ``top`` for ``n`` players (§6,
    [BEAT-1] .. [BEAT-6])."""
    pt = play[0]
    if pt == ROCKET:
        return True
    tt = top[0]
    if tt == ROCKET:
        return False
    if pt == BOMB:
        if tt != BOMB:
            return True
        if n == 3:
            return play[1] > top[1]
        return play[3] > top[3] or (play[3] == top[3] and play[1] > top[1])
    return pt == tt and play[2] == top[2] and play[1] > top[1]


def is_doubling(combo: Combo, n: int) -> bool:
    """[PAY-1]: does this play add one doubling? (3p: every bomb and rocket;
    4p: rockets and bombs of 6+ cards)."""
    t = combo[0]
    if t == ROCKET:
        return True
    if t == BOMB:
        return n == 3 or combo[3] >= 6
    return False


# --------------------------------------------------------------------------
# Legal-play enumeration (§5, §6, §7.1)
# --------------------------------------------------------------------------

#: constant one-rank moves: _UNIT[r][k] == ((r, k),)
_UNIT = [[((r, k),) for k in range(9)] for r in range(15)]
#: constant chain moves: _CHAIN[need][lo][hi] == ((lo, need), ..., (hi, need))
_CHAIN = [[[tuple((r, need) for r in range(lo, hi + 1)) if hi >= lo else () for hi in range(CHAIN_MAX + 1)]
           for lo in range(CHAIN_MAX + 1)] for need in range(4)]


#: ids of the straight moves of _CHAIN (every straight move is one of these objects)
_STRAIGHT_IDS = frozenset(id(m) for row in _CHAIN[1] for m in row if len(m) >= 5)


def _summary(cnt: list[int]) -> tuple[list[int], list[int], list[int], list[int]]:
    """Ranks with at least 1, 2, 3 and 4 cards. Jokers never reach 3 cards
    (nor 2 in 3p), so rank filters on pairs/trios/bombs follow from the
    counts of any hand the deck can supply."""
    ones = [r for r in range(15) if cnt[r]]
    twos = [r for r in ones if cnt[r] >= 2]
    threes = [r for r in twos if cnt[r] >= 3]
    fours = [r for r in threes if cnt[r] >= 4]
    return ones, twos, threes, fours


def _chains(cnt: list[int], need: int, min_len: int, length: int, above: int) -> list[Move]:
    """Chain moves with ``need`` cards of each rank, ``length`` ranks (0 =
    every length >= ``min_len``) and top rank > ``above`` ([RANK-3]/[RANK-4])."""
    out = []
    run = 0
    tab = _CHAIN[need]
    for hi in range(CHAIN_MAX + 1):
        if cnt[hi] >= need:
            run += 1
        else:
            run = 0
            continue
        if hi <= above:
            continue
        if length:
            if run >= length:
                out.append(tab[hi - length + 1][hi])
        else:
            for L in range(min_len, run + 1):
                out.append(tab[hi - L + 1][hi])
    return out


# Seed-text reading (shared/seeds/doudizhu.txt): the spec settles every rule
# question; the Punjabi source was consulted only to confirm the kicker rules
# it states and the spec keeps (§12 items 19, 20, 22, 23): airplane kickers
# "cannot be the same as any trio or other added card", and in a quadplex
# "the singles and pairs must differ in rank from the other singles and pairs
# used ... 2s and jokers are allowed but both jokers cannot be used in one
# combination". We read "both jokers" as the whole-joker rule [COMB-2], as
# the spec generalises it, so kicker sets holding BJ and RJ are never listed.
def _kicker_sets(cands: list[int], k: int) -> list[tuple[int, ...]]:
    """``k``-subsets of kicker ranks ``cands`` (ascending), without the sets
    holding both BJ and RJ ([COMB-2]: in 3p both jokers, in 4p both joker
    pairs, would make every joker of the deck)."""
    if BJ not in cands or RJ not in cands:
        return list(combinations(cands, k))
    return [c for c in combinations(cands, k) if not (BJ in c and RJ in c)]


def _g_single(cnt, n, length, above, summ):
    return [_UNIT[r][1] for r in range(above + 1, 15) if cnt[r]]


def _g_pair(cnt, n, length, above, summ):
    return [_UNIT[r][2] for r in range(above + 1, 15) if cnt[r] >= 2]


def _g_trio(cnt, n, length, above, summ):
    return [_UNIT[r][3] for r in range(above + 1, 13) if cnt[r] >= 3]


def _g_straight(cnt, n, length, above, summ):
    return _chains(cnt, 1, 5, length, above)


def _g_pair_chain(cnt, n, length, above, summ):
    return _chains(cnt, 2, 3, length, above)


def _g_trio_chain(cnt, n, length, above, summ):
    return _chains(cnt, 3, 2, length, above)


def _trio_kicked(cnt, above, summ, kick):
    ones, twos, threes, _ = summ or _summary(cnt)
    kicks = ones if kick == 1 else twos
    out = []
    for t in threes:
        if t > above:
            for r in kicks:
                if r < t:
                    out.append(((r, kick), (t, 3)))
                elif r > t:
                    out.append(((t, 3), (r, kick)))
    return out


def _g_trio_single(cnt, n, length, above, summ):
    return _trio_kicked(cnt, above, summ, 1) if n == 3 else []


def _g_trio_pair(cnt, n, length, above, summ):
    return _trio_kicked(cnt, above, summ, 2)


def _airplanes(cnt, length, above, summ, kick):
    ones, twos, threes, _ = summ or _summary(cnt)
    out = []
    if len(threes) < 2:
        return out
    kicks = ones if kick == 1 else twos
    for chain in _chains(cnt, 3, 2, length, above):
        lo, hi = chain[0][0], chain[-1][0]
        L = hi - lo + 1
        cands = [r for r in kicks if r < lo or r > hi]
        if len(cands) < L:
            continue
        for ks in _kicker_sets(cands, L):
            out.append(tuple(sorted(chain + tuple((r, kick) for r in ks))))
    return out


def _g_airplane_single(cnt, n, length, above, summ):
    return _airplanes(cnt, length, above, summ, 1) if n == 3 else []


def _g_airplane_pair(cnt, n, length, above, summ):
    return _airplanes(cnt, length, above, summ, 2)


def _g_bomb(cnt, n, length, above, summ):
    out = []
    for r in range(above + 1, 13):
        c = cnt[r]
        if c >= 4:
            if n == 3:
                out.append(_UNIT[r][4])
            else:
                for m in range(4, c + 1):
                    out.append(_UNIT[r][m])
    return out


def _g_rocket(cnt, n, length, above, summ):
    if n == 3:
        return [((BJ, 1), (RJ, 1))] if cnt[BJ] and cnt[RJ] else []
    return [((BJ, 2), (RJ, 2))] if cnt[BJ] == 2 and cnt[RJ] == 2 else []


def _quads(cnt, above, summ, kick):
    ones, twos, _, fours = summ or _summary(cnt)
    kicks = ones if kick == 1 else twos
    out = []
    for q in fours:
        if q > above:
            cands = [r for r in kicks if r != q]
            for ks in _kicker_sets(cands, 2):
                out.append(tuple(sorted(((q, 4),) + tuple((r, kick) for r in ks))))
    return out


def _g_quad_two_singles(cnt, n, length, above, summ):
    return _quads(cnt, above, summ, 1) if n == 3 else []


def _g_quad_two_pairs(cnt, n, length, above, summ):
    return _quads(cnt, above, summ, 2) if n == 3 else []


#: generator per combination type: f(cnt, n, length, above, summary or None) -> moves
_GEN = {SINGLE: _g_single, PAIR: _g_pair, TRIO: _g_trio, TRIO_SINGLE: _g_trio_single, TRIO_PAIR: _g_trio_pair,
        STRAIGHT: _g_straight, PAIR_CHAIN: _g_pair_chain, TRIO_CHAIN: _g_trio_chain,
        AIRPLANE_SINGLE: _g_airplane_single, AIRPLANE_PAIR: _g_airplane_pair, BOMB: _g_bomb, ROCKET: _g_rocket,
        QUAD_TWO_SINGLES: _g_quad_two_singles, QUAD_TWO_PAIRS: _g_quad_two_pairs}


def moves_of_type(cnt: list[int], n: int, typ: str, length: int = 0, above: int = -1,
                  summ: tuple | None = None) -> list[Move]:
    """Every rank-level move of combination type ``typ`` that a hand with rank
    counts ``cnt`` (15 ints, a hand the deck can supply) can make for ``n``
    players, with ordering rank > ``above`` and, for chains and airplanes,
    ``length`` chained units (0 = every length). ``summ`` is an optional
    precomputed :func:`_summary` of ``cnt``. Types the player count does
    not allow give no moves (§5.3 "players" column).

    Bombs are listed for every size (4p) without comparing them to a top
    bomb; see :func:`legal_moves`. Moves come in ascending ordering rank.
    Raises ``ValueError`` for an unknown type.
    """
    gen = _GEN.get(typ)
    if gen is None:
        raise ValueError(f"unknown combination type {typ!r}")
    return gen(cnt, n, length, above, summ)


#: order of the types in a leading seat's move list, per player count
LEAD_ORDER = {3: (SINGLE, PAIR, TRIO, TRIO_SINGLE, TRIO_PAIR, STRAIGHT, PAIR_CHAIN, TRIO_CHAIN, AIRPLANE_SINGLE,
                  AIRPLANE_PAIR, QUAD_TWO_SINGLES, QUAD_TWO_PAIRS, BOMB, ROCKET),
              4: (SINGLE, PAIR, TRIO, TRIO_PAIR, STRAIGHT, PAIR_CHAIN, TRIO_CHAIN, AIRPLANE_PAIR, BOMB, ROCKET)}


def _lead_moves(cnt: list[int], n: int) -> list[Move]:
    """Every move when leading: ``moves_of_type`` for each type of
    :data:`LEAD_ORDER` in turn (the per-type helpers are called directly,
    skipping those the rank summary rules out)."""
    summ = _summary(cnt)
    ones, twos, threes, fours = summ
    out = [_UNIT[r][1] for r in ones]
    if twos:
        out += [_UNIT[r][2] for r in twos]
        if threes:
            out += [_UNIT[r][3] for r in threes]
            if n == 3:
                out += _trio_kicked(cnt, -1, summ, 1)
            if len(twos) >= 2:
                out += _trio_kicked(cnt, -1, summ, 2)
    if len(ones) >= 5:
        out += _chains(cnt, 1, 5, 0, -1)
    if len(twos) >= 3:
        out += _chains(cnt, 2, 3, 0, -1)
    if len(threes) >= 2:
        out += _chains(cnt, 3, 2, 0, -1)
        if n == 3:
            out += _airplanes(cnt, 0, -1, summ, 1)
        out += _airplanes(cnt, 0, -1, summ, 2)
    if fours:
        if n == 3:
            out += _quads(cnt, -1, summ, 1)
            out += _quads(cnt, -1, summ, 2)
        out += _g_bomb(cnt, n, 0, -1, summ)
    if cnt[BJ] and cnt[RJ]:
        out += _g_rocket(cnt, n, 0, -1, summ)
    return out


def legal_moves(cnt: list[int], n: int, top: Combo | None) -> list[Move]:
    """Every rank-level move a hand with rank counts ``cnt`` may play
    ([PLAY-2] .. [PLAY-4]): all combinations when leading (``top`` is
    ``None``), else those that beat ``top`` (§6). Order: by type (order of
    §5.3, quadplexes, bombs and rocket last), then ascending ordering rank,
    then length. Passing is not included."""
    if top is None:
        return _lead_moves(cnt, n)
    tt = top[0]
    if tt == ROCKET:
        # [BEAT-1] is checked before [BEAT-2]; no hand can hold a rocket
        # while another rocket is the top, but stay identical to beats()
        return moves_of_type(cnt, n, ROCKET)
    has_bomb = max(cnt[:13]) >= 4
    if tt == BOMB:
        if not has_bomb:
            out = []
        elif n == 3:
            out = moves_of_type(cnt, n, BOMB, 0, top[1])
        else:
            ts, tr = top[3], top[1]
            out = [m for m in moves_of_type(cnt, n, BOMB)
                   if m[0][1] > ts or (m[0][1] == ts and m[0][0] > tr)]
    else:
        out = moves_of_type(cnt, n, tt, top[2], top[1])
        if has_bomb:
            out.extend(moves_of_type(cnt, n, BOMB))
    if cnt[RJ] and cnt[BJ]:
        out.extend(moves_of_type(cnt, n, ROCKET))
    return out


_COMBO_MEMO: dict[tuple, tuple] = {}


def _combos(codes: tuple, k: int) -> tuple:
    """Distinct ``k``-sub-multisets (tuples, canonical order) of the sorted
    code tuple ``codes``. Memoised."""
    key = (codes, k)
    res = _COMBO_MEMO.get(key)
    if res is None:
        if k == len(codes):
            res = (codes,)
        elif k == 1:
            res = tuple((c,) for c in dict.fromkeys(codes))
        else:
            res = tuple(dict.fromkeys(combinations(codes, k)))
        if len(_COMBO_MEMO) > 100_000:
            _COMBO_MEMO.clear()
        _COMBO_MEMO[key] = res
    return res


_UNIQ_MEMO: dict[tuple, tuple] = {}


def _uniq(codes: tuple) -> tuple:
    """Distinct codes of a sorted code tuple (memoised)."""
    res = _UNIQ_MEMO.get(codes)
    if res is None:
        res = tuple(dict.fromkeys(codes))
        if len(_UNIQ_MEMO) > 100_000:
            _UNIQ_MEMO.clear()
        _UNIQ_MEMO[codes] = res
    return res


def by_rank(hand: Sequence[str]) -> list[tuple[str, ...]]:
    """The hand's codes grouped by rank index (15 tuples, canonical order
    inside each). ``hand`` must already be in canonical order."""
    groups: list[list[str]] = [[] for _ in range(15)]
    for c in hand:
        groups[RANK_OF[c]].append(c)
    return [tuple(g) for g in groups]


def expand(move: Move, groups: Sequence[tuple[str, ...]]) -> Sequence[tuple[str, ...]]:
    """Every distinct code multiset (tuple, canonical order) realising the
    rank-level ``move`` from a hand grouped by :func:`by_rank` (§7.1: plays
    that differ only in suits are different actions)."""
    if len(move) == 1:
        r, k = move[0]
        return _combos(groups[r], k)
    if id(move) in _STRAIGHT_IDS:  # one card per rank: a product of the distinct codes
        return list(product(*[_uniq(groups[r]) for r, _ in move]))
    res: Sequence[tuple[str, ...]] | None = None
    for r, k in move:
        opts = _combos(groups[r], k)
        if res is None:
            res = opts
        else:
            res = [a + b for a in res for b in opts]
    assert res is not None, "a move has at least one (rank, count) pair"
    return res


def legal_plays_grouped(groups: Sequence[tuple[str, ...]], cnt: list[int], n: int, top: Combo | None,
                        wrap: Callable[[tuple[str, ...]], Any] | None = None,
                        memo: dict | None = None) -> list:
    """:func:`legal_plays` for a hand already grouped by rank (:func:`by_rank`)
    with rank counts ``cnt``.

    With ``wrap``, each play is returned as ``wrap(codes)`` (the engine wraps
    plays into :class:`referee.engine.Action`); ``memo`` (a dict owned by
    the caller, required with ``wrap``, bounded here) then caches the wrapped plays of one-rank
    moves per (codes of that rank, count), which are few and recur all the
    time; multi-rank moves are realised afresh (caching them cost about
    200 MB for little gain).
    """
    out: list = []
    add = out.extend
    if wrap is None:
        for m in legal_moves(cnt, n, top):
            add(expand(m, groups))
        return out
    assert memo is not None, "wrap needs a memo dict"
    get = memo.get
    for m in legal_moves(cnt, n, top):
        if len(m) == 1:
            # one-rank moves (singles, pairs, trios, bombs): few distinct
            # (codes of that rank, count) keys, reused all the time
            r, k = m[0]
            key = (groups[r], k)
            res = get(key)
            if res is None:
                res = list(map(wrap, _combos(groups[r], k)))
                if len(memo) >= 20_000:  # bound (never reached by real hands)
                    memo.clear()
                memo[key] = res
            add(res)
        else:
            # multi-rank moves rarely repeat with the same suits: realise afresh
            add(map(wrap, expand(m, groups)))
    return out


def legal_plays(hand: Sequence[str], n: int, top: Combo | None) -> list[tuple[str, ...]]:
    """Every legal non-pass play (code tuples, canonical order) of ``hand``
    (canonical order) against ``top`` (``None`` = leading). Complete: each
    legal code multiset appears exactly once (§7.1)."""
    groups = by_rank(hand)
    return legal_plays_grouped(groups, [len(g) for g in groups], n, top)


def count_legal_plays(hand: Sequence[str], n: int, top: Combo | None) -> int:
    """Number of entries :func:`legal_plays` would return, without building them."""
    groups = by_rank(hand)
    cnt = [len(g) for g in groups]
    total = 0
    for m in legal_moves(cnt, n, top):
        p = 1
        for r, k in m:
            p *= len(_combos(groups[r], k))
        total += p
    return total


# --------------------------------------------------------------------------
# Play validation (§7.1), shared by the engine and the ``legal_play`` query
# --------------------------------------------------------------------------

def check_play(hand_counts: dict[str, int], cards: Sequence[str], top: Combo | None, n: int) -> Combo:
    """Validate a non-empty play from a hand given as ``{code: copies}``.

    Returns the play's combo. Raises :class:`IllegalAction` with rule
    ``"COMB-3"`` (unknown code), ``"PLAY-3"`` (empty, or not a sub-multiset
    of the hand), ``"COMB-2"``/``"COMB-1"`` (not a combination for ``n``)
    or ``"PLAY-4"`` (does not beat ``top``). The messages mention only the
    acting seat's cards and the public top.
    """
    if not cards:
        raise IllegalAction("PLAY-3", "a play must hold at least one card (use PASS to pass)")
    need: dict[str, int] = {}
    ranks: dict[int, int] = {}
    for c in cards:
        r = RANK_OF.get(c)
        if r is None:
            raise IllegalAction("COMB-3", f"malformed card code {c!r} (expected rank 3-9TJQKA2 + suit CDHS, or BJ/RJ)")
        need[c] = need.get(c, 0) + 1
        ranks[r] = ranks.get(r, 0) + 1
    for c, k in need.items():
        have = hand_counts.get(c, 0)
        if have < k:
            what = "not in your hand" if have == 0 else f"in your hand only {have} time(s), played {k}"
            raise IllegalAction("PLAY-3", f"card {c} is {what}")
    maxc = 1 if n == 3 else 2
    if max(need.values()) > maxc:  # [COMB-3]; unreachable from a real hand
        combo = None
    else:
        combo = classify_signature(tuple(sorted(ranks.items())), n)
    if combo is None:
        jk = 1 if n == 3 else 2
        if need.get("BJ", 0) == jk and need.get("RJ", 0) == jk:
            raise IllegalAction("COMB-2", f"{' '.join(sort_cards(cards))} holds every joker but is not the rocket")
        raise IllegalAction("COMB-1", f"{' '.join(sort_cards(cards))} is not a combination for {n} players")
    if top is not None and not beats(top, combo, n):
        raise IllegalAction("PLAY-4", f"{combo_str(combo)} does not beat the top ({combo_str(top)})")
    return combo


def combo_str(combo: Combo) -> str:
    """Human-readable combo, e.g. ``"straight of 5 to 9"``."""
    t, r, L, size = combo
    if L > 1:
        return f"{t} of {L} to {RANK_NAMES[r]}"
    if t == BOMB:
        return f"{size}-card bomb of {RANK_NAMES[r]}"
    return f"{t} of {RANK_NAMES[r]}"


# --------------------------------------------------------------------------
# Auction (§4)
# --------------------------------------------------------------------------

def _copy_fields(old: Any, new: Any, fields: tuple[str, ...], memo: dict[int, Any]) -> Any:
    """``new`` with a deep copy of each attribute of ``old`` named in ``fields`` (a ``__deepcopy__``)."""
    memo[id(old)] = new
    for k in fields:
        setattr(new, k, copy.deepcopy(getattr(old, k), memo))
    return new


_AUCTION_FIELDS = ("n", "first", "to_act", "high", "high_bidder", "passes", "calls", "outcome", "landlord", "bid")


class Auction:
    """The auction state machine of §4 for ``n`` seats starting at seat ``first``.

    Attributes: ``to_act`` (seat, or ``None`` once closed), ``high`` (high
    bid, units), ``high_bidder`` (seat or -1), ``passes`` (``c`` of
    [AUC-2]), ``calls`` (list of ``(seat, amount)``), ``outcome``
    (``None`` while open, ``"landlord"`` or ``"redeal"``), ``landlord``,
    ``bid``.
    """

    __slots__ = _AUCTION_FIELDS

    def __init__(self, n: int, first: int):
        self.n = n
        self.first = first
        self.to_act: int | None = first
        self.high = 0
        self.high_bidder = -1
        self.passes = 0
        self.calls: list[tuple[int, int]] = []
        self.outcome: str | None = None
        self.landlord = -1
        self.bid = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> Auction:
        # spelt out: copy.deepcopy cannot make a compiled class (setup.py) without calling __init__
        return _copy_fields(self, Auction(self.n, self.first), _AUCTION_FIELDS, memo)

    def legal_amounts(self) -> list[int]:
        """Legal amounts now ([AUC-3]): 0 (pass) then each bid above the high bid; [] once closed."""
        if self.outcome is not None:
            return []
        return [0] + list(range(self.high + 1, 4))

    def check(self, amount: int) -> None:
        """Raise :class:`IllegalAction` ``"AUC-7"`` once closed, ``"AUC-3"`` for
        an amount that is not 0 or a bid 1..3 above the high bid."""
        if self.outcome is not None:
            raise IllegalAction("AUC-7", "the auction is closed")
        if amount == 0:
            return
        if type(amount) is not int or not 1 <= amount <= 3:
            raise IllegalAction("AUC-3", f"a bid must be 1, 2 or 3 units, not {amount!r}")
        if amount <= self.high:
            raise IllegalAction("AUC-3", f"a bid of {amount} does not exceed the high bid {self.high}")

    def apply(self, amount: int) -> None:
        """Apply a checked action of the seat ``to_act`` ([AUC-5], [AUC-6])."""
        seat = self.to_act
        assert seat is not None, "check() rejects actions once the auction is closed"
        self.calls.append((seat, amount))
        if amount:
            self.high = amount
            self.high_bidder = seat
            self.passes = 0
            if amount == 3:
                self._close_landlord()
                return
        else:
            self.passes += 1
            if self.high and self.passes == self.n - 1:
                self._close_landlord()
                return
            if not self.high and self.passes == self.n:
                self.outcome = "redeal"
                self.to_act = None
                return
        self.to_act = (seat + 1) % self.n

    def _close_landlord(self) -> None:
        self.outcome = "landlord"
        self.landlord = self.high_bidder
        self.bid = self.high
        self.to_act = None


# --------------------------------------------------------------------------
# Payments (§8, §11)
# --------------------------------------------------------------------------

def doublings(n: int, bombs: Iterable[int], rockets: int) -> int:
    """[PAY-1]: ``d`` from the card counts of the bombs played and the number
    of rockets."""
    if n == 3:
        return sum(1 for _ in bombs) + rockets
    return sum(1 for b in bombs if b >= 6) + rockets


def settle(n: int, bid: int, landlord: int, landlord_won: bool, d: int, spring: bool) -> tuple[list[int], int]:
    """Deltas and multiplier of a round, [PAY-2] .. [PAY-6].

    ``d``: doublings; ``spring``: a spring happened AND the ``spring``
    variant is on. Returns ``(deltas per seat (money, sums to 0), m)``."""
    m = 1 << d
    if spring:
        m *= 2
    stake = bid * m
    if landlord_won:
        deltas = [-stake] * n
        deltas[landlord] = (n - 1) * stake
    else:
        deltas = [stake] * n
        deltas[landlord] = -(n - 1) * stake
    return deltas, m


def is_spring(landlord_won: bool, landlord_plays: int, peasant_plays: int) -> bool:
    """§11: landlord won and no peasant played a card, or the peasants won
    and the landlord made exactly one play (its opening lead)."""
    if landlord_won:
        return peasant_plays == 0
    return landlord_plays == 1


# --------------------------------------------------------------------------
# Play phase (§7)
# --------------------------------------------------------------------------

_PLAY_FIELDS = ("n", "landlord", "hands", "counts", "groups", "cnts", "to_act", "top", "top_cards", "top_seat", "passes",
                "trick", "bombs", "rockets", "plays", "winner", "doublings")


class PlayPhase:
    """The play phase of one round (§7) from given hands.

    ``hands``: per seat, list of codes (the landlord's includes the kitty).
    Attributes: ``hands`` (canonical-order lists), ``counts`` (per seat
    ``{code: copies}``), ``groups`` and ``cnts`` (per seat, the hand by rank
    as :func:`by_rank` tuples and their 15 rank counts, kept up to date for
    enumeration), ``to_act``, ``top`` (combo or ``None`` when the
    seat to act leads), ``top_cards``, ``top_seat`` (-1 with no top),
    ``passes``, ``trick`` (list of ``(seat, cards, combo)`` of the current
    trick, ``cards == ()`` and ``combo is None`` for a pass), ``bombs``
    (card counts of bombs played), ``rockets``, ``plays`` (plays per seat),
    ``doublings`` (``d`` of [PAY-1] so far), ``winner`` (-1 while running).
    """

    __slots__ = _PLAY_FIELDS

    def __init__(self, n: int, landlord: int, hands: Sequence[Sequence[str]]):
        self.n = n
        self.landlord = landlord
        self.hands = [sort_cards(h) for h in hands]
        self.counts = []
        for h in self.hands:
            c: dict[str, int] = {}
            for x in h:
                c[x] = c.get(x, 0) + 1
            self.counts.append(c)
        self.groups = [by_rank(h) for h in self.hands]
        self.cnts = [[len(g) for g in gs] for gs in self.groups]
        self.to_act: int | None = landlord  # [PLAY-1]
        self.top: Combo | None = None
        self.top_cards: tuple[str, ...] = ()
        self.top_seat = -1
        self.passes = 0
        self.trick: list[tuple[int, tuple[str, ...], Combo | None]] = []
        self.bombs: list[int] = []
        self.rockets = 0
        self.doublings = 0
        self.plays = [0] * n
        self.winner = -1

    def __deepcopy__(self, memo: dict[int, Any]) -> PlayPhase:
        # spelt out: copy.deepcopy cannot make a compiled class (setup.py) without calling __init__
        return _copy_fields(self, PlayPhase(self.n, self.landlord, ()), _PLAY_FIELDS, memo)

    # -- validation -----------------------------------------------------------
    def check(self, seat: int, cards: Sequence[str]) -> Combo | None:
        """Validate ``seat``'s action (``cards`` empty = pass). Returns the
        play's combo (``None`` for a pass). Raises :class:`IllegalAction`:
        ``"TURN"`` (not its turn or round over), ``"PLAY-2"`` (pass on a
        lead), and the :func:`check_play` rules."""
        if self.to_act is None:
            raise IllegalAction("END-1", "the round is over")
        if seat != self.to_act:
            raise IllegalAction("TURN", f"it is seat {self.to_act}'s turn, not seat {seat}'s")
        if not cards:
            if self.top is None:
                raise IllegalAction("PLAY-2", "you lead this trick and may not pass")
            return None
        return check_play(self.counts[seat], cards, self.top, self.n)

    # -- transitions ------------------------------------------------------------
    def play(self, seat: int, cards: tuple[str, ...], combo: Combo) -> bool:
        """Apply a checked play ([PLAY-5]); True when it ended the round ([END-1])."""
        hand = self.hands[seat]
        hc = self.counts[seat]
        groups = self.groups[seat]
        cnt = self.cnts[seat]
        for c in cards:
            hand.remove(c)
            k = hc[c] - 1
            if k:
                hc[c] = k
            else:
                del hc[c]
            r = RANK_OF[c]
            g = list(groups[r])
            g.remove(c)
            groups[r] = tuple(g)
            cnt[r] -= 1
        self.plays[seat] += 1
        t = combo[0]
        if t == BOMB:
            self.bombs.append(combo[3])
        elif t == ROCKET:
            self.rockets += 1
        if (t == BOMB or t == ROCKET) and is_doubling(combo, self.n):
            self.doublings += 1
        self.trick.append((seat, cards, combo))
        if not hand:
            self.winner = seat
            self.to_act = None
            return True
        self.top = combo
        self.top_cards = cards
        self.top_seat = seat
        self.passes = 0
        self.to_act = (seat + 1) % self.n
        return False

    def pass_(self, seat: int) -> bool:
        """Apply a checked pass ([PLAY-6]); True when it ended the trick."""
        self.passes += 1
        self.to_act = (seat + 1) % self.n
        if self.passes == self.n - 1:
            self.top = None
            self.top_cards = ()
            self.top_seat = -1
            self.passes = 0
            self.trick = []
            return True
        self.trick.append((seat, (), None))
        return False

    def legal(self, wrap: Callable[[tuple[str, ...]], Any] | None = None, memo: dict | None = None) -> list:
        """Legal plays of the seat to act, pass excluded: code tuples, or
        ``wrap(codes)`` objects; see :func:`legal_plays_grouped`."""
        s = self.to_act
        assert s is not None, "no seat acts once the round is won"
        return legal_plays_grouped(self.groups[s], self.cnts[s], self.n, self.top, wrap, memo)

    def set_hand(self, seat: int, cards: Sequence[str]) -> None:
        """Replace ``seat``'s hand (used to re-deal hidden cards in leak tests)."""
        h = sort_cards(cards)
        self.hands[seat][:] = h
        c: dict[str, int] = {}
        for x in h:
            c[x] = c.get(x, 0) + 1
        self.counts[seat] = c
        self.groups[seat] = by_rank(h)
        self.cnts[seat] = [len(g) for g in self.groups[seat]]

    # -- end ----------------------------------------------------------------------
    @property
    def landlord_won(self) -> bool:
        return self.winner == self.landlord

    def spring(self) -> bool:
        """§11 spring test for the finished round."""
        lp = self.plays[self.landlord]
        return is_spring(self.winner == self.landlord, lp, sum(self.plays) - lp)

    def multiplier_and_deltas(self, bid: int, spring_variant: bool) -> tuple[list[int], int, bool]:
        """Settlement of the finished round: ``(deltas, multiplier, spring applied)``."""
        spring = spring_variant and self.spring()
        deltas, m = settle(self.n, bid, self.landlord, self.landlord_won, self.doublings, spring)
        return deltas, m, spring
