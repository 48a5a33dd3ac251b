"""Tests of the Tractor engine (shared/rules/tractor.md).

Unit tests name the spec rule they check; hypothesis properties compare the
engine's enumerators with brute force written from the spec text; a seeded
random-playout test plays 2,000+ matches checking the no-change guarantee of
IllegalAction and the final scores against a recomputation from the event
log; the observation's section 12 contents are checked; the heuristic bot is
measured against random play. What every engine must do (conservation,
determinism, hidden-zone shuffles...) is tests/test_engine_contract.py's.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from itertools import combinations, product

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardgames.v1 import referee_pb2 as pb
from referee.engine import BID, DECLARE, DISCARD, PASS, PLAY, Action, IllegalAction, seeded_rng
from referee.games import conformance_module, game_class
from referee.games.tractor import rules as R
from referee.games.tractor import view
from referee.games.tractor.game import TractorGame
from referee.local import play_local, random_policy
from referee.protocol import decision_request

from conftest import VECTORS  # ../shared/rules/vectors beside the checkout, or $REFEREE_VECTORS
RANK_V = {r: i + 2 for i, r in enumerate("23456789TJQKA")}


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def new_game(seed: int = 0, variant=None, params=None) -> TractorGame:
    return TractorGame(4, variant, params, seeded_rng(seed))


def play_state(hands, trump_suit="H", rank="2", leader=0, declarer_team=0, starter=0, variant=None,
               kitty=("3C", "4C", "6C", "7C", "8C", "9C", "JC", "QC"), levels=(2, 2)) -> TractorGame:
    """A game forced into the play phase with the given hands (test fixture)."""
    g = new_game(0, variant)
    g.pop_events()
    g.levels = list(levels)
    g.declarer_team, g.starter = declarer_team, starter
    g._rank = rank
    g.trump_suit, g.trump_fixed = trump_suit, True
    g.ctx = R.ctx_for(trump_suit, rank, g.notrump_rank_cards_trump)
    g.phase = "play"
    g.dealt, g.window = 100, True
    for seat, h in enumerate(hands):
        g.set_hand(seat, h)
    g.kitty_buried, g.buried = list(kitty), True
    g.kitty_taken = list(kitty)
    g.played = []
    g._new_trick(leader)
    g._legal = None
    return g


def msg(e):
    """The TractorEvent of an engine event (built by the view)."""
    return view.event_message(e.record)


def kinds(events):
    return [msg(e).WhichOneof("kind") for e in events]


def fingerprint(g: TractorGame):
    return (g.phase, g.to_act, g.dealt, tuple(tuple(sorted(h.items())) for h in g.hands), 
            tuple((d.seat, d.cards) for d in g.declarations), g.window, g.window_seat, g.window_passes,
            tuple(g.trick_plays), g.trick_leader, g.defender_points, g.penalty_points, tuple(g.levels),
            g.round, g.deal_number, len(g._events), g.rng.getstate(), tuple(g.kitty_buried), len(g.tricks),
            g.trump_suit, g.declarer_team, g.starter, tuple(g.played))


def rule_of(g, seat, action):
    with pytest.raises(IllegalAction) as ei:
        g.apply(seat, action)
    return ei.value.rule


# ---------------------------------------------------------------------------
# conformance vectors (section 15)
# ---------------------------------------------------------------------------

def test_conformance_vectors_all_pass():
    from referee.conformance import run

    assert VECTORS.is_dir(), f"shared vectors not found at {VECTORS} (set REFEREE_VECTORS)"
    rep = run([VECTORS], {"tractor"})
    bad = [(o.id, o.expected, o.actual, o.reason) for o in rep.outcomes if o.status != "passed"]
    assert not bad and rep.count("passed") >= 100


def test_every_query_kind_answered():
    mod = conformance_module("tractor")
    assert set(mod.QUERIES) == {"card_order", "card_compare", "classify_lead", "legal_follow", "trick_winner",
                                "throw_check", "kitty_bonus", "level_change", "declare", "kitty_flip", "fallback"}


def test_registry_and_class_attributes():
    cls = game_class("tractor")
    assert cls is TractorGame and cls.name == "tractor" and cls.player_counts == (4,)
    assert cls.ruleset == "tractor/1"
    assert set(cls.variant_defaults) == {"notrump_rank_cards_trump", "must_follow_tractor", "kitty_multiplier_power",
                                         "must_play_ace", "no_throw_penalty"}
    assert not any(cls.variant_defaults.values())
    assert cls.param_defaults == {"max_rounds": 100, "max_round1_deals": 10}
    with pytest.raises(ValueError):
        TractorGame(3, None, None, seeded_rng(0))
    with pytest.raises(ValueError):
        TractorGame(4, {"nope": True}, None, seeded_rng(0))
    with pytest.raises(ValueError):
        TractorGame(4, None, {"max_rounds": 0}, seeded_rng(0))


# ---------------------------------------------------------------------------
# card order, combinations (sections 4, 6)
# ---------------------------------------------------------------------------

def test_4_2_steps_consecutive_across_trump_rank_gap():
    ctx = R.ctx_for("C", "7")
    assert ctx.step_of["8S"] == ctx.step_of["6S"] + 1
    assert ctx.suit_of["7S"] == R.TRUMP and ctx.suit_of["3C"] == R.TRUMP
    # 7S = 7H = 7D on the off-suit rank step, directly below 7C, directly above AC
    assert ctx.step_of["7S"] == ctx.step_of["7D"] == ctx.step_of["AC"] + 1 == ctx.step_of["7C"] - 1
    assert ctx.steps["C"] == []


def test_4_1_no_trump_rank_cards_are_natural_unless_variant():
    assert R.ctx_for(None, "5").suit_of["5S"] == "S"
    nrt = R.ctx_for(None, "5", True)
    assert nrt.suit_of["5S"] == R.TRUMP and nrt.step_of["5S"] == nrt.step_of["5C"] == nrt.step_of["BJ"] - 1
    assert "5D" not in [c for step in nrt.steps["D"] for c in step]


def test_6_2_decomposition_spades_first_and_passes():
    ctx = R.ctx_for("H", "2")
    comps = R.decompose(R.counts_of("AH AH 2S 2S 2D 2D 2H 2H".split()), ctx)
    tr = [c for c in comps if c.kind == "tractor"]
    pr = [c for c in comps if c.kind == "pair"]
    assert len(tr) == 1 and tr[0].length == 3 and "2S" in tr[0].cards and "2D" not in tr[0].cards
    assert len(pr) == 1 and pr[0].cards == ("2D", "2D")
    # 2S 2S 2D 2D: same step, two pairs, a throw (not a tractor)
    lead = R.analyze_lead("2S 2S 2D 2D".split(), ctx)
    assert lead.type == "throw" and lead.pairs == 2 and lead.tractors == []


def test_6_1_tractor_examples_of_the_spec():
    h2 = R.ctx_for("H", "2")
    for cards, L in (("AH AH 2S 2S", 2), ("2C 2C 2H 2H", 2), ("2H 2H BJ BJ", 2), ("BJ BJ RJ RJ", 2),
                     ("AH AH 2S 2S 2H 2H BJ BJ RJ RJ", 5)):
        lead = R.analyze_lead(cards.split(), h2)
        assert lead.type == "tractor" and lead.tractors == [L], cards
    c7 = R.ctx_for("C", "7")
    for cards in ("6S 6S 8S 8S", "6C 6C 8C 8C", "7S 7S 7C 7C", "AC AC 7D 7D"):
        assert R.analyze_lead(cards.split(), c7).type == "tractor", cards
    assert R.analyze_lead("2S 2S 3S 3S".split(), R.ctx_for(None, "2")).type == "tractor"


# ---------------------------------------------------------------------------
# declarations (section 2)
# ---------------------------------------------------------------------------

def _to_window(g: TractorGame):
    while not g.window:
        g.apply(g.to_act, Action(PASS))


def test_2_4_every_receiver_prompted_then_window_of_four_passes():
    g = new_game(3)
    prompts = []
    while g.phase == "declare" and g.round == 1 and g.deal_number == 1:
        assert g.decision_kind() == DECLARE
        prompts.append((g.to_act, g.dealt, g.window))
        g.apply(g.to_act, Action(PASS))
    deal_prompts = [p for p in prompts if not p[2]]
    assert [p[0] for p in deal_prompts] == [k % 4 for k in range(100)]
    window = [p for p in prompts if p[2]]
    assert [p[0] for p in window] == [0, 1, 2, 3]  # seat f=0 first; closes after four passes


def test_2_4_declaration_in_window_resets_pass_count():
    g = new_game(11)
    _to_window(g)
    # find a seat in the window holding a rank-2 card; pass until it is asked
    asked = 0
    while True:
        seat = g.to_act
        decls = [a for a in g.legal_actions()[0] if a.kind == DECLARE]
        if decls:
            g.apply(seat, decls[0])
            break
        g.apply(seat, Action(PASS))
        asked += 1
        assert asked < 4, "some seat should hold a 2 in this seed"
    # now four more passes are needed to close
    for _ in range(3):
        g.apply(g.to_act, Action(PASS))
        assert g.phase == "declare"
    g.apply(g.to_act, Action(PASS))
    assert g.phase == "bury"


def test_2_3_single_never_overrides_single_and_reinforcement():
    r = "2"
    hand = R.counts_of(["2S", "2S", "2D", "BJ", "BJ"])
    assert R.declaration_error((1, ("2H",)), 0, ["2D"], hand, r)[0] == "2.3"
    assert R.declaration_error((1, ("2H",)), 0, ["2S", "2S"], hand, r) is None
    assert R.declaration_error((0, ("2S",)), 0, ["2S", "2S"], hand, r) is None  # reinforcement
    assert R.declaration_error((0, ("2S",)), 0, ["BJ", "BJ"], hand, r)[0] == "2.3"  # not own switch
    assert R.declaration_error((2, ("2H", "2H")), 0, ["BJ", "BJ"], hand, r) is None  # partner overridden
    assert R.declaration_error((1, ("RJ", "RJ")), 0, ["BJ", "BJ"], hand, r)[0] == "2.3"
    assert R.declaration_error(None, 0, ["2S", "2D"], hand, r)[0] == "2.2"


def test_2_3_engine_rejects_illegal_declaration_and_state_unchanged():
    g = new_game(5)
    while True:
        decls = [a for a in g.legal_actions()[0] if a.kind == DECLARE and len(a.cards) == 1]
        if decls:
            break
        g.apply(g.to_act, Action(PASS))
    seat = g.to_act
    g.apply(seat, decls[0])
    # find another seat with a single of rank 2: a single may not override
    for _ in range(200):
        s = g.to_act
        singles = [c for c in g.hands[s] if c[0] == "2" and len(c) == 2 and g.hands[s][c] == 1]
        if s != seat and singles:
            fp = fingerprint(g)
            assert rule_of(g, s, Action(DECLARE, (singles[0],))) == "2.3"
            assert fingerprint(g) == fp
            return
        g.apply(s, Action(PASS))
    pytest.fail("no second single found")


def test_2_5_round1_declarer_becomes_starter():
    g = new_game(7)
    decl_seat = None
    while g.phase == "declare":
        decls = [a for a in g.legal_actions()[0] if a.kind == DECLARE]
        if decls and decl_seat is None and g.to_act == 3:
            decl_seat = 3
            g.apply(3, decls[0])
        else:
            g.apply(g.to_act, Action(PASS))
    assert decl_seat == 3 and g.starter == 3 and g.declarer_team == 1 and g.to_act == 3
    assert g.decision_kind() == DISCARD and g.hand_size(3) == 33


def test_2_6_round1_redeal_then_safeguard_kitty_flip():
    g = new_game(2, params={"max_round1_deals": 3})
    ev = []
    while g.phase == "declare":
        g.apply(g.to_act, Action(PASS))
        ev += g.pop_events()
    closes = [msg(e).declaration_closed.outcome for e in ev if msg(e).WhichOneof("kind") == "declaration_closed"]
    assert closes == ["redeal", "redeal", "kitty_flip"]
    assert g.round == 1 and g.deal_number == 3
    assert g.starter == 0 and g.declarer_team == 0 and g.trump_rank == "2"
    flip = [msg(e).kitty_flip for e in ev if msg(e).WhichOneof("kind") == "kitty_flip"][0]
    suit, n = R.kitty_flip(g.kitty_taken, "2")
    assert list(flip.flipped) == g.kitty_taken[:n] and flip.trump_suit == suit == g.trump_suit
    assert all(e.to is None for e in ev if msg(e).WhichOneof("kind") == "kitty_flip")


def test_2_6_later_round_kitty_flip_when_nobody_declares():
    g = new_game(9, params={"max_rounds": 3})
    while g.round == 1:
        g.apply(g.to_act, g.fallback_action() if g.phase != "declare" else
                next((a for a in g.legal_actions()[0] if a.kind == DECLARE), Action(PASS)))
    g.pop_events()
    assert g.first_drawer == g.starter
    while g.phase == "declare":
        g.apply(g.to_act, Action(PASS))
    assert g.flipped and g.trump_fixed
    assert R.kitty_flip(g.kitty_taken, g.trump_rank) == (g.trump_suit, len(g.flipped))


# ---------------------------------------------------------------------------
# kitty exchange (section 3)
# ---------------------------------------------------------------------------

def test_3_bury_rules_and_privacy():
    g = new_game(4)
    while g.phase == "declare":
        g.apply(g.to_act, next((a for a in g.legal_actions()[0] if a.kind == DECLARE), Action(PASS)))
    st = g.to_act
    ev = g.pop_events()
    taken = [e for e in ev if msg(e).WhichOneof("kind") == "kitty_taken"]
    assert [(e.to, len(msg(e).kitty_taken.cards)) for e in taken] == [(None, 0), (st, 8)]
    assert rule_of(g, st, Action(DISCARD, tuple(g.kitty_taken[:7]))) == "3"
    assert rule_of(g, st, Action(PLAY, tuple(g.kitty_taken))) == "3"
    missing = next(c for c in R.ALL_CODES if c not in g.hands[st])
    assert rule_of(g, st, Action(DISCARD, tuple(g.kitty_taken[:7]) + (missing,))) == "3"
    assert g.fallback_action() == Action(DISCARD, tuple(g.kitty_taken))
    acts, complete = g.legal_actions()
    assert not complete and acts[0].cards == tuple(g.kitty_taken)
    # any 8 cards may be buried, trumps and points included (14.14)
    hand = R.expand(g.hands[st])
    trumps = sorted(hand, key=lambda c: (not g.ctx.is_trump(c), -R.POINTS[c]))[:8]
    g.apply(st, Action(DISCARD, tuple(trumps)))
    ev = g.pop_events()
    bur = [e for e in ev if msg(e).WhichOneof("kind") == "kitty_buried"]
    assert [(e.to, len(msg(e).kitty_buried.cards)) for e in bur] == [(None, 0), (st, 8)]
    assert g.hand_size(st) == 25 and g.phase == "play" and g.to_act == st


# ---------------------------------------------------------------------------
# leading, following, winning (sections 6-8)
# ---------------------------------------------------------------------------

def test_6_3_lead_of_two_play_suits_rejected():
    g = play_state([["AS", "AH", "3D"], ["4S", "5S", "6S"], ["7S", "8S", "9S"], ["TS", "JS", "QS"]], "D")
    fp = fingerprint(g)
    assert rule_of(g, 0, Action(PLAY, ("AS", "AH"))) == "6.3"
    assert rule_of(g, 0, Action(PLAY, ())) == "6.3"
    assert rule_of(g, 0, Action(PLAY, ("KS",))) == "6.3"
    assert fingerprint(g) == fp


def test_7_follow_rules_in_engine():
    g = play_state([["9S", "9S", "4C"], ["3S", "3S", "KS"], ["KS", "4D", "5C"], ["4D", "5C", "6C"]])
    g.apply(0, Action(PLAY, ("9S", "9S")))
    assert rule_of(g, 1, Action(PLAY, ("3S", "KS"))) == "7.3"  # holding a pair: play it
    assert rule_of(g, 1, Action(PLAY, ("3S",))) == "7.1"
    acts, complete = g.legal_actions()
    assert complete and [a.cards for a in acts] == [("3S", "3S")]
    g.apply(1, Action(PLAY, ("3S", "3S")))
    assert rule_of(g, 2, Action(PLAY, ("4D", "5C"))) == "7.2"  # the only spade must be played
    g.apply(2, Action(PLAY, ("KS", "5C")))
    assert rule_of(g, 0, Action(PLAY, ("4D", "5C"))) == "TURN"
    g.apply(3, Action(PLAY, ("4D", "5C")))
    assert g.tricks[-1].winner == 0  # leader's pair stands: KS+5C is not a pair


def test_7_must_follow_tractor_variant():
    lead = R.analyze_lead("8S 8S 9S 9S".split(), R.ctx_for("H", "2"))
    hand = R.counts_of("QS QS KS KS 4S 4S 7C".split())
    ctx = R.ctx_for("H", "2")
    assert R.follow_error(lead, hand, "QS QS 4S 4S".split(), ctx, False) is None
    assert R.follow_error(lead, hand, "QS QS 4S 4S".split(), ctx, True)[0] == "13"
    plays, complete = R.legal_follows(lead, hand, ctx, True)
    assert complete and [sorted(p) for p in plays] == [sorted("QS QS KS KS".split())]
    assert sorted(R.fallback_follow(lead, hand, ctx, True)) == sorted("QS QS KS KS".split())
    # in the engine: rule "13"
    g = play_state([["8S", "8S", "9S", "9S"], ["QS", "QS", "KS", "KS"], ["3D", "4D", "5D", "6D"],
                    ["3C", "4C", "5C", "6C"]], variant={"must_follow_tractor": True})
    g.set_hand(1, R.expand(hand))
    g.apply(0, Action(PLAY, ("8S", "8S", "9S", "9S")))
    assert rule_of(g, 1, Action(PLAY, ("QS", "QS", "4S", "4S"))) == "13"
    assert [sorted(a.cards) for a in g.legal_actions()[0]] == [sorted("QS QS KS KS".split())]


def test_8_pair_not_beaten_by_unequal_trumps_and_ties_go_to_earlier():
    ctx = R.ctx_for("H", "2")
    lead = R.analyze_lead(["KS", "KS"], ctx)
    assert R.trick_winner(lead, [["3H", "5H"], ["AS", "4S"], ["6D", "6D"]], ctx) == 0
    lead = R.analyze_lead(["2S"], ctx)
    assert R.trick_winner(lead, [["2D"], ["3H"], ["4H"]], ctx) == 0
    lead = R.analyze_lead(["4S"], ctx)
    assert R.trick_winner(lead, [["2D"], ["2C"], ["2H"]], ctx) == 3


def test_8_throw_trumped_by_matching_shape_highest_key_wins():
    ctx = R.ctx_for("H", "2")
    lead = R.analyze_lead("AS AS KS".split(), ctx)
    assert R.trick_winner(lead, [["3H", "3H", "AH"], ["9H", "9H", "4H"], ["QS", "JS", "5S"]], ctx) == 2
    # all-trump without a pair does not match
    assert R.trick_winner(lead, [["3H", "4H", "5H"], ["2D", "7S", "8S"], ["6D", "7D", "8D"]], ctx) == 0
    # a tractor may serve as two pairs against a two-pair throw
    lead2 = R.analyze_lead("AS AS QS QS".split(), ctx)
    assert lead2.type == "throw"
    assert R.trick_winner(lead2, [["3H", "3H", "4H", "4H"], ["5S", "6S", "7S", "8S"], ["9D"] * 4], ctx) == 1


# ---------------------------------------------------------------------------
# throws (section 9)
# ---------------------------------------------------------------------------

def test_9_failed_throw_in_engine_penalty_forced_component_and_disclosure():
    # leader seat 0 is a declarer; seat 1 (a defender) gets the other AS, which beats the KS single
    hands = [["AS", "AS", "KS", "3D"], ["4D", "5D", "6D", "7D"], ["8D", "9D", "TD", "JD"], ["QS", "5C", "3C", "4C"]]
    g = play_state(hands)
    g.set_hand(1, ["AS", "5D", "6D", "7D"])  # the other AS, with a defender
    g.apply(0, Action(PLAY, ("AS", "AS", "KS")))
    ev = g.pop_events()
    k = kinds(ev)
    assert k[:2] == ["throw_failure", "play"] and all(e.to is None for e in ev)
    tf = msg(ev[0]).throw_failure
    assert sorted(tf.attempted) == ["AS", "AS", "KS"] and list(tf.forced) == ["KS"]
    assert tf.penalty == 20 and tf.defender_points_delta == 20 and g.defender_points == 20
    assert list(msg(ev[1]).play.play.cards) == ["KS"] and msg(ev[1]).play.lead_type == "single"
    assert g.hands[0] == {"AS": 2, "3D": 1} and g.hand_size(0) == 3
    assert tf.seat == 0  # the thrower; nothing names the blocking seat or cards
    # a defender's failed throw subtracts (and no_throw_penalty makes it 0)
    for variant, want in ((None, -20), ({"no_throw_penalty": True}, 0)):
        g = play_state(hands, leader=1, declarer_team=0, variant=variant)
        g.set_hand(1, ["KD", "KD", "QD", "7S"])
        g.set_hand(2, ["AD", "9D", "TD", "JD"])
        g.apply(1, Action(PLAY, ("KD", "KD", "QD")))
        assert g.defender_points == want and g.trick_plays[0].cards == ("QD",)


def test_9_throw_that_stands_and_trump_throw_always_wins():
    g = play_state([["AS", "AS", "KS", "3D"], ["4S", "5D", "6D", "7D"], ["8D", "9D", "TD", "JD"],
                    ["QS", "5C", "3C", "4C"]])
    g.apply(0, Action(PLAY, ("AS", "AS", "KS")))
    assert kinds(g.pop_events()) == ["play"] and g.defender_points == 0
    assert g.trick_lead.type == "throw"
    assert g.legal_actions()[1] is True


# ---------------------------------------------------------------------------
# end of round and match (sections 10, 11)
# ---------------------------------------------------------------------------

def test_10_2_kitty_bonus_applied_when_defender_wins_last_trick():
    kitty = ("KD", "5D", "3C", "4C", "6C", "7C", "8C", "9C")  # 15 points
    g = play_state([["3S", "4S"], ["AS", "AS"], ["5S", "6S"], ["7S", "8S"]], kitty=kitty, leader=0)
    g.apply(0, Action(PLAY, ("3S", "4S")))  # a throw of two singles; AS beats it: fails -> 3S forced
    assert g.trick_plays[0].cards == ("3S",) and g.defender_points == 10
    for s, c in ((1, "AS"), (2, "5S"), (3, "7S")):
        g.apply(s, Action(PLAY, (c,)))
    assert g.tricks[-1].winner == 1 and g.defender_points == 15
    g.set_hand(0, ["4S"])  # (the taken-back card is still there)
    g.apply(1, Action(PLAY, ("AS",)))
    for s, c in ((2, "6S"), (3, "8S"), (0, "4S")):
        g.apply(s, Action(PLAY, (c,)))
    ev = g.pop_events()
    rr = [msg(e).round_end for e in ev if msg(e).WhichOneof("kind") == "round_end"][0]
    assert rr.kitty_points == 15 and rr.kitty_multiplier == 2 and rr.kitty_bonus == 30
    assert rr.defender_points == 10 + 5 + 30 and sorted(rr.kitty) == sorted(kitty)
    assert rr.team_up == 0 and rr.levels_up == 1  # 45 points: declarers +1
    assert rr.next_declarer_team == 0 and rr.next_starter == 2


def test_10_3_level_change_table_and_11_ace():
    for p, want in ((-10, (0, 3)), (0, (0, 3)), (5, (0, 2)), (39, (0, 2)), (40, (0, 1)), (79, (0, 1)),
                    (80, (None, 0)), (119, (None, 0)), (120, (1, 1)), (159, (1, 1)), (160, (1, 2)),
                    (240, (1, 4)), (280, (1, 5)), (319, (1, 5))):
        ch = R.level_change(p, 0, 0, [2, 2])
        assert (ch.team_up, ch.levels_up) == want, p
    assert R.level_change(0, 1, 1, [3, 13]).winner == 1
    assert R.level_change(250, 1, 3, [12, 5]).winner == 0
    mpa = R.level_change(0, 1, 1, [3, 13], must_play_ace=True)
    assert mpa.winner is None and mpa.new_levels == (3, 14)
    assert R.level_change(0, 1, 1, [3, 14], must_play_ace=True).winner == 1
    assert R.level_change(130, 1, 1, [14, 5], must_play_ace=True).winner is None


def test_11_2_round_cap_result_and_ranks():
    g = new_game(21, params={"max_rounds": 1})
    while g.to_act is not None:
        g.apply(g.to_act, g.fallback_action() if g.phase != "declare" else
                next((a for a in g.legal_actions()[0] if a.kind == DECLARE), Action(PASS)))
    res = g.result()
    assert g.round == 1
    lv = g.levels
    if lv[0] == lv[1]:
        assert res.outcomes[0].ranks == [0, 0] and res.ranks == [1, 1, 1, 1] and g.draw
    else:
        w = 0 if lv[0] > lv[1] else 1
        assert res.summary["winner_team"] == w and res.outcomes[0].ranks == [0 if w == 0 else 1, 0 if w == 1 else 1]
        assert res.scores[w] > res.scores[1 - w] and res.ranks[w] == 1
    assert res.outcomes[0].teams == [[0, 2], [1, 3]]


# ---------------------------------------------------------------------------
# protocol-level checks: turn, malformed codes, fallback (section 16)
# ---------------------------------------------------------------------------

def test_turn_malformed_amount_and_wrong_kind():
    g = new_game(1)
    fp = fingerprint(g)
    assert rule_of(g, 1, Action(PASS)) == "TURN"
    assert rule_of(g, 0, Action(DECLARE, ("ZZ",))) == "1.2"
    assert rule_of(g, 0, Action(DECLARE, ("2s",))) == "1.2"
    assert rule_of(g, 0, Action(PASS, (), 3)) == "ACTION"
    assert rule_of(g, 0, Action(BID, (), 1)) == "2.4"
    assert rule_of(g, 0, Action(PASS, ("2S",))) == "2.4"
    assert fingerprint(g) == fp
    with pytest.raises(IllegalAction):
        g.validate(1, Action(PASS))


def test_16_fallbacks_are_spec_actions_and_legal():
    g = new_game(8)
    assert g.fallback_action() == Action(PASS)
    ctx = R.ctx_for("S", "5")
    lead = R.analyze_lead("KH KH QH QH AH".split(), ctx)
    hand = R.counts_of("9H 9H 3H JH 4D 4C 2S 6C 5D AD".split())
    assert sorted(R.fallback_follow(lead, hand, ctx)) == sorted("9H 9H 3H JH 4C".split())
    assert R.fallback_lead(R.counts_of("AS 5S 3D 3C 2C 3H BJ KC".split()), R.ctx_for("H", "2")) == ("3C",)
    # the engine's fallbacks are legal at every step of a match
    r = random.Random(1)
    while g.to_act is not None:
        fb = g.fallback_action()
        g.validate(g.to_act, fb)
        if g.phase == "play" and g.trick_plays:
            assert fb.cards == R.fallback_follow(g.trick_lead, g.hands[g.to_act], g.ctx, g.must_follow_tractor)
        g.apply(g.to_act, fb if r.random() < 0.5 else r.choice(g.legal_actions()[0]))


# ---------------------------------------------------------------------------
# hypothesis properties (enumerators vs brute force from the spec text)
# ---------------------------------------------------------------------------

def spec_follow_ok(lead_cards, hand, play, ctx) -> bool:
    """Section 7 written again from the text: need = codes twice in the lead."""
    n = len(lead_cards)
    if len(play) != n or Counter(play) - Counter(hand):
        return False
    S = ctx.suit_of[lead_cards[0]]
    HS = [c for c in hand if ctx.suit_of[c] == S]
    PS = [c for c in play if ctx.suit_of[c] == S]
    if len(HS) >= n:
        if len(PS) != n:
            return False
    elif Counter(HS) - Counter(play):
        return False
    need = sum(1 for k in Counter(lead_cards).values() if k == 2)
    pairs = lambda xs: sum(1 for k in Counter(xs).values() if k >= 2)  # noqa: E731
    return pairs(PS) >= min(need, pairs(HS))


def submultisets(cards, n):
    items = sorted(Counter(cards).items())
    for ks in product(*[range(k + 1) for _, k in items]):
        if sum(ks) == n:
            yield tuple(c for (c, _), q in zip(items, ks) for _ in range(q))


scenario = st.tuples(st.sampled_from(["S", "H", "D", "C", None]), st.sampled_from(list("23456789TJQKA")),
                     st.permutations(list(R.DECK)), st.integers(1, 12), st.integers(1, 6), st.integers(0, 3))


def _lead_from(ctx, pool, size, pick):
    """A legal lead of up to ``size`` cards of one play-suit out of ``pool``."""
    by = {}
    for c in pool:
        by.setdefault(ctx.suit_of[c], []).append(c)
    suits = sorted(by)
    cards = by[suits[pick % len(suits)]]
    cards = sorted(cards, key=ctx.key_of.__getitem__)[:size]
    return R.analyze_lead(cards, ctx)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario)
def test_prop_legal_follows_match_brute_force(sc):
    ts, r, deck, hsize, lsize, pick = sc
    ctx = R.ctx_for(ts, r)
    hand = deck[:hsize]
    lead = _lead_from(ctx, deck[hsize:hsize + 30], min(lsize, hsize), pick)
    hc = R.counts_of(hand)
    brute = {p for p in submultisets(hand, lead.n) if spec_follow_ok(list(lead.cards), hand, p, ctx)}
    got, complete = R.legal_follows(lead, hc, ctx, False, 10 ** 9)
    assert complete and {tuple(sorted(p)) for p in got} == brute and len(got) == len(brute)
    for p in submultisets(hand, lead.n):
        assert (R.follow_error(lead, hc, p, ctx) is None) == (p in brute)
    part, comp = R.legal_follows(lead, hc, ctx, False, 8)
    assert comp == (len(brute) <= 8) and {tuple(sorted(p)) for p in part} <= brute and len(part) <= 8 + 1
    assert tuple(sorted(R.fallback_follow(lead, hc, ctx))) in brute


@settings(max_examples=100, deadline=None)
@given(scenario)
def test_prop_legal_leads_complete_or_all_legal(sc):
    ts, r, deck, hsize, _, _ = sc
    ctx = R.ctx_for(ts, r)
    hand = R.counts_of(deck[:hsize])
    got, complete = R.legal_leads(hand, ctx, 40)
    assert got and len({tuple(sorted(p)) for p in got}) == len(got)
    for p in got:
        assert R.analyze_lead(p, ctx) is not None and not (Counter(p) - Counter(hand))
    if complete:
        brute = {tuple(sorted(p)) for n in range(1, hsize + 1) for p in submultisets(R.expand(hand), n)
                 if R.play_suit_of(p, ctx) is not None}
        assert {tuple(sorted(p)) for p in got} == brute


def brute_throw_key(play, lead, ctx):
    """Section 8 key by trying every division of ``play`` into the lead's components."""
    comps = sorted(lead.comps, key=lambda c: -c.size)
    dec = ("tractor", lead.tractors[0]) if lead.tractors else ("pair", 1) if lead.pairs else ("single", 0)
    best = []

    def rec(rem, i, cur):
        if i == len(comps):
            best.append(cur)
            return
        comp = comps[i]
        isdec = (comp.kind, comp.length if comp.kind != "single" else 0) == dec
        if comp.kind == "single":
            for c in set(rem):
                r2 = list(rem)
                r2.remove(c)
                rec(r2, i + 1, max(cur, ctx.step_of[c]) if isdec else cur)
            return
        pairs = sorted({c for c in rem if rem.count(c) >= 2})
        for combo in combinations(pairs, comp.length):
            vs = sorted(ctx.step_of[c] for c in combo)
            if vs != list(range(vs[0], vs[0] + comp.length)):
                continue
            r2 = list(rem)
            for c in combo:
                r2.remove(c)
                r2.remove(c)
            rec(r2, i + 1, max(cur, vs[-1]) if isdec else cur)

    rec(list(play), 0, -1)
    return max(best) if best else None


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(["S", "H", "D", "C"]), st.sampled_from(list("23456789TJQKA")), st.randoms(use_true_random=False))
def test_prop_throw_key_matches_division_search(ts, r, rnd):
    ctx = R.ctx_for(ts, r)
    S = rnd.choice([x for x in "SHDC" if x != ts])
    suit = [c for c in R.DECK if ctx.suit_of[c] == S]
    rnd.shuffle(suit)
    lead = R.analyze_lead(suit[:rnd.randint(2, 8)], ctx)
    trumps = [c for c in R.DECK if ctx.suit_of[c] == R.TRUMP]
    rnd.shuffle(trumps)
    # bias towards pairs so that shapes match
    play = []
    for c in trumps:
        if len(play) >= lead.n:
            break
        if play.count(c) < 2:
            play.append(c)
            if rnd.random() < 0.6 and len(play) < lead.n and play.count(c) < 2 and trumps.count(c) == 2:
                play.append(c)
    play = play[:lead.n]
    assert R.throw_key(R.counts_of(play), lead, ctx) == brute_throw_key(play, lead, ctx)


