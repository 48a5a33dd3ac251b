"""Tests of the Cutthroat Canadian Smear engine (shared/rules/smear.md).

Unit tests name the spec rule they check; property tests use hypothesis;
the seeded random-playout test plays 2,000+ whole matches checking card
conservation, the IllegalAction no-change guarantee and the scores against
an independent recomputation from the event log; the heuristic sample bot
is measured against random-legal players.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgames.v1 import referee_pb2 as pb
from referee.conformance import run
from referee.engine import Action, IllegalAction
from referee.games import game_class
from referee.games.smear import SmearGame
from referee.games.smear import rules as R
from referee.games.smear import view
from referee.local import play_local, random_policy
from referee.protocol import action_to_pb, decision_request

ROOT = Path(__file__).resolve().parents[2]
from conftest import VECTORS  # ../shared/rules/vectors beside the checkout, or $REFEREE_VECTORS


def msg(e):
    """The event message (protocol) of an engine event."""
    return view.event_message(e.record)

FLAGS = ("with_joker", "dealer_forced_bid", "low_to_taker", "strict_follow")


# ---------------------------------------------------------------- helpers
def new_game(players: int = 3, seed: int = 0, variant: dict | None = None, **params) -> SmearGame:
    return SmearGame(players, variant, params or None, random.Random(seed))


def set_hands(g: SmearGame, hands: list[list[str]]) -> None:
    """Replace the current deal by ``hands`` (the rest of the deck becomes the stock)."""
    used = [c for h in hands for c in h]
    g.hands = [R.sort_hand(h) for h in hands]
    g.stock = [c for c in g._deck if c not in used]
    g._legal = None


def bid_out(g: SmearGame, calls: list[int]) -> None:
    """Make the auction calls (0 = pass) for the seats in turn."""
    for c in calls:
        g.apply(g.to_act, Action("PASS") if c == 0 else Action("BID", (), c))


def play(g: SmearGame, card: str) -> None:
    g.apply(g.to_act, Action("PLAY", (card,)))


def snapshot(g: SmearGame):
    """Everything that defines the engine state (for the no-change checks)."""
    return (
        [list(h) for h in g.hands], list(g.stock), list(g.calls), list(g.trick), list(g.tricks),
        [list(w) for w in g.won], list(g.scores), g.round, g.dealer, g.phase, g.to_act, g.trump,
        g.bidder, g.bid, g.leader, g.winner, len(g._events), g.rng.getstate(),
    )


def deck_of(g: SmearGame) -> Counter:
    return Counter(g._deck)


def all_cards(g: SmearGame) -> Counter:
    """hands + won (played, completed tricks) + current trick + stock."""
    c = Counter(g.stock)
    for h in g.hands:
        c.update(h)
    for w in g.won:
        c.update(w)
    c.update(g.trick)
    return c


def events_json(evs) -> list:
    return [(e.to, msg(e).SerializeToString(deterministic=True)) for e in evs]


# ---------------------------------------------------------------- registry / configuration
def test_registry_and_defaults():
    cls = game_class("smear")
    assert cls is SmearGame
    assert cls.name == "smear" and cls.ruleset == "smear/1" and cls.player_counts == (2, 3)
    assert cls.variant_defaults == {f: False for f in FLAGS}  # spec section 10
    assert cls.param_defaults == {"max_rounds": 200, "first_dealer": None}  # sections 8 and 2.1


@pytest.mark.parametrize("players,variant,params", [
    (4, None, None), (1, None, None), (3, {"jokers": True}, None), (3, {"with_joker": 1}, None),
    (3, None, {"max_rounds": 0}), (3, None, {"max_rounds": "5"}), (3, None, {"first_dealer": 3}),
    (2, None, {"first_dealer": -1}), (3, None, {"rounds": 5}),
])
def test_bad_configuration_raises(players, variant, params):
    with pytest.raises(ValueError):
        SmearGame(players, variant, params, random.Random(1))


def test_conformance_vectors_all_pass():
    rep = run([VECTORS], {"smear"})
    failed = [(o.id, o.expected, o.actual, o.reason) for o in rep.outcomes if o.status == "failed"]
    assert not failed
    assert rep.count("passed") >= 64


def test_conformance_queries_odd_inputs():
    from referee.games.smear.conformance import QUERIES

    def lb(call, calls=(), seat=1, dealer=0, players=3, **variant):
        case = {"players": players, "variant": variant,
                "input": {"dealer": dealer, "calls": list(calls), "seat": seat, "call": call}}
        return QUERIES["legal_bid"](case)["legal"]

    assert lb("pass") and lb(2) and lb(4) and not lb(0) and not lb(-2) and not lb(2.5) and not lb("bid")
    assert not lb(True) and not lb(3, calls=[3], seat=2) and lb(4, calls=[3], seat=2)
    assert not lb("pass", calls=["pass", "pass"], seat=0, dealer_forced_bid=True)
    assert lb("pass", calls=["pass", 2], seat=0, dealer_forced_bid=True)
    assert not lb(2, calls=[4], seat=2)  # the auction is over (5.4)
    go = QUERIES["game_over"]
    base = {"bidder": 0, "bid": 2, "made": True, "scores_before": [3, 0], "scores_after": [5, 0]}
    assert go({"players": 2, "input": dict(base, rounds_played=7), "params": {"max_rounds": 7}}) == \
        {"winner": None, "over": True}
    assert go({"players": 2, "input": dict(base, rounds_played=7)}) == {"winner": None}
    passed = {"bidder": None, "bid": None, "made": None, "scores_before": [3, 0], "scores_after": [3, 0]}
    assert go({"players": 2, "input": dict(passed, rounds_played=200)}) == {"winner": None, "over": True}
    assert go({"players": 2, "input": passed}) == {"winner": None}


# ---------------------------------------------------------------- deal (section 2)
@pytest.mark.parametrize("players,joker", [(2, False), (3, False), (3, True), (2, True)])
def test_deal_canonical_pattern_2_3(players, joker):
    """2.1-2.4: dealer from the RNG, shuffled deck, two passes of 3 from dealer+1, rest is stock."""
    seed = 4242
    g = SmearGame(players, {"with_joker": joker}, None, random.Random(seed))
    rng = random.Random(seed)
    dealer = rng.randrange(players)
    d = list(R.DECK53 if joker else R.DECK52)
    rng.shuffle(d)
    want = [[] for _ in range(players)]
    for p in range(2):
        for k in range(players):
            i = 3 * (p * players + k)
            want[(dealer + 1 + k) % players] += d[i:i + 3]
    assert g.dealer == dealer
    assert [sorted(h) for h in g.hands] == [sorted(h) for h in want]
    assert sorted(g.stock) == sorted(d[6 * players:])
    assert len(g.stock) == (53 if joker else 52) - 6 * players
    assert g.to_act == (dealer + 1) % players  # 5.2


def test_first_dealer_param_2_1():
    for fd in range(3):
        assert new_game(3, seed=9, first_dealer=fd).dealer == fd
    dealers = {new_game(3, seed=s).dealer for s in range(40)}
    assert dealers == {0, 1, 2}  # drawn from the seeded RNG


def test_passed_out_same_dealer_redeals_2_6():
    """2.6 / 5.6: all pass -> same dealer, new shuffle, round counted, scores unchanged."""
    g = new_game(3, seed=3, first_dealer=1)
    g.pop_events()
    bid_out(g, [0, 0, 0])
    assert g.round == 2 and g.dealer == 1 and g.scores == [0, 0, 0]
    assert g.phase == "auction" and g.to_act == 2 and g.calls == []
    kinds = [msg(e).WhichOneof("kind") for e in g.pop_events()]
    assert kinds[:6] == ["call", "call", "call", "auction_end", "round_end", "round_start"]
    assert sum(all_cards(g).values()) == 52


def test_passed_out_counts_toward_round_limit_8():
    """8 / 11.27: a passed-out deal is a round; at max_rounds the match ends with no winner."""
    g = new_game(2, seed=5, max_rounds=2, first_dealer=0)
    bid_out(g, [0, 0])
    assert g.round == 2 and g.to_act is not None
    bid_out(g, [0, 0])
    assert g.to_act is None and g.winner is None
    res = g.result()
    assert res.ranks == [1, 1] and res.outcomes[0].ranks == [0, 0]
    assert res.summary["reason"] == "max_rounds"
    assert g.hidden_zones(0)["hand1"] == [] and all_cards(g) == deck_of(g)  # gathered unseen


def test_dealer_rotates_after_played_round_2_6():
    g = new_game(2, seed=11, first_dealer=0, max_rounds=5)
    bid_out(g, [2, 0])
    while g.round == 1:
        g.apply(g.to_act, g.fallback_action())
    assert g.dealer == 1 and g.to_act == 0


# ---------------------------------------------------------------- auction (section 5)
def test_bid_must_exceed_5_3_and_range_5_1():
    g = new_game(3, seed=1, first_dealer=0)
    bid_out(g, [3])
    before = snapshot(g)
    for act, rule in [(Action("BID", (), 3), "5.3"), (Action("BID", (), 2), "5.3"), (Action("BID", (), 5), "5.1"),
                      (Action("BID", (), 1), "5.1"), (Action("BID", (), 0), "5.1"), (Action("PLAY", ("2C",)), "5.1"),
                      (Action("PASS", (), 2), "5.1"), (Action("BID", ("2C",), 4), "5.1"),
                      (Action("BID", (), None), "5.1"), (Action("FOLD"), "5.1")]:
        with pytest.raises(IllegalAction) as ei:
            g.apply(2, act)
        assert ei.value.rule == rule, act
        assert snapshot(g) == before
    legal, complete = g.legal_actions()
    assert complete and [a.key() for a in legal] == [Action("PASS").key(), Action("BID", (), 4).key()]


def test_bid_of_4_ends_auction_5_4():
    g = new_game(3, seed=2, first_dealer=0)
    bid_out(g, [4])
    assert g.phase == "play" and g.bidder == 1 and g.bid == 4 and g.to_act == 1 and g.calls == [4]


def test_dealer_forced_bid_5_6():
    g = new_game(3, seed=2, variant={"dealer_forced_bid": True}, first_dealer=0)
    bid_out(g, [0, 0])
    with pytest.raises(IllegalAction) as ei:
        g.apply(0, Action("PASS"))
    assert ei.value.rule == "5.6"
    legal, _ = g.legal_actions()
    assert [a.amount for a in legal] == [2, 3, 4] and all(a.kind == "BID" for a in legal)
    assert g.fallback_action() == Action("BID", (), 2)  # section 13
    # a dealer who is not forced may pass
    g2 = new_game(3, seed=2, variant={"dealer_forced_bid": True}, first_dealer=0)
    bid_out(g2, [0, 2])
    assert g2.fallback_action() == Action("PASS")
    g2.apply(0, Action("PASS"))
    assert g2.bidder == 2


def test_out_of_turn_is_TURN():
    g = new_game(3, seed=1, first_dealer=0)
    before = snapshot(g)
    for seat in (0, 2):
        with pytest.raises(IllegalAction) as ei:
            g.apply(seat, Action("PASS"))
        assert ei.value.rule == "TURN"
    assert snapshot(g) == before
    bid_out(g, [2, 0, 0])
    with pytest.raises(IllegalAction) as ei:
        g.apply(2, Action("PLAY", (g.hands[2][0],)))
    assert ei.value.rule == "TURN"


# ---------------------------------------------------------------- play (section 6)
def _round_with(hands, players=3, dealer=0, variant=None, calls=None):
    g = new_game(players, seed=0, variant=variant, first_dealer=dealer)
    set_hands(g, hands)
    bid_out(g, calls if calls is not None else [2] + [0] * (players - 1))
    return g


def test_first_card_fixes_trump_6_1():
    g = _round_with([["AS", "2S", "3H", "4H", "5D", "6D"], ["KC", "QC", "JC", "TC", "9C", "8C"],
                     ["2C", "3C", "4C", "5C", "6C", "7C"]])
    assert g.bidder == 1 and g.to_act == 1 and g.trump is None
    g.pop_events()
    play(g, "TC")
    assert g.trump == "C"
    evs = [msg(e) for e in g.pop_events()]
    assert evs[0].WhichOneof("kind") == "play" and evs[1].trump.suit == "C" and evs[1].trump.seat == 1
    # trump led: seat 2 holds clubs and must play one (6.3.3, 11.17)
    assert {a.cards[0] for a in g.legal_actions()[0]} == {"2C", "3C", "4C", "5C", "6C", "7C"}


def test_follow_rules_6_3():
    hands = [["KD", "4D", "9H", "3C", "7S", "2S"], ["5D", "AD", "6S", "8S", "9S", "TS"],
             ["2H", "3H", "4H", "5H", "6H", "7H"]]
    g = _round_with(hands, calls=[2, 0, 0])  # dealer 0: seat 1 bids 2
    play(g, "TS")  # spades trump
    # seat 2 has no spade (trump): anything
    assert len(g.legal_actions()[0]) == 6
    play(g, "2H")
    # seat 0 holds spades: must play a trump
    assert {a.cards[0] for a in g.legal_actions()[0]} == {"7S", "2S"}
    before = snapshot(g)
    for card, rule in [("KD", "6.3"), ("AS", "6.3"), ("XX", "6.3"), ("", "6.3"), ("RJ", "6.3")]:
        with pytest.raises(IllegalAction) as ei:
            g.apply(0, Action("PLAY", (card,)))
        assert ei.value.rule == rule
        assert snapshot(g) == before
    for act, rule in [(Action("PLAY", ("7S", "2S")), "6.2"), (Action("PLAY", ()), "6.2"), (Action("PASS"), "6.2"),
                      (Action("BID", (), 2), "6.2"), (Action("PLAY", ("7S",), 1), "6.2")]:
        with pytest.raises(IllegalAction) as ei:
            g.apply(0, act)
        assert ei.value.rule == rule
    assert snapshot(g) == before
    play(g, "7S")
    t = g.tricks[-1]
    assert (t.leader, t.cards, t.winner) == (1, ("TS", "2H", "7S"), 1)  # TS beats 7S; 2H off-suit
    # seat 1 leads a diamond: seat 2 void -> anything; seat 0 holds diamonds: diamond or trump
    play(g, "5D")
    assert len(g.legal_actions()[0]) == 5
    play(g, "3H")
    assert {a.cards[0] for a in g.legal_actions()[0]} == {"KD", "4D", "2S"}
    with pytest.raises(IllegalAction) as ei:
        g.apply(0, Action("PLAY", ("9H",)))
    assert ei.value.rule == "6.3" and "follow suit D" in ei.value.message


def test_strict_follow_forbids_trumping_10():
    hands = [["KD", "4D", "9H", "3C", "7S", "2S"], ["5D", "AD", "6S", "8S", "9S", "TS"],
             ["2H", "3H", "4H", "5H", "6H", "7H"]]
    g = _round_with(hands, calls=[2, 0, 0], variant={"strict_follow": True})
    for c in ("TS", "2H", "7S", "5D", "3H"):
        play(g, c)
    assert {a.cards[0] for a in g.legal_actions()[0]} == {"KD", "4D"}


def test_joker_rules_10():
    """with_joker: not the first card; lowest trump; must follow a trump lead; may be led later."""
    hands = [["BJ", "KD", "9C", "3H", "4H", "5H"], ["AS", "2S", "3S", "4S", "5S", "6S"],
             ["AD", "2D", "3D", "4D", "5D", "6D"]]
    g = _round_with(hands, calls=[0, 0, 2], variant={"with_joker": True})  # dealer 0 bids
    assert g.bidder == 0
    assert "BJ" not in {a.cards[0] for a in g.legal_actions()[0]}
    with pytest.raises(IllegalAction) as ei:
        g.apply(0, Action("PLAY", ("BJ",)))
    assert ei.value.rule == "6.3"
    assert g.fallback_action() == Action("PLAY", ("3H",))  # joker never first; lowest is 3H
    play(g, "3H")
    play(g, "2S")
    play(g, "2D")
    assert g.tricks[0].winner == 0
    # seat 0 leads the joker: a trump lead; seats void of hearts play anything
    play(g, "BJ")
    play(g, "3S")
    play(g, "3D")
    assert g.tricks[1].winner == 0  # the joker is the only trump: it wins
    assert R.trick_winner(0, ["BJ", "2H", "AS"], "H", 3) == 1  # 2 of trump beats the joker


def test_trick_winner_6_4():
    assert R.trick_winner(0, ["9S", "AD", "KS"], "H", 3) == 2
    assert R.trick_winner(1, ["AC", "2D", "KC"], "D", 3) == 2
    assert R.trick_winner(2, ["QC", "5H", "7H"], "H", 3) == 1
    assert R.trick_winner(0, ["TD", "AH"], "C", 2) == 0


# ---------------------------------------------------------------- items and scoring (4, 7, 8)
def test_items_edge_cases_11():
    # 11.7: one natural trump -> High and Low to its player
    a = R.award_items(2, "H", [["7S"], ["TH", "5S"]], [[], ["TH"]], False)
    assert a["high"] == a["low"] == 1 and a["points"][1] == 3  # + Game
    # 11.8: jack of trump not in play -> nobody; 11.11: game tie -> nobody
    a = R.award_items(2, "H", [["TS"], ["TD"]], [["2H"], ["3H"]], False)
    assert a["jack"] is None and a["game"] is None and a["points"] == [1, 1]
    # 11.11: all zero -> nobody gets Game
    a = R.award_items(3, "H", [["2S"], ["3S"], []], [["2H"], ["3H"], []], False)
    assert a["game"] is None
    # joker never Low; low_to_taker gives Low to the seat that won it
    a = R.award_items(3, "C", [["3C", "BJ"], [], []], [["BJ"], ["3C"], []], False)
    assert a["low"] == 1 and a["high"] == 1 and a["low_card"] == "3C"
    a = R.award_items(3, "C", [["3C", "BJ"], [], []], [["BJ"], ["3C"], []], True)
    assert a["low"] == 0 and a["high"] == 1
    assert R.game_points(["TH", "AS", "KD", "QC", "JH", "9S", "BJ"]) == 10 + 4 + 3 + 2 + 1 + 0 + 1


def test_set_bidder_forfeits_7_3():
    assert R.score_round(0, 3, [2, 1, 1], [5, 5, 5]) == (False, [2, 6, 6])
    assert R.score_round(0, 2, [4, 0, 0], [-3, 0, 0]) == (True, [1, 0, 0])


def test_match_end_8():
    assert R.match_end(1, 3, True, [0, 8], [0, 11], 5, 200) == (1, True)
    assert R.match_end(0, 2, False, [9, 10], [7, 12], 5, 200) == (None, False)  # 11.21
    assert R.match_end(0, 4, True, [1, 0], [5, 0], 5, 200) == (0, True)  # 11.22
    assert R.match_end(0, 4, True, [0, 0], [4, 0], 5, 200) == (None, False)
    assert R.match_end(0, 2, True, [0, 0], [2, 0], 200, 200) == (None, True)  # 11.27
    assert R.match_end(0, 2, True, [10, 0], [12, 0], 200, 200) == (0, True)
    assert R.standings([12, 15, 3], 0) == [1, 2, 3]  # winner first although seat 1 has more
    assert R.standings([5, 5, 1], None) == [1, 1, 3]


def test_whole_round_scoring_and_bid4_win():
    """A scripted round: bidder seat 1 bids 4 with a score of 1, wins all four items, wins the match."""
    g = new_game(2, seed=0, first_dealer=0)
    g.scores = [0, 1]
    set_hands(g, [["2C", "3C", "4C", "5C", "6C", "7C"], ["AS", "JS", "2S", "TS", "AD", "KD"]])
    g.pop_events()
    bid_out(g, [4])  # dealer 0: seat 1 calls first and bids 4
    for _ in range(6):
        if g.to_act == 1:
            g.apply(1, Action("PLAY", (max(g.hands[1], key=lambda c: (c[1] == "S", R.RANK_VALUE[c[0]])),)))
        else:
            g.apply(0, g.fallback_action())
        if g.to_act == 0:
            g.apply(0, g.fallback_action())
    assert g.to_act is None and g.winner == 1 and g.scores == [0, 5]
    ends = [msg(e).round_end for e in g.pop_events() if msg(e).WhichOneof("kind") == "round_end"]
    it = ends[-1].items
    assert (it.high, it.low, it.jack, it.game) == (1, 1, 1, 1) and ends[-1].made and ends[-1].winner == 1
    assert g.result().ranks == [2, 1]


# ---------------------------------------------------------------- fallback (section 13)
def test_fallback_follow_lowest_legal_13():
    hands = [["KD", "4D", "9H", "3C", "7S", "2S"], ["5D", "AD", "6S", "8S", "9S", "TS"],
             ["2H", "3H", "4H", "5H", "6H", "7H"]]
    g = _round_with(hands, calls=[2, 0, 0])
    assert g.fallback_action() == Action("PLAY", ("5D",))  # lead: 5D < 6S (rank first)
    play(g, "TS")
    assert g.fallback_action() == Action("PLAY", ("2H",))  # void: lowest card
    play(g, "2H")
    assert g.fallback_action() == Action("PLAY", ("2S",))  # must play trump
    g2 = new_game(3, seed=1, first_dealer=0)
    assert g2.fallback_action() == Action("PASS")
    assert R.lowest_card(["2S", "2C", "2H"]) == "2C" and R.lowest_card(["2C", "BJ"]) == "BJ"


# ---------------------------------------------------------------- visibility (section 9)
def _hidden_cards(g: SmearGame, seat: int) -> set[str]:
    return {c for z in g.hidden_zones(seat).values() for c in z}


def test_observation_and_events_never_show_hidden_cards():
    """9: a seat's observation holds no hidden card; deals are private to their seat; public
    events carry only cards already played."""
    for seed in range(30):
        players = 2 + seed % 2
        g = new_game(players, seed=seed, variant={"with_joker": seed % 3 == 0}, max_rounds=4)
        rng = random.Random(seed)
        played: set[str] = set()
        while True:
            for e in g.pop_events():
                k = msg(e).WhichOneof("kind")
                if e.to is not None:
                    assert k == "deal" and msg(e).deal.seat == e.to
                    assert list(msg(e).deal.hand) == g.hands[e.to]  # popped right after the deal
                    continue
                assert k != "deal"
                if k == "round_start":
                    played = set()
                elif k == "play":
                    played.add(msg(e).play.card)
                elif k == "trick_end":
                    assert set(msg(e).trick_end.cards) <= played
            if g.to_act is None:
                break
            for s in range(players):
                obs = view.observation(g, s)
                hidden = _hidden_cards(g, s)
                visible = set(obs.hand) | {c for t in obs.tricks for c in t.cards} | {p.card for p in obs.trick}
                assert not (visible & hidden)
                assert sorted(obs.hand) == sorted(g.hands[s])
                assert list(obs.hand_sizes) == [len(h) for h in g.hands]
            legal, _ = g.legal_actions()
            g.apply(g.to_act, rng.choice(legal))


def test_with_hidden_zones_rejects_an_unknown_zone():
    with pytest.raises(ValueError):
        new_game(3, seed=1).with_hidden_zones({"hand9": []})


def test_decision_request_builds_for_both_kinds():
    g = new_game(3, seed=3, first_dealer=0)
    req = decision_request(g, "m", 1, 1000, 0)
    assert req.kind == pb.DECISION_KIND_BID and req.legal_actions_complete
    assert list(req.observation.smear.hand) == g.hands[1]
    bid_out(g, [2, 0, 0])
    req = decision_request(g, "m", 2, 1000, 0)
    assert req.kind == pb.DECISION_KIND_PLAY and len(req.legal_actions) == 6
    assert all(a.kind == pb.ACTION_KIND_PLAY for a in req.legal_actions)
    assert req.observation.smear.bidder == 1 and req.observation.smear.bid == 2


# ---------------------------------------------------------------- independent recomputation from events
_GPV = {"T": 10, "A": 4, "K": 3, "Q": 2, "J": 1, "B": 1}
_ORDER = "23456789TJQKA"


class Replay:
    """Recomputes scores, winner and standings from the public event log only (spec 4, 7, 8)."""

    def __init__(self, players: int, low_to_taker: bool, max_rounds: int):
        self.n, self.ltt, self.max_rounds = players, low_to_taker, max_rounds
        self.scores = [0] * players
        self.winner = None
        self.over = False
        self.rounds = 0

    def feed(self, ev) -> None:
        k = ev.WhichOneof("kind")
        if k == "round_start":
            self.rounds += 1
            assert ev.round_start.round == self.rounds
            self.bidder = None
            self.trump = None
            self.plays = []  # (seat, card)
            self.won = [[] for _ in range(self.n)]
        elif k == "auction_end":
            if ev.auction_end.passed_out:
                if self.rounds >= self.max_rounds:
                    self.over = True
            else:
                self.bidder, self.bid = ev.auction_end.bidder, ev.auction_end.bid
        elif k == "trump":
            self.trump = ev.trump.suit
        elif k == "play":
            self.plays.append((ev.play.seat, ev.play.card))
        elif k == "trick_end":
            t = ev.trick_end
            mine = self.plays[-self.n:]
            assert [c for _s, c in mine] == list(t.cards) and mine[0][0] == t.leader
            self.won[t.winner].extend(t.cards)
            if len(self.plays) == 6 * self.n:
                self._score()

    def _score(self) -> None:
        tr = self.trump
        nat = [(s, c) for s, c in self.plays if c != "BJ" and c[1] == tr]
        hs, hc = max(nat, key=lambda x: _ORDER.index(x[1][0]))
        ls, lc = min(nat, key=lambda x: _ORDER.index(x[1][0]))
        if self.ltt:
            ls = next(s for s in range(self.n) if lc in self.won[s])
        pts = [0] * self.n
        pts[hs] += 1
        pts[ls] += 1
        for s in range(self.n):
            if "J" + tr in self.won[s]:
                pts[s] += 1
        gp = [sum(_GPV.get(c[0], 0) for c in w) for w in self.won]
        if gp.count(max(gp)) == 1:
            pts[gp.index(max(gp))] += 1
        old = list(self.scores)
        b = self.bidder
        made = pts[b] >= self.bid
        for s in range(self.n):
            if s != b:
                self.scores[s] += pts[s]
        self.scores[b] += pts[b] if made else -self.bid
        if made and (self.scores[b] >= 11 or (self.bid == 4 and old[b] >= 1)):
            self.winner, self.over = b, True
        elif self.rounds >= self.max_rounds:
            self.over = True

    def ranks(self) -> list[int]:
        def key(s):
            return (0 if s == self.winner else 1, -self.scores[s])
        return [1 + sum(1 for o in range(self.n) if key(o) < key(s)) for s in range(self.n)]


def _random_match(seed: int, players: int, variant: dict, max_rounds: int | None, check_every: int):
    """One seeded random-legal match with all the per-step checks; returns the game."""
    params = {} if max_rounds is None else {"max_rounds": max_rounds}
    g = SmearGame(players, variant, params, random.Random(seed))
    mr = g.params["max_rounds"]
    rng = random.Random(seed * 7919 + 1)
    deck = deck_of(g)
    replay = Replay(players, variant.get("low_to_taker", False), mr)
    step = 0
    while g.to_act is not None:
        seat = g.to_act
        if check_every and step % check_every == 0:
            before = snapshot(g)
            other = (seat + 1 + rng.randrange(players - 1)) % players
            bad = [(other, rng.choice(g.legal_actions()[0])), (seat, Action("PLAY", ("ZZ",))),
                   (seat, Action("DISCARD", ())), (seat, Action("BID", (), 7))]
            if g.phase == "play":
                legal = {a.cards[0] for a in g.legal_actions()[0]}
                illegal = [c for c in g.hands[seat] if c not in legal]
                foreign = [c for c in deck if c not in g.hands[seat]]
                bad.append((seat, Action("PLAY", (rng.choice(foreign),))))
                if illegal:
                    bad.append((seat, Action("PLAY", (rng.choice(illegal),))))
            for s, a in bad:
                with pytest.raises(IllegalAction):
                    g.apply(s, a)
                assert snapshot(g) == before
        legal, complete = g.legal_actions()
        assert complete and legal
        g.apply(seat, rng.choice(legal))
        step += 1
        if step % 50 == 0:
            for e in g.pop_events():
                replay.feed(msg(e))
    for e in g.pop_events():
        replay.feed(msg(e))
    res = g.result()
    assert replay.over and replay.rounds == g.round
    assert res.scores == [float(s) for s in replay.scores]
    assert res.summary["winner"] == replay.winner
    assert res.ranks == replay.ranks()
    assert res.outcomes[0].teams == [[s] for s in range(players)]
    assert res.outcomes[0].ranks == [r - 1 for r in res.ranks]
    return g


def test_scores_equal_an_independent_recomputation_from_the_events():
    """Short seeded random matches over every variant combination, plus full
    default-length ones: scores, winner and standings equal the spec's
    scoring (sections 4, 7, 8) replayed from the public events, and rejected
    actions leave the state unchanged."""
    n_short = 400
    for i in range(n_short):
        players = 2 + i % 2
        variant = {f: bool((i >> (k + 1)) & 1) for k, f in enumerate(FLAGS)}
        _random_match(i, players, variant, max_rounds=1 + i % 4, check_every=3 if i % 4 == 0 else 0)
    wins = 0
    for i in range(16):  # full default-length matches (max_rounds 200)
        g = _random_match(50_000 + i, 2 + i % 2, {f: bool((i >> k) & 1) for k, f in enumerate(FLAGS)},
                          max_rounds=None, check_every=25)
        wins += g.winner is not None
        assert g.round <= 200
    assert wins > 0


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3]),
       flags=st.fixed_dictionaries({f: st.booleans() for f in FLAGS}))
def test_property_round_invariants(seed, players, flags):
    """Every played-out round awards 2-4 points; scores change only as section 7 allows."""
    g = SmearGame(players, flags, {"max_rounds": 3}, random.Random(seed))
    rng = random.Random(seed)
    while g.to_act is not None:
        g.apply(g.to_act, rng.choice(g.legal_actions()[0]))
    for e in g.pop_events():
        if msg(e).WhichOneof("kind") == "round_end" and not msg(e).round_end.passed_out:
            re = msg(e).round_end
            assert 2 <= sum(re.items.points) <= 4
            assert re.items.high >= 0 and re.items.low >= 0
            b = re.bidder
            for s in range(players):
                if s != b:
                    assert re.deltas[s] == re.items.points[s]
            assert re.deltas[b] == (re.items.points[b] if re.made else -re.bid)
            assert re.made == (re.items.points[b] >= re.bid)


_CARD = st.sampled_from(list(R.DECK53))


@settings(max_examples=200, deadline=None)
@given(hand=st.lists(_CARD, min_size=1, max_size=6, unique=True), led=st.one_of(st.none(), _CARD),
       trump=st.sampled_from(list("CDHS")), strict=st.booleans())
def test_property_legal_plays(hand, led, trump, strict):
    """6.3: the legal set is a non-empty subset of the hand; trump-lead and follow duties hold."""
    if led in hand:
        hand = [c for c in hand if c != led] or ["2C" if led != "2C" else "3C"]
    legal = R.legal_plays(hand, led, trump, strict)
    assert legal and set(legal) <= set(hand)
    for c in hand:
        assert R.is_legal_play(hand, led, trump, c, strict) == (c in legal)
        assert (R.play_error(hand, led, trump, c, strict) is None) == (c in legal)
    if led is not None:
        s = R.effective_suit(led, trump)
        trumps = [c for c in hand if R.is_trump(c, trump)]
        if s == trump and trumps:
            assert set(legal) == set(trumps)
        follow = [c for c in hand if c != "BJ" and c[1] == s]
        if s != trump and follow:
            assert set(follow) <= set(legal)
            assert set(legal) <= set(follow) | set(trumps)
            if strict:
                assert set(legal) == set(follow)
    assert R.lowest_card(legal) in legal


@settings(max_examples=200, deadline=None)
@given(cards=st.lists(_CARD, min_size=2, max_size=3, unique=True), trump=st.sampled_from(list("CDHS")),
       leader=st.integers(0, 2))
def test_property_trick_winner(cards, trump, leader):
    """6.4: the winner holds the highest trump, else the highest card of the suit led."""
    n = len(cards)
    leader %= n
    w = R.trick_winner(leader, cards, trump, n)
    wc = cards[(w - leader) % n]
    trumps = [c for c in cards if R.is_trump(c, trump)]
    if trumps:
        assert wc == max(trumps, key=R.trump_rank)
    else:
        assert wc == max((c for c in cards if c[1] == cards[0][1]), key=lambda c: R.RANK_VALUE[c[0]])
    # the winning card does not depend on the order of the followers
    rest = cards[1:][::-1]
    w2 = R.trick_winner(leader, [cards[0]] + rest, trump, n)
    assert ([cards[0]] + rest)[(w2 - leader) % n] == wc


# ---------------------------------------------------------------- the heuristic sample bot
def test_heuristic_beats_random():
    from sample_bots.heuristics.smear import choose

    n_matches = 200
    wins = firsts = 0
    fair = 0.0
    illegal = 0
    for m in range(n_matches):
        players = 2 + m % 2
        hseat = (m // 2) % players  # rotate the heuristic's seat
        pols = [random_policy(10_000 * m + s) for s in range(players)]
        pols[hseat] = choose
        g, res, ill = play_local("smear", players, pols, seed=m)
        illegal += ill
        wins += res.summary["winner"] == hseat
        firsts += res.ranks[hseat] == 1
        fair += 1.0 / players
    rate, fair_rate = wins / n_matches, fair / n_matches
    print(f"\nsmear heuristic vs random: won {wins}/{n_matches} = {rate:.1%} of matches "
          f"(fair share {fair_rate:.1%}); ranked first in {firsts / n_matches:.1%}; illegal answers {illegal}")
    assert illegal == 0
    assert rate >= fair_rate + 0.35


def test_heuristic_answers_are_legal_pb():
    from sample_bots.heuristics.smear import choose

    g = new_game(3, seed=12, variant={"with_joker": True, "dealer_forced_bid": True}, max_rounds=3)
    while g.to_act is not None:
        req = decision_request(g, "m", 1, 1000, 0)
        a = choose(req)
        assert any(a == la for la in req.legal_actions)
        from referee.protocol import action_from_pb
        g.apply(g.to_act, action_from_pb(a))
    assert action_to_pb(Action("PASS")).kind == pb.ACTION_KIND_PASS
