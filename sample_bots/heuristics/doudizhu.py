"""Heuristic Dou Dizhu player (uses only the DecisionRequest and cardgames.v1 stubs).

``choose(req) -> Action``. Strategy, all computed from ``req.observation.doudizhu``
and ``req.legal_actions``:

* **Auction**: score the hand (jokers, 2s, aces, bombs, few loose low
  singles) and bid the highest legal amount the score supports, else pass.
* **Leading**: among the legal plays (suits ignored: one candidate per rank
  pattern), pick the one that leaves the hand easiest to play out (fewest
  groups by a greedy decomposition), preferring long and low plays, and
  keeping bombs/rocket unless they end the hand.
* **Following**: go out when possible; never beat the partner (a fellow
  peasant); otherwise beat the opponent with the cheapest non-bomb play
  that does not wreck the hand, and use bombs or the rocket only when an
  opponent is close to going out.
"""

from __future__ import annotations

from cardgames.v1 import referee_pb2 as pb

_RANKS = ("3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "BJ", "RJ")
_RANK_INDEX = {r: i for i, r in enumerate(_RANKS)}


def _rank(code: str) -> int:
    return 13 if code == "BJ" else 14 if code == "RJ" else _RANK_INDEX[code[0]]


def _counts(cards) -> list[int]:
    c = [0] * 15
    for x in cards:
        c[_rank(x)] += 1
    return c


def _groups(cnt: list[int], n: int) -> float:
    """Approximate number of plays needed to empty a hand with rank counts
    ``cnt`` (greedy: bombs/rocket, straights, trios with attached kickers,
    pairs, singles), plus a small penalty for low loose singles."""
    c = list(cnt)
    groups = 0.0
    jk = 1 if n == 3 else 2
    if c[13] >= jk and c[14] >= jk and (n == 3 or (c[13] == 2 and c[14] == 2)):
        groups += 1
        c[13] -= jk
        c[14] -= jk
    for r in range(13):
        if c[r] >= 4:
            groups += 1
            c[r] = 0
    # straights: greedily take runs of >= 5 among ranks 3..A holding 1-2 cards
    r = 0
    while r < 12:
        if c[r] >= 1:
            e = r
            while e + 1 < 12 and c[e + 1] >= 1:
                e += 1
            if e - r + 1 >= 5:
                singles_used = sum(1 for x in range(r, e + 1) if c[x] == 1)
                if singles_used >= 3:
                    for x in range(r, e + 1):
                        c[x] -= 1
                    groups += 1
            r = e + 1
        else:
            r += 1
    trios = sum(1 for r in range(13) if c[r] == 3)
    pairs = sum(1 for r in range(15) if c[r] == 2)
    singles = [r for r in range(15) if c[r] == 1]
    kick = min(trios, len(singles) + pairs)
    groups += trios + pairs + len(singles) - kick
    low_singles = sum(1 for r in singles if r < 8)
    return groups + 0.3 * max(0, low_singles - trios)


def _is_bombish(cnt: list[int], size: int) -> bool:
    """A play (rank counts, size) that is a bomb or the rocket."""
    ranks = [r for r in range(15) if cnt[r]]
    if len(ranks) == 1 and cnt[ranks[0]] >= 4 and ranks[0] <= 12:
        return True
    return all(r >= 13 for r in ranks) and len(ranks) == 2 and size in (2, 4)


def _bid(obs, legal) -> pb.Action:
    cnt = _counts(obs.hand)
    n = obs.players
    score = 4.0 * cnt[14] + 3.0 * cnt[13] + 2.0 * cnt[12] + 1.0 * cnt[11]
    score += sum(4.0 for r in range(13) if cnt[r] >= 4)
    score -= 0.6 * max(0, _groups(cnt, n) - (7 if n == 3 else 10))
    if n == 4:
        score *= 0.6
    want = 3 if score >= 11 else 2 if score >= 9 else 1 if score >= 7 else 0
    best = None
    for a in legal:
        if a.kind == pb.ACTION_KIND_BID and a.amount <= want and (best is None or a.amount > best.amount):
            best = a
    if best is not None:
        return best
    for a in legal:
        if a.kind == pb.ACTION_KIND_PASS:
            return a
    return legal[0]


def _opponents_low(obs) -> int:
    """Fewest cards held by an opponent of the seat to act."""
    me = obs.seat
    ll = obs.landlord
    sizes = list(obs.hand_sizes)
    if me == ll:
        return min(sizes[s] for s in range(obs.players) if s != me)
    return sizes[ll]


def _play(obs, legal) -> pb.Action:
    n = obs.players
    hand_cnt = _counts(obs.hand)
    hand_size = len(obs.hand)
    pass_action = None
    seen: dict[tuple, tuple] = {}
    for a in legal:
        if a.kind == pb.ACTION_KIND_PASS:
            pass_action = a
            continue
        key = tuple(sorted(_rank(c) for c in a.cards))
        if key not in seen:
            seen[key] = a
    if not seen:
        return pass_action or legal[0]
    leading = pass_action is None
    me = obs.seat
    partner_on_top = (not leading and obs.top_seat >= 0 and obs.landlord >= 0
                      and me != obs.landlord and obs.top_seat != obs.landlord)
    danger = _opponents_low(obs)
    best = None
    best_score = None
    for key, a in seen.items():
        size = len(key)
        if size == hand_size:
            return a  # going out
        pc = [0] * 15
        for r in key:
            pc[r] += 1
        rest = [hand_cnt[r] - pc[r] for r in range(15)]
        bombish = _is_bombish(pc, size)
        after = _groups(rest, n)
        top_rank = max(key)
        if bombish:
            if leading and after > 1:
                continue
            if not leading and danger > (4 if n == 3 else 6):
                continue
            score = (after + 3.0, top_rank)
        else:
            # prefer leaving few groups; then playing more cards; then lower ranks
            score = (after - 0.15 * size, top_rank)
        if best_score is None or score < best_score:
            best, best_score = a, score
    if leading:
        return best if best is not None else next(iter(seen.values()))
    if partner_on_top:
        # let the partner's play stand unless it ends the round for us (handled above)
        return pass_action
    if best is None:
        return pass_action
    cur = _groups(hand_cnt, n)
    # do not break the hand badly to beat a play unless an opponent is close to going out
    if best_score[0] > cur + 0.5 and danger > 3:
        return pass_action
    # spend top cards (2s, jokers) on small tops only when pressed
    if best_score[1] >= 12 and danger > 5 and cur > 4:
        tops = list(obs.top)
        if tops and max(_rank(c) for c in tops) < 9:
            return pass_action
    return best


def choose(req: pb.DecisionRequest) -> pb.Action:
    """Pick an action for a Dou Dizhu ``DecisionRequest`` (BID or PLAY decision).

    Uses only ``req.observation.doudizhu``, ``req.legal_actions`` and
    ``req.kind``; always returns one of the legal actions sent (falls back
    to the first one)."""
    legal = list(req.legal_actions)
    if not legal:
        return pb.Action(kind=pb.ACTION_KIND_PASS)
    obs = req.observation.doudizhu
    if req.kind == pb.DECISION_KIND_BID:
        return _bid(obs, legal)
    return _play(obs, legal)