@settings(max_examples=150, deadline=None)
@given(st.permutations(list(R.DECK)), st.sampled_from(list("23456789TJQKA")), st.integers(0, 3),
       st.sampled_from([None, (1, "S"), (0, "H"), (2, "DD"), (3, "BJBJ"), (0, "CC")]))
def test_prop_legal_declarations_equal_validator(deck, r, seat, st_):
    hand = R.counts_of(deck[:25])
    standing = None
    if st_ is not None:
        s, spec = st_
        cards = ("BJ", "BJ") if spec == "BJBJ" else tuple(r + x for x in spec)
        standing = (s, cards)
    cands = {(c,) for c in hand} | {(c, c) for c in hand}
    want = {c for c in cands if R.declaration_error(standing, seat, c, hand, r) is None}
    got = R.legal_declarations(standing, seat, hand, r)
    assert set(got) == want and len(got) == len(want)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["S", "H", "D", "C", None]), st.sampled_from(list("23456789TJQKA")), st.booleans(),
       st.permutations(list(R.DECK)), st.integers(1, 20))
def test_prop_decomposition_partitions_one_suit(ts, r, nrt, deck, n):
    ctx = R.ctx_for(ts, r, nrt)
    suit = ctx.suit_of[deck[0]]
    cards = [c for c in deck if ctx.suit_of[c] == suit][:n]
    comps = R.decompose(R.counts_of(cards), ctx)
    assert Counter(c for comp in comps for c in comp.cards) == Counter(cards)
    for comp in comps:
        if comp.kind == "single":
            assert comp.size == 1
        else:
            codes = comp.cards[::2]
            assert comp.cards[1::2] == codes
            steps = [ctx.step_of[c] for c in codes]
            assert steps == list(range(steps[0], steps[0] + comp.length)) and comp.top == steps[-1]


