"""Dou Dizhu engine tests (shared/rules/doudizhu.md).

Unit tests name the spec rule they exercise; hypothesis property tests
cross-check the enumerator against classify/beats by brute force; seeded
random playouts (5,000 rounds over 3p and 4p, some full 12-round matches)
check conservation of the deck, zero-sum money, unchanged state after every
rejected action, and the result against a recomputation from the event log.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings, strategies as st

from cardgames.v1 import referee_pb2 as pb
from referee.engine import Action, IllegalAction
from referee.games import game_class
from referee.games.doudizhu import rules as R
from referee.games.doudizhu.conformance import QUERIES
from referee.games.doudizhu import view
from referee.games.doudizhu.game import DouDizhu
from referee.local import play_local, random_policy
from referee.protocol import decision_request
from sample_bots.heuristics.doudizhu import choose as heuristic


def C(s: str) -> list[str]:
    return s.split()


def cls(s: str, n: int = 3):
    return R.classify(C(s), n)


def new(n=3, seed=0, rounds=12, spring=False) -> DouDizhu:
    return DouDizhu(n, {"spring": spring}, {"rounds": rounds}, random.Random(seed))


def to_play(g: DouDizhu, bid: int = 3) -> DouDizhu:
    """Drive the auction: the first bidder bids ``bid`` and the others pass."""
    g.apply(g.to_act, Action("BID", (), bid))
    while g.phase == "auction":
        g.apply(g.to_act, Action("PASS"))
    return g


def msg(e):
    """The DouDizhuEvent of an engine event (built by the view)."""
    return view.event_message(e.record)


def fingerprint(g: DouDizhu):
    p = g.playp
    return (g.to_act, g.phase, g.round, tuple(g.scores), tuple(tuple(h) for h in g.hands), tuple(g.kitty),
            tuple(g.auction.calls), g.auction.high, len(g._events), tuple(g.played), len(g.history),
            None if p is None else (p.top, p.top_cards, p.top_seat, p.passes, tuple(p.trick), tuple(p.plays),
                                    tuple(tuple(sorted(c.items())) for c in p.counts),
                                    tuple(tuple(x) for x in p.cnts), tuple(tuple(x) for x in p.groups)))


# ---------------------------------------------------------------- registry, config

def test_registry_and_config():
    assert game_class("doudizhu") is DouDizhu
    assert DouDizhu.variant_defaults == {"spring": False}
    assert DouDizhu.param_defaults == {"rounds": 12}
    with pytest.raises(ValueError):
        DouDizhu(5, None, None, random.Random(0))
    with pytest.raises(ValueError):
        DouDizhu(3, {"jokers": True}, None, random.Random(0))
    with pytest.raises(ValueError):
        DouDizhu(3, None, {"rounds": 0}, random.Random(0))


def test_every_spec_query_kind_is_answered():
    assert set(QUERIES) == {"classify", "beats", "legal_play", "legal_bid", "auction_result", "payment",
                            "play_sequence"}


# ---------------------------------------------------------------- §2 deal

@pytest.mark.parametrize("n", [3, 4])
def test_deal_sizes_and_marker_DEAL_2_DEAL_3(n):
    for seed in range(30):
        g = new(n, seed)
        H, K = (17, 3) if n == 3 else (25, 8)
        assert [len(h) for h in g.hands] == [H] * n and len(g.kitty) == K
        assert Counter(c for h in g.hands for c in h) + Counter(g.kitty) == Counter(R.deck(n))
        assert g.marker in g.hands[g.first_bidder]  # [DEAL-3]: the marker is a dealt card
        assert g.to_act == g.first_bidder and g.decision_kind() == "BID"  # [AUC-1]
        for h in g.hands:
            assert h == R.sort_cards(h)  # §2.3 canonical order


def test_canonical_order_2_3():
    assert R.sort_cards(C("RJ 2C BJ 3S 3C AD TH")) == C("3C 3S TH AD 2C BJ RJ")


# ---------------------------------------------------------------- §5 classification

@pytest.mark.parametrize("cards,n,expect", [
    ("7H", 3, ("single", 4, 1)),
    ("BJ BJ", 4, ("pair", 13, 1)),            # 4p joker pair (§12 item 21)
    ("BJ RJ", 4, None),                       # never a pair; not the 4p rocket ([COMB-2] / item 27)
    ("BJ BJ RJ", 4, None),
    ("BJ RJ", 3, ("rocket", 14, 1)),
    ("BJ BJ RJ RJ", 4, ("rocket", 14, 1)),
    ("3S 3H 3D 3C", 3, ("bomb", 0, 1)),       # a four is only a bomb (§5.3 notes)
    ("3S 3S 3H 3D 3C", 4, ("bomb", 0, 1)),    # 4p five of a kind is only a bomb (item 18)
    ("6S 6H 6D BJ RJ", 3, None),              # [COMB-2]: trio + both jokers
    ("3S 3H 3D 4S 4H 4D 5S 5H", 3, None),     # 333444+55 (item 19)
    ("3S 3H 3D 4S 4H 4D 3C 9C", 3, None),     # 333444+3+9
    ("3S 3H 3D 4S 4H 4D 5S 5H 5D 7S 7H 7D", 3, None),  # 333444555+777 (item 19)
    ("3S 3H 3D 4S 4H 4D 5S 5H 5D 6S 6H 6D", 3, ("trio_chain", 3, 4)),  # 333444555666 only a trio chain
    ("3S 3H 3D 3C 4S 4H 4D 4C", 3, None),     # 3333 4444 (item 24)
    ("3S 3H 3D 3C 4S 4H 4D 4C", 4, None),
    ("3S 3H 3D 4S 4H 4D BJ RJ", 3, None),     # airplane with both jokers ([COMB-2], item 22)
    ("3S 3H 3D 4S 4H 4D 2S BJ", 3, ("airplane_single", 1, 2)),
    ("3S 3H 3D 4S 4H 4D BJ BJ RJ RJ", 4, None),  # 4p airplane_pair with every joker
    ("3S 3H 3D 4S 4H 4D BJ BJ 2S 2S", 4, ("airplane_pair", 1, 2)),
    ("KS KH KD AS AH AD 2S 2H 2D 3S 4S 5S", 3, None),  # 2s never chain ([RANK-3])
    ("TS JS QS KS AS", 3, ("straight", 11, 5)),
    ("JS QS KS AS 2S", 3, None),
    ("AS 2S 3S 4S 5S", 3, None),              # no wrap
    ("9S 9H 9D 4C", 4, None),                 # trio_single is 3p only
    ("9S 9H 9D 9C 4C 5C", 3, ("quad_two_singles", 6, 1)),
    ("9S 9H 9D 9C 4C 4D 5C 5D", 3, ("quad_two_pairs", 6, 1)),
    ("9S 9H 9D 9C BJ RJ", 3, None),
    ("9S 9H 9D 9C 4C 4D 4S 4H", 3, None),
    ("9S 9H 9D 9C 4C 5C", 4, None),           # quadplex is 3p only
    ("3S 3S", 3, None),                       # [COMB-3] repeated code in 3p
    ("3S 3S 3S", 4, None),                    # [COMB-3] thrice in 4p
    ("3X", 3, None),                          # [COMB-3] unknown code
    ("", 3, None),
])
def test_classify_table_5_3(cards, n, expect):
    got = R.classify(C(cards), n)
    assert (got[:3] if got else None) == expect


def test_beats_6():
    n = 3
    assert R.beats(cls("3S"), cls("4S"), n)
    assert not R.beats(cls("4S"), cls("4H"), n)                      # [BEAT-6] equal never beats
    assert not R.beats(cls("3S 4S 5S 6S 7S"), cls("4S 5S 6S 7S 8S 9S"), n)  # lengths differ
    assert not R.beats(cls("3S 3H 3D"), cls("4S 4H 4D 5C"), n)       # trio vs trio_single unrelated
    assert R.beats(cls("9S 9H 9D 9C 4C 5C"), cls("3S 3H 3D 3C"), n)  # [BEAT-3] bomb beats quadplex
    assert not R.beats(cls("9S 9H 9D 9C 4C 5C"), cls("TS TH TD TC 4S 4H 5S 5H"), n)
    assert R.beats(cls("2S 2H 2D 2C"), cls("BJ RJ"), n)              # [BEAT-1]
    assert not R.beats(cls("BJ RJ"), cls("2S 2H 2D 2C"), n)          # [BEAT-2]
    assert R.beats(cls("3S 3H 3D 3C"), cls("4S 4H 4D 4C"), n)        # [BEAT-4] 3p by rank
    # [BEAT-4] 4p: more cards beat fewer whatever the ranks
    assert R.beats(cls("2S 2H 2D 2C", 4), cls("3S 3S 3H 3D 3C", 4), 4)
    assert not R.beats(cls("3S 3S 3H 3D 3C", 4), cls("2S 2H 2D 2C", 4), 4)
    assert R.beats(cls("3S 3S 3H 3D 3C", 4), cls("4S 4S 4H 4D 4C", 4), 4)
    assert R.beats(cls("2S 2S 2H 2H 2D 2D 2C 2C", 4), cls("BJ BJ RJ RJ", 4), 4)


def test_payment_rules_PAY_1_to_PAY_6():
    assert R.doublings(4, [4, 5, 6, 8], 1) == 3      # 4p: only 6+ card bombs double
    assert R.doublings(3, [4, 4], 1) == 3
    assert R.settle(3, 2, 0, False, 2, False) == ([-16, 8, 8], 4)   # §8 example
    assert R.settle(4, 1, 2, True, 0, True) == ([-2, -2, 6, -2], 2)
    assert R.is_spring(True, 5, 0) and not R.is_spring(True, 5, 1)
    assert R.is_spring(False, 1, 9) and not R.is_spring(False, 2, 9)


# ---------------------------------------------------------------- enumeration = classify + beats

def brute_force(hand: list[str], n: int, top) -> set[tuple[str, ...]]:
    out = set()
    for k in range(1, len(hand) + 1):
        for sub in combinations(hand, k):
            c = R.classify(sub, n)
            if c is not None and (top is None or R.beats(top, c, n)):
                out.add(tuple(R.sort_cards(sub)))
    return out


TOPS = {3: [None, "5S", "9H 9D", "4S 4H 4D", "4S 4H 4D 8C", "6S 6H 6D 9C 9D", "3S 4S 5S 6S 7S",
            "3S 3H 4S 4H 5S 5H", "3S 3H 3D 4S 4H 4D", "3S 3H 3D 4S 4H 4D 8C 9C", "5S 5H 5D 5C 7C 8C",
            "5S 5H 5D 5C", "BJ RJ"],
        4: [None, "5S", "9H 9D", "4S 4H 4D", "6S 6H 6D 9C 9D", "3S 4S 5S 6S 7S", "3S 3H 4S 4H 5S 5H",
            "3S 3H 3D 4S 4H 4D 8C 8D 9C 9D", "5S 5H 5D 5C", "5S 5S 5H 5D 5C 5C", "BJ BJ RJ RJ"]}


def check_enumeration(hand: list[str], n: int, top) -> None:
    hand = R.sort_cards(hand)
    plays = R.legal_plays(hand, n, top)
    assert len(plays) == len(set(plays)), "duplicate legal plays"
    assert set(plays) == brute_force(hand, n, top)
    assert R.count_legal_plays(hand, n, top) == len(plays)


@pytest.mark.parametrize("n", [3, 4])
def test_enumeration_matches_brute_force_seeded(n):
    rng = random.Random(7)
    for i in range(60):
        d = R.deck(n)
        rng.shuffle(d)
        hand = d[:rng.randint(1, 11)]
        for t in TOPS[n]:
            top = None if t is None else R.classify(C(t), n)
            check_enumeration(hand, n, top)


def _dense_hand(n: int, seed: int, size: int) -> list[str]:
    """A hand concentrated on few ranks, so chains, airplanes and bombs occur."""
    rng = random.Random(seed)
    ranks = rng.sample(range(15), rng.randint(2, 6))
    pool = [c for c in R.deck(n) if R.RANK_OF[c] in ranks or rng.random() < 0.05]
    rng.shuffle(pool)
    return pool[:size]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([3, 4]), st.integers(1, 12), st.integers(0, 100))
def test_enumeration_property(seed, n, size, ti):
    hand = _dense_hand(n, seed, size)
    t = TOPS[n][ti % len(TOPS[n])]
    check_enumeration(hand, n, None if t is None else R.classify(C(t), n))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([3, 4]), st.integers(1, 20))
def test_classify_properties(seed, n, size):
    rng = random.Random(seed)
    d = R.deck(n)
    rng.shuffle(d)
    cards = d[:size]
    c = R.classify(cards, n)
    rev = list(reversed(cards))
    assert R.classify(rev, n) == c                     # a multiset: order never matters
    if c is not None:
        assert c[3] == len(cards) and c[0] in R.TYPES
        assert not R.beats(c, c, n)                    # [BEAT-6]: equal never beats
        # the play is listed by the enumerator of a hand that is exactly these cards
        assert tuple(R.sort_cards(cards)) in set(R.legal_plays(R.sort_cards(cards), n, None))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([3, 4]))
def test_beats_is_antisymmetric(seed, n):
    rng = random.Random(seed)
    d = R.deck(n)
    rng.shuffle(d)
    plays = R.legal_plays(R.sort_cards(d[:20]), n, None)
    for _ in range(30):
        a, b = rng.choice(plays), rng.choice(plays)
        ca, cb = R.classify(a, n), R.classify(b, n)
        if ca[0] == cb[0] == R.ROCKET:
            # [BEAT-1] comes before [BEAT-2]: a rocket played on a rocket beats it.
            # The deal holds one rocket, so that pair never meets in play.
            assert R.beats(ca, cb, n) and R.beats(cb, ca, n)
            continue
        assert not (R.beats(ca, cb, n) and R.beats(cb, ca, n))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 10**9), st.sampled_from([3, 4]), st.integers(1, 33))
def test_lead_moves_are_every_type_in_order(seed, n, size):
    hand = _dense_hand(n, seed, min(size, 20 if n == 3 else 33))
    cnt = [len(g) for g in R.by_rank(R.sort_cards(hand))]
    expect = [m for t in R.LEAD_ORDER[n] for m in R.moves_of_type(cnt, n, t)]
    assert R.legal_moves(cnt, n, None) == expect


def test_large_4p_lead_is_complete_and_counted():
    # a 33-card landlord hand: every chain rank twice + extras
    hand = R.sort_cards([r + s for r in "3456789TJQKA" for s in "SH"] + C("2S 2S 2H 2D 2C BJ BJ RJ 3C"))
    n = 4
    plays = R.legal_plays(hand, n, None)
    assert len(plays) == len(set(plays)) == R.count_legal_plays(hand, n, None)
    for p in plays[:: max(1, len(plays) // 500)]:
        assert R.classify(p, n) is not None


# ---------------------------------------------------------------- engine: auction and turns

def test_auction_flow_and_errors_AUC():
    g = new(3, 1)
    fb = g.to_act
    acts, complete = g.legal_actions()
    assert complete and [a.key() for a in acts] == [Action("PASS").key()] + [Action("BID", (), b).key() for b in (1, 2, 3)]
    before = fingerprint(g)
    with pytest.raises(IllegalAction) as e:
        g.apply((fb + 1) % 3, Action("PASS"))
    assert e.value.rule == "TURN"
    for bad in (Action("BID", (), 4), Action("BID", (), 0), Action("PLAY", ("3S",)), Action("BID", ("3S",), 1),
                Action("PASS", (), 2)):
        with pytest.raises(IllegalAction) as e:
            g.apply(fb, bad)
        assert e.value.rule == "AUC-3"
    assert fingerprint(g) == before
    g.apply(fb, Action("BID", (), 2))
    with pytest.raises(IllegalAction) as e:
        g.apply((fb + 1) % 3, Action("BID", (), 2))
    assert e.value.rule == "AUC-3"
    assert [a.amount for a in g.legal_actions()[0]] == [0, 3]
    g.apply((fb + 1) % 3, Action("PASS"))
    g.apply((fb + 2) % 3, Action("PASS"))
    # [AUC-6]b: landlord found, [AUC-8] kitty taken, [PLAY-1] landlord leads
    assert g.phase == "play" and g.playp.landlord == fb and g.to_act == fb
    assert len(g.hands[fb]) == 20 and g.auction.bid == 2
    assert g.decision_kind() == "PLAY"


def test_redeal_counts_as_round_AUC_9_GAME_1():
    g = new(3, 2, rounds=2)
    for _ in range(3):
        g.apply(g.to_act, Action("PASS"))
    assert g.round == 2 and g.phase == "auction" and g.scores == [0, 0, 0]
    for _ in range(3):
        g.apply(g.to_act, Action("PASS"))
    assert g.over
    r = g.result()
    assert r.scores == [0, 0, 0] and r.ranks == [1, 1, 1] and r.outcomes == []
    assert r.summary["redeals"] == 2
    with pytest.raises(IllegalAction) as e:
        g.apply(0, Action("PASS"))
    assert e.value.rule == "TURN"
    evs = [msg(e).WhichOneof("kind") for e in g.pop_events()]
    assert evs.count("round_end") == 2 and evs[-1] == "match_end"


def test_play_errors_PLAY_rules_and_state_unchanged():
    g = to_play(new(3, 3))
    ll = g.to_act
    hand = list(g.hands[ll])
    before = fingerprint(g)
    cases = [
        (ll, Action("PASS"), "PLAY-2"),                          # leader may not pass
        ((ll + 1) % 3, Action("PLAY", (g.hands[(ll + 1) % 3][0],)), "TURN"),
        (ll, Action("PLAY", ("ZZ",)), "COMB-3"),                  # malformed code
        (ll, Action("PLAY", ()), "PLAY-3"),
        (ll, Action("BID", (), 1), "PLAY-3"),
        (ll, Action("PLAY", (hand[0],), 1), "PLAY-3"),           # amount must be 0
    ]
    missing = next(c for c in R.CANON_CODES if c not in hand)
    cases.append((ll, Action("PLAY", (missing,)), "PLAY-3"))      # not in hand
    cases.append((ll, Action("PLAY", (hand[0], hand[0])), "PLAY-3"))  # only one copy
    non = next((a, b) for a, b in combinations(hand, 2) if R.classify((a, b), 3) is None)
    cases.append((ll, Action("PLAY", non), "COMB-1"))
    for seat, act, rule in cases:
        with pytest.raises(IllegalAction) as e:
            g.apply(seat, act)
        assert e.value.rule == rule, (act, e.value)
        assert fingerprint(g) == before
    # lead the lowest single; the next seat must beat it or pass ([PLAY-4])
    g.apply(ll, Action("PLAY", (hand[-1],)))
    nxt = g.to_act
    low = g.hands[nxt][0]
    if R.RANK_OF[low] <= R.RANK_OF[hand[-1]]:
        before = fingerprint(g)
        with pytest.raises(IllegalAction) as e:
            g.apply(nxt, Action("PLAY", (low,)))
        assert e.value.rule == "PLAY-4" and fingerprint(g) == before


def test_trick_end_and_reentry_PLAY_6_PLAY_8():
    p = R.PlayPhase(3, 0, [C("3S 9S KS"), C("4S 5S"), C("6S 7S")])
    for seat, cards in [(0, C("3S")), (1, C("4S")), (2, [])]:
        combo = p.check(seat, cards)
        p.play(seat, tuple(cards), combo) if combo else p.pass_(seat)
    assert p.to_act == 0 and p.top_seat == 1
    p.play(0, ("9S",), p.check(0, ["9S"]))
    assert not p.pass_(1) and p.pass_(2)   # n-1 passes end the trick
    assert p.to_act == 0 and p.top is None  # top owner leads ([PLAY-6])


# ---------------------------------------------------------------- fallback, observation, hidden zones

def test_fallback_actions_7_3():
    g = new(3, 4)
    assert g.fallback_action() == Action("PASS")
    to_play(g)
    ll = g.to_act
    fb = g.fallback_action()
    assert fb.kind == "PLAY" and fb.cards == (g.hands[ll][0],)
    assert g.hands[ll][0] == R.sort_cards(g.hands[ll])[0]
    g.apply(ll, fb)
    assert g.fallback_action() == Action("PASS")


def _visible_bytes(g: DouDizhu, seat: int, events) -> list[bytes]:
    out = [view.observation(g, seat).SerializeToString(deterministic=True)]
    out += [msg(e).SerializeToString(deterministic=True) for e in events if e.to in (None, seat)]
    if g.to_act == seat:
        acts, complete = g.legal_actions()
        out.append(repr(([a.key() for a in acts], complete)).encode())
    return out


@pytest.mark.parametrize("n", [3, 4])
def test_observation_leaks_nothing_and_hidden_zones_round_trip(n):
    rng = random.Random(11)
    for seed in range(3):
        g = new(n, seed, rounds=2)
        steps = 0
        while not g.over and steps < 300:
            for seat in (range(n) if steps % 7 == 0 else ()):
                obs = view.observation(g, seat)
                assert list(obs.hand) == g.hands[seat]
                zones = g.hidden_zones(seat)
                own = Counter(g.hands[seat])
                # hidden places never include this seat's own hand
                assert f"hand{seat}" not in zones
                if n == 3:  # codes are unique: no hidden card appears anywhere in the observation
                    shown = set(obs.hand) | set(obs.kitty) | set(obs.top) | set(obs.played) | {obs.marker}
                    shown |= {c for pl in list(obs.trick) + list(obs.history) for c in pl.cards}
                    assert not shown & {c for z in zones.values() for c in z}
                # round trip
                g2 = g.with_hidden_zones(zones)
                assert g2.hidden_zones(seat) == zones
                assert fingerprint(g2) == fingerprint(g)
                # shuffle hidden cards among hidden places: the seat sees the same bytes
                flat = [c for z in zones.values() for c in z]
                rng.shuffle(flat)
                shuffled, i = {}, 0
                for k, z in zones.items():
                    shuffled[k] = flat[i:i + len(z)]
                    i += len(z)
                g3 = g.with_hidden_zones(shuffled)
                assert Counter(g3.hands[seat]) == own
                assert _visible_bytes(g3, seat, _peek_events(g3)) == _visible_bytes(g, seat, _peek_events(g))
                # the publicly located cards stay where the public knows they are
                assert g3.marker in g3.hands[g3.first_bidder] or g3.marker in g3.played
            acts, _ = g.legal_actions()
            g.apply(g.to_act, rng.choice(acts))
            steps += 1


def _peek_events(g: DouDizhu):
    return list(g._events)


def _reference_observation(g: DouDizhu, seat: int):
    """The observation built field by field from the engine state (slow, obvious)."""
    from cardgames.v1 import doudizhu_pb2 as dpb

    def _play_pb(seat, cards, combo):
        if combo is None:
            return dpb.DouDizhuPlay(seat=seat)
        return dpb.DouDizhuPlay(seat=seat, cards=cards, combination=combo[0], rank=R.RANK_NAMES[combo[1]], length=combo[2])

    def _hist_pb(r):
        return dpb.DouDizhuPlay(seat=r.seat, cards=r.cards, combination=r.combination, rank=r.rank, length=r.length)

    def _round_end_pb(r):
        return dpb.DouDizhuRoundEnd(round=r.round, winner=r.winner, landlord_won=r.landlord_won,
                                    multiplier=r.multiplier, spring=r.spring, deltas=r.deltas, scores=r.scores,
                                    redeal=r.redeal, landlord=r.landlord, bid=r.bid, doublings=r.doublings)

    p = g.playp if g.phase != "auction" else None
    o = dpb.DouDizhuObservation(
        players=g.players, round=g.round, rounds=g.params["rounds"], scores=g.scores, hand=g.hands[seat],
        hand_sizes=[len(h) for h in g.hands], phase={"auction": dpb.DOU_DIZHU_PHASE_AUCTION, "play": dpb.DOU_DIZHU_PHASE_PLAY,
                                                        "over": dpb.DOU_DIZHU_PHASE_OVER}[g.phase], marker=g.marker, first_bidder=g.first_bidder,
        seat=seat, spring=g.variant["spring"], calls=[dpb.DouDizhuCall(seat=s, amount=a) for s, a in g.auction.calls],
        high_bid=g.auction.high, landlord=-1, top_seat=-1, multiplier=1,
        results=[_round_end_pb(r) for r in g.results])
    if p is not None:
        o.landlord, o.bid, o.top_seat, o.passes = p.landlord, g.auction.bid, p.top_seat, p.passes
        o.doublings, o.multiplier = p.doublings, 2 ** p.doublings
        o.kitty.extend(g.kitty)
        o.top.extend(p.top_cards)
        o.played.extend(g.played)
        o.trick.extend(_play_pb(*t) for t in p.trick)
        o.history.extend(_hist_pb(t) for t in g.history)
    return o


@pytest.mark.parametrize("n", [3, 4])
def test_observation_matches_engine_state_10(n):
    rng = random.Random(21)
    for seed in range(4):
        g = new(n, seed, rounds=3)
        while not g.over:
            for seat in range(n):
                if rng.random() < 0.3:
                    assert view.observation(g, seat) == _reference_observation(g, seat)
            g.apply(g.to_act, _pick(g, rng))
        for seat in range(n):
            assert view.observation(g, seat) == _reference_observation(g, seat)


def test_private_deal_events_only_to_owner():
    g = new(3, 5)
    evs = g.pop_events()
    starts = [e for e in evs if msg(e).WhichOneof("kind") == "round_start"]
    assert len(starts) == 1 and starts[0].to is None  # the public part: no hand
    deals = [e for e in evs if msg(e).WhichOneof("kind") == "deal"]
    assert len(deals) == 3 and all(e.to == msg(e).deal.seat for e in deals)
    for e in deals:
        assert list(msg(e).deal.hand) == g.hands[e.to]


# ---------------------------------------------------------------- random playouts

def _recompute_from_events(n: int, events, spring_on: bool) -> tuple[list[int], list]:
    """Money per seat and rating outcomes from the public event log only (§8, §11)."""
    scores = [0] * n
    outcomes = []
    landlord = bid = None
    bombs, rockets, plays = [], 0, Counter()
    for e in events:
        if e.to is not None:
            continue
        k = msg(e).WhichOneof("kind")
        m = getattr(msg(e), k)
        if k == "round_start":
            landlord, bid, bombs, rockets, plays = None, None, [], 0, Counter()
        elif k == "auction_end" and not m.redeal:
            landlord, bid = m.landlord, m.bid
        elif k == "play" and m.cards:
            plays[m.seat] += 1
            if m.combination == "bomb":
                bombs.append(len(m.cards))
            elif m.combination == "rocket":
                rockets += 1
        elif k == "round_end":
            if m.redeal:
                assert list(m.deltas) == [0] * n
                continue
            d = (len(bombs) if n == 3 else sum(1 for b in bombs if b >= 6)) + rockets
            mult = 2 ** d
            lw = m.winner == landlord
            peasant_plays = sum(v for s, v in plays.items() if s != landlord)
            spring = (peasant_plays == 0) if lw else (plays[landlord] == 1)
            if spring_on and spring:
                mult *= 2
            stake = bid * mult
            deltas = [(-stake if lw else stake)] * n
            deltas[landlord] = (n - 1) * stake * (1 if lw else -1)
            assert list(m.deltas) == deltas and m.multiplier == mult and m.landlord_won == lw
            assert sum(deltas) == 0  # [PAY-6] zero-sum
            scores = [a + b for a, b in zip(scores, deltas)]
            assert list(m.scores) == scores
            outcomes.append(([[landlord], [s for s in range(n) if s != landlord]], [0, 1] if lw else [1, 0]))
    return scores, outcomes


def _conserved(g: DouDizhu, deck: list[str]) -> bool:
    """hands + face-down kitty + cards played this round == the deck (as multisets)."""
    have = list(g.played)
    for h in g.hands:
        have += h
    if not g.kitty_shown:
        have += g.kitty
    have.sort()
    return have == deck


def _pick(g: DouDizhu, rng: random.Random) -> Action:
    """A random legal action. Follows, auction calls and a quarter of the
    leads pick uniformly from the complete ``legal_actions()`` list (never
    for the rare enormous 4p leads); the other leads pick a random
    rank-level move (``rules.legal_moves``) and a random realisation, which
    spreads play over all combination types. Either way ``apply``
    validates the action."""
    if g.phase == "play" and g.playp.top is None and (
            rng.random() < 0.75 or (g.players == 4 and g.legal_play_count() > 500)):
        p = g.playp
        s = p.to_act
        move = rng.choice(R.legal_moves(p.cnts[s], g.players, None))
        cards = []
        for r, k in move:
            cards.extend(rng.sample(p.groups[s][r], k))
        return Action("PLAY", tuple(cards))
    acts, complete = g.legal_actions()
    assert complete and acts
    return rng.choice(acts)


def _try_illegal(g: DouDizhu, rng: random.Random) -> bool:
    """Throw a (probably) illegal action at the engine; when rejected, check
    nothing changed. Returns True if it was in fact legal and applied."""
    before = fingerprint(g)
    seat = g.to_act
    choice = rng.randrange(4)
    if choice == 0:
        seat, act = (seat + 1) % g.players, Action("PASS")
    elif choice == 1:
        act = Action("PLAY", ("QQ",))
    elif choice == 2:
        other = g.hands[(seat + 1) % g.players]
        mine = Counter(g.hands[seat])
        act = Action("PLAY", tuple(c for c in other[:1] if mine[c] == 0) or ("XX",))
    else:
        act = Action("BID", (), 7) if g.phase == "auction" else (
            Action("PASS") if g.playp.top is None else Action("PLAY", tuple(g.hands[seat][:2])))
    try:
        g.apply(seat, act)
    except IllegalAction:
        assert fingerprint(g) == before
        return False
    assert choice == 3  # only this pick may happen to be legal
    return True


def _playout(n: int, seed: int, rounds: int, spring: bool, check_every: int) -> tuple[int, int]:
    rng = random.Random(seed * 7 + 1)
    g = new(n, seed, rounds=rounds, spring=spring)
    deck = sorted(R.deck(n))
    steps = 0
    while not g.over:
        if steps % check_every == 0 and _try_illegal(g, rng):
            pass  # the "illegal" pick was legal and has been applied
        else:
            g.apply(g.to_act, _pick(g, rng))
        assert _conserved(g, deck)
        steps += 1
    events = g.pop_events()
    res = g.result()
    scores, outcomes = _recompute_from_events(n, events, spring)
    assert res.scores == scores and sum(res.scores) == 0
    assert [(o.teams, o.ranks) for o in res.outcomes] == outcomes
    played = sum(1 for r in res.summary["rounds"] if not r["redeal"])
    assert len(res.outcomes) == played and len(res.summary["rounds"]) == rounds
    best = max(scores)
    assert res.ranks == [1 + sum(1 for o in scores if o > s) for s in scores]
    assert [r == 1 for r in res.ranks] == [s == best for s in scores]
    return steps, played


def test_random_playouts_5000_rounds():
    """5,000 seeded random rounds: 3,600 in 3p and 1,400 in 4p, mostly
    one-round matches plus some full 12-round matches, with and without the
    spring variant."""
    t0 = time.perf_counter()
    total = {3: 0, 4: 0}
    seed = 0
    plans = [(3, 12, 24), (4, 12, 4), (3, 1, 3600 - 12 * 24), (4, 1, 1400 - 12 * 4)]
    for n, rounds, matches in plans:
        for _ in range(matches):
            seed += 1
            _playout(n, seed, rounds, spring=seed % 2 == 0, check_every=17)
            total[n] += rounds
    assert total == {3: 3600, 4: 1400}
    print(f"\n5000 random rounds in {time.perf_counter() - t0:.1f}s")


# ---------------------------------------------------------------- protocol and heuristic

def test_decision_request_builds_for_both_kinds():
    g = new(3, 9)
    req = decision_request(g, "m", 1, 1000, 0)
    assert req.kind == pb.DECISION_KIND_BID and req.legal_actions_complete
    from cardgames.v1 import doudizhu_pb2 as dpb

    assert req.observation.doudizhu.phase == dpb.DOU_DIZHU_PHASE_AUCTION
    to_play(g)
    req = decision_request(g, "m", 2, 1000, 0)
    assert req.kind == pb.DECISION_KIND_PLAY
    assert len(req.legal_actions) == len(g.legal_actions()[0])
    assert len(req.observation.doudizhu.kitty) == 3


def test_heuristic_beats_random():
    """200 seeded 3p one-round matches, the heuristic in a rotating seat
    against two random-legal players; plus 20 4p one-round matches."""
    def margin(n, matches, rounds):
        money, other, firsts = 0, 0, 0
        for m in range(matches):
            seat = m % n
            pols = [random_policy(1000 * m + s) for s in range(n)]
            pols[seat] = heuristic
            _, res, illegal = play_local("doudizhu", n, pols, seed=m, params={"rounds": rounds})
            assert illegal == 0
            money += res.scores[seat]
            other += sum(res.scores) - res.scores[seat]
            firsts += res.ranks[seat] == 1
        return money / matches, other / matches / (n - 1), firsts / matches

    h3, r3, f3 = margin(3, 200, 1)
    print(f"\n3p: heuristic {h3:+.2f} money/match vs random {r3:+.2f}; heuristic first in {f3:.0%}")
    assert h3 > 1.0 and h3 - r3 > 1.5 and f3 > 0.6
    h4, r4, f4 = margin(4, 20, 1)
    print(f"4p: heuristic {h4:+.2f} money/match vs random {r4:+.2f}; heuristic first in {f4:.0%}")
    assert h4 > r4