# ---------------------------------------------------------------------------
# random playouts: conservation, IllegalAction, scores from the event log
# ---------------------------------------------------------------------------

def _steps_for(trump_suit, r, nrt):
    """Independent step numbering (section 4.2) for the kitty_multiplier_power recomputation."""
    steps = {}
    rank_trump = trump_suit is not None or nrt
    for x in "SHDC":
        ranks = [k for k in "23456789TJQKA" if not (rank_trump and k == r)]
        for i, k in enumerate(ranks):
            steps[k + x] = (x, i)
    tr = []
    if trump_suit is not None:
        tr = [[k + trump_suit] for k in "23456789TJQKA" if k != r]
        tr += [[r + x for x in "SHDC" if x != trump_suit], [r + trump_suit]]
    elif nrt:
        tr = [[r + x for x in "SHDC"]]
    tr += [["BJ"], ["RJ"]]
    for i, codes in enumerate(tr):
        for c in codes:
            steps[c] = ("T", i)
    return steps


def _largest_component(cards, steps):
    cnt = Counter(cards)
    pair_steps = sorted(steps[c][1] for c, k in cnt.items() if k == 2)
    best = 1 if any(k == 1 for k in cnt.values()) else 0
    # longest run of consecutive steps holding pairs (a step may hold several)
    distinct = sorted(set(pair_steps))
    run = 0
    for i, v in enumerate(distinct):
        run = run + 1 if i and v == distinct[i - 1] + 1 else 1
        best = max(best, 2 * run)
    return best


def _trick_points_from_cards(events):
    """Pair every public event with the card points of its trick, counted from the played cards
    (for trick_end events; None otherwise)."""
    cards_in_trick: list[str] = []
    out = []
    for e in events:
        tp = None
        if e.to is None:
            k = msg(e).WhichOneof("kind")
            if k == "play":
                cards_in_trick.extend(msg(e).play.play.cards)
            elif k == "trick_end":
                tp = sum(5 if c[0] == "5" else 10 if c[0] in "TK" else 0 for c in cards_in_trick)
                assert tp == msg(e).trick_end.points
                cards_in_trick = []
        out.append((e, tp))
    return out


def recompute_scores(events, variant, params):
    """Full recomputation: trick points counted from the played cards, throw penalties from the
    attempted/forced card counts, kitty bonus, then the level table and match end (sections 5, 9.2,
    10, 11). Also checks each round_end event against it. Returns (scores, winner, draw)."""
    ntp, power, mpa = variant.get("no_throw_penalty"), variant.get("kitty_multiplier_power"), \
        variant.get("must_play_ace")
    levels = [2, 2]
    declarer = starter = None
    trump_suit = trump_rank = None
    p = 0
    last_lead = last_winner = winner = None
    passed = draw = False
    for e, tp in _trick_points_from_cards(events):
        if e.to is not None:
            continue
        k = msg(e).WhichOneof("kind")
        m = getattr(msg(e), k)
        if k == "round_start":
            p = 0
            trump_rank = m.trump_rank
        elif k == "declaration_closed" and m.outcome != "redeal":
            declarer, starter = m.declarer_team, m.starter
            trump_suit = None if m.trump_suit == "NT" else m.trump_suit
        elif k == "throw_failure":
            pen = 0 if ntp else 10 * (len(m.attempted) - len(m.forced))
            p += pen if m.seat % 2 == declarer else -pen
        elif k == "play" and m.lead:
            last_lead = list(m.play.cards)
        elif k == "trick_end":
            if m.winner % 2 != declarer:
                p += tp
            last_winner = m.winner
            assert m.defender_points == p
        elif k == "round_end":
            kit = sum(5 if c[0] == "5" else 10 if c[0] in "TK" else 0 for c in m.kitty)
            if last_winner % 2 != declarer:
                if power:
                    steps = _steps_for(trump_suit, trump_rank, variant.get("notrump_rank_cards_trump"))
                    mult = 2 ** _largest_component(last_lead, steps)
                else:
                    mult = 2 * len(last_lead)
                p += kit * mult
            assert p == m.defender_points, (p, m.defender_points)
            if p < 80:
                team, up = declarer, (3 if p <= 0 else 2 if p < 40 else 1)
            elif p < 120:
                team, up = None, 0
            else:
                team, up = 1 - declarer, 1 + (p - 120) // 40
            if team is not None:
                nl = levels[team] + up
                if nl > 14:
                    if not mpa or (team == declarer and levels[team] == 14):
                        winner, passed = team, True
                    nl = 14
                levels[team] = nl
            assert list(m.levels) == ["23456789TJQKA"[x - 2] for x in levels]
            if p < 80:
                starter = (starter + 2) % 4
            else:
                declarer, starter = 1 - declarer, (starter + 1) % 4
            if winner is None and m.round_number >= params.get("max_rounds", 100):
                if levels[0] != levels[1]:
                    winner = 0 if levels[0] > levels[1] else 1
                else:
                    draw = True
    score = [15 if passed and winner == t else levels[t] for t in (0, 1)]
    return [float(score[s % 2]) for s in range(4)], winner, draw


def _illegal_probe(g: TractorGame, r: random.Random) -> None:
    """Try a few illegal actions; each must raise IllegalAction and change nothing."""
    seat = g.to_act
    fp = fingerprint(g)
    legal = g.legal_actions()[0]
    kind = {"declare": DECLARE, "bury": DISCARD, "play": PLAY}[g.phase]
    probes = [((seat + 1) % 4, legal[0], "TURN"), (seat, Action(kind, ("1X",)), "1.2"),
              (seat, Action(BID, (), 0), None), (seat, Action(kind, legal[0].cards, 7), None)]
    missing = next(c for c in sorted(R.ALL_CODES) if c not in g.hands[seat])
    probes.append((seat, Action(kind, (missing,) * (8 if kind == DISCARD else 1)), None))
    if g.phase == "play" and g.trick_plays:
        hand = R.expand(g.hands[seat])
        for _ in range(4):
            cand = tuple(r.sample(hand, min(len(hand), g.trick_lead.n)))
            if R.follow_error(g.trick_lead, g.hands[seat], cand, g.ctx, g.must_follow_tractor) is not None:
                probes.append((seat, Action(PLAY, cand), None))
                break
    if g.phase == "play" and not g.trick_plays:
        suits = {g.ctx.suit_of[c] for c in g.hands[seat]}
        if len(suits) >= 2:
            a = next(c for c in g.hands[seat] if g.ctx.suit_of[c] == min(suits))
            b = next(c for c in g.hands[seat] if g.ctx.suit_of[c] == max(suits))
            probes.append((seat, Action(PLAY, (a, b)), "6.3"))
    for s, a, want in probes:
        with pytest.raises(IllegalAction) as ei:
            g.apply(s, a)
        if want is not None:
            assert ei.value.rule == want, (a, ei.value)
        assert fingerprint(g) == fp


def run_checked_match(seed: int, params: dict, variant: dict, probe_every: int = 0, declare_p: float = 1.0):
    g = TractorGame(4, variant, params, seeded_rng(seed))
    r = random.Random(seed ^ 0x5EED)
    events = g.pop_events()
    step = 0
    while g.to_act is not None:
        acts, complete = g.legal_actions()
        assert acts
        if probe_every and step % probe_every == 0:
            _illegal_probe(g, r)
        if g.phase == "declare" and r.random() >= declare_p:
            a = Action(PASS)
        else:
            a = r.choice(acts)
        g.apply(g.to_act, a)
        events += g.pop_events()
        step += 1
    for e in events:  # private events only carry the addressee's own cards
        k = msg(e).WhichOneof("kind")
        if e.to is not None:
            assert k in ("card_dealt", "declare_pass", "kitty_taken", "kitty_buried")
        elif k in ("kitty_taken", "kitty_buried"):
            assert not getattr(msg(e), k).cards
    res = g.result()
    scores, winner, draw = recompute_scores(events, {**TractorGame.variant_defaults, **variant}, params)
    assert res.scores == scores and res.summary["winner_team"] == winner and res.summary["draw"] == draw
    assert res.ranks == [1 + sum(1 for o in scores if o > x) for x in scores]
    return g


VARIANTS = [{}, {"must_follow_tractor": True}, {"notrump_rank_cards_trump": True}, {"kitty_multiplier_power": True},
            {"must_play_ace": True}, {"no_throw_penalty": True},
            {"must_follow_tractor": True, "notrump_rank_cards_trump": True, "kitty_multiplier_power": True,
             "must_play_ace": True, "no_throw_penalty": True}]


def test_random_playouts_2000_matches():
    t0 = time.process_time()
    n = 0
    rounds = 0
    for seed in range(2000):
        variant = VARIANTS[seed % len(VARIANTS)]
        params = {"max_rounds": 1, "max_round1_deals": 1 + seed % 3}
        g = run_checked_match(seed, params, variant, probe_every=97 if seed % 10 == 0 else 0,
                              declare_p=0.02 if seed % 50 == 0 else 1.0)
        rounds += g.round
        n += 1
    for seed in range(3):  # full default-length matches
        g = run_checked_match(10_000 + seed, {}, VARIANTS[seed], probe_every=211)
        assert g.winner is not None and g.passed_ace or g.round == 100
        rounds += g.round
        n += 1
    dt = time.process_time() - t0
    print(f"\n{n} matches, {rounds} rounds in {dt:.1f}s CPU: {rounds / dt:.0f} checked rounds/s")
    assert n >= 2000


# ---------------------------------------------------------------------------
# hidden information (section 12)
# ---------------------------------------------------------------------------

def _states(seed: int, n: int):
    """Snapshots (copies) of a random match at ``n`` random steps."""
    g = new_game(seed, params={"max_rounds": 2})
    r = random.Random(seed)
    out = []
    while g.to_act is not None:
        if r.random() < n / 220:
            out.append(g.with_hidden_zones({}))
        g.apply(g.to_act, r.choice(g.legal_actions()[0]))
        g.pop_events()
    return out


def _kept_state_in_step(g: TractorGame) -> None:
    order = R.ctx_for(g.trump_suit, g.trump_rank, g.notrump_rank_cards_trump).order_of if g.trump_fixed else None
    for seat in range(4):
        cards = list(g.sorted_hand(seat))
        assert Counter(cards) == Counter(R.expand(g.hands[seat])) and g.hand_size(seat) == len(cards)
        if order is not None:  # section 12 display order: play-suits S, H, D, C, trump, then step
            assert [order[c] for c in cards] == sorted(order[c] for c in cards)
        else:  # before the trump is fixed: suits S, H, D, C by rank, jokers last
            keys = [(4, R.JOKERS.index(c)) if c in R.JOKERS else ("SHDC".index(c[1]), R.RANKS.index(c[0]))
                    for c in cards]
            assert keys == sorted(keys)
    assert g.hand_sizes() == [sum(h.values()) for h in g.hands]
    tp = g.trick_plays
    if tp:  # the trick in progress, kept play by play, is what sections 8 and 5 give for its plays
        assert g.trick_winner == tp[R.trick_winner(g.trick_lead, [p.cards for p in tp[1:]], g.ctx)].seat
        assert g.current_points == R.points_of(c for p in tp for c in p.cards)
    else:
        assert g.trick_winner == -1 and g.current_points == 0


def test_state_kept_in_step_hand_lists_and_trick_in_progress():
    # every way a hand changes (deal, kitty taken, bury, plays, a failed throw, redeals, a new
    # round, with_hidden_zones) keeps the display list the multiset's cards in display order;
    # the trick's winner and points so far are those of its plays
    for seed in range(12):
        g = new_game(seed, params={"max_rounds": 2, "max_round1_deals": 3})
        r = random.Random(seed)
        while g.to_act is not None:
            _kept_state_in_step(g)
            if r.random() < 0.05:
                _kept_state_in_step(g.with_hidden_zones(g.with_hidden_zones({}).hidden_zones(0)))
            acts = g.legal_actions()[0]
            g.apply(g.to_act, acts[0] if g.phase == "declare" and seed % 2 else r.choice(acts))
            g.pop_events()
        _kept_state_in_step(g)


def test_observation_never_shows_other_hidden_cards():
    for g in _states(5, 40):
        for seat in range(4):
            o = view.observation(g, seat)
            assert Counter(o.hand) == Counter(g.hands[seat])
            if seat != g.starter or g.phase in ("declare", "over"):
                assert not o.kitty_taken and not o.kitty_buried
            zones = g.hidden_zones(seat)
            assert f"hand{seat}" not in zones
            # hidden + own hand + own kitty view + played cards = the whole pack
            hidden = Counter(c for v in zones.values() for c in v)
            own = Counter(o.hand)
            if g.phase == "play" and seat == g.starter:
                own.update(o.kitty_buried)
            played = Counter(c for t in list(o.tricks) + [o.current_trick] for p in t.plays for c in p.cards)
            assert hidden + own + played == Counter(R.DECK)
            # nothing in the observation names a card outside the seat's own view or the public record
            public = set(played) | {c for d in o.declarations for c in d.cards} | set(o.kitty_flipped)
            public |= {c for t in list(o.tricks) + [o.current_trick] for c in t.throw_failure.attempted}
            if o.HasField("last_round"):
                public |= set(o.last_round.kitty)
            assert set(o.hand) | set(o.kitty_taken) | set(o.kitty_buried) | public >= _cards_named(o)


def _cards_named(o) -> set[str]:
    names: set[str] = set()

    def walk(m):
        for f, v in m.ListFields():
            items = [v] if (isinstance(v, (str, int, float)) or hasattr(v, "ListFields")) else list(v)
            for x in items:
                if hasattr(x, "ListFields"):
                    walk(x)
                elif isinstance(x, str) and x in R.ALL_CODES:
                    names.add(x)
    walk(o)
    return names


def test_with_hidden_zones_round_trip():
    for g in _states(8, 20):
        for seat in range(4):
            z = g.hidden_zones(seat)
            g2 = g.with_hidden_zones(z)
            for s in range(4):
                assert g2.hidden_zones(s) == g.hidden_zones(s)
                assert view.observation(g2, s) == view.observation(g, s)
            assert fingerprint(g2) == fingerprint(g)
            with pytest.raises(ValueError):
                g.with_hidden_zones({k: v[:-1] for k, v in z.items() if v} or {"nope": []})


# ---------------------------------------------------------------------------
# heuristic sample bot
# ---------------------------------------------------------------------------

def test_heuristic_beats_random_clearly():
    from sample_bots.heuristics.tractor import choose

    wins = losses = draws = illegal = 0
    level_margin = 0.0
    n = 60
    for i in range(n):
        hteam = i % 2
        pols = [choose if s % 2 == hteam else random_policy(7000 + 4 * i + s) for s in range(4)]
        g, res, ill = play_local("tractor", 4, pols, seed=500 + i, params={"max_rounds": 2})
        illegal += ill
        level_margin += res.scores[hteam] - res.scores[1 - hteam]
        if res.summary["draw"]:
            draws += 1
        elif res.summary["winner_team"] == hteam:
            wins += 1
        else:
            losses += 1
    print(f"\nheuristic vs random ({n} matches of 2 rounds): {wins} wins, {losses} losses, {draws} draws, "
          f"mean level margin {level_margin / n:+.2f}, {illegal} illegal")
    assert illegal == 0
    assert wins >= 0.8 * n and level_margin / n >= 2.0


def test_heuristic_decisions_are_legal_for_every_kind():
    from sample_bots.heuristics.tractor import choose

    g = new_game(77, params={"max_rounds": 1})
    seen = set()
    while g.to_act is not None:
        req = decision_request(g, "m", 1, 1000, 0)
        a = choose(req)
        assert isinstance(a, pb.Action)
        from referee.protocol import action_from_pb
        act = action_from_pb(a)
        g.validate(g.to_act, act)
        seen.add(g.decision_kind())
        g.apply(g.to_act, act)
    assert seen == {DECLARE, DISCARD, PLAY}


def _message_by_constructor(record):
    """The message of a record built the plain way: each field passed to the
    message's constructor (nested records as nested messages)."""
    from dataclasses import fields

    kw = {}
    for f in fields(record):
        v = getattr(record, f.name)
        if v is None:
            continue
        if type(v) is tuple and v and hasattr(v[0], "__dataclass_fields__"):
            v = [_message_by_constructor(x) for x in v]
        elif hasattr(v, "__dataclass_fields__"):
            v = _message_by_constructor(v)
        kw[f.name] = v
    return view._MESSAGES[type(record)](**kw)


def test_records_fill_their_messages_as_the_constructor_would() -> None:
    # viewkit.fill_message sets fields in place (skipping plain fields at their default, which
    # protobuf leaves out anyway): the messages equal the ones built field by field
    # through the constructors, for every event and every current trick of playouts
    checked = 0
    for seed in range(3):
        g = TractorGame(4, None, {"max_rounds": 1}, seeded_rng(seed))
        rng = random.Random(seed)
        while True:
            for e in g.pop_events():
                want = msg(e)
                ref = view.tpb.TractorEvent(**{view._EVENT_FIELD[type(e.record)]: _message_by_constructor(e.record)})
                assert want == ref and want.SerializeToString() == ref.SerializeToString()
                checked += 1
            if g.to_act is None:
                break
            if g.phase == "play":
                t = g.current_trick()
                assert view._message(t) == _message_by_constructor(t)
            g.apply(g.to_act, rng.choice(g.legal_actions()[0]))
    assert checked > 300
    # a nested record with every field at its default is still there
    from referee.games.tractor import events as E

    r = E.Played(trick=0, lead=False, play=E.Play(seat=0, cards=()))
    assert view.event_message(r).play.HasField("play")
    assert view._message(r) == _message_by_constructor(r)
