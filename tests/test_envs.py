"""The training environments (referee/envs, docs/envs.md): PettingZoo's and
Gymnasium's own checks for every game and player count, the exactness of
the action masks (every legal action reachable, no illegal one sent),
rewards that add up to the match's scores, and the observation layout."""

from __future__ import annotations

import copy
import math
import random
import warnings
from typing import Any
from collections import Counter
from itertools import combinations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from referee.engine import PASS, Action, IllegalAction
from referee.envs import aec_env, parallel_env, single_agent_env, observation_policy
from referee.envs.actions import CARD_CODES, ActionLayout, IllegalIndex
from referee import protocol
from referee.envs.encode import with_selection
from referee.envs.table import Table, decision_for
from referee.games import game_class

#: short matches: a few rounds each
OPTIONS = {
    "doudizhu": {"rounds": 2},
    "smear": {"max_rounds": 3},
    "president": {"max_rounds": 2},
    "tractor": {"max_rounds": 1},
    "back_alley": {"first_round": 11, "last_round": 14},
}
CONFIGS = [("smear", 2), ("smear", 3), ("doudizhu", 3), ("doudizhu", 4), ("president", 4), ("president", 5),
           ("president", 6), ("president", 7), ("tractor", 4), ("back_alley", 4)]
IDS = [f"{g}-{n}p" for g, n in CONFIGS]


# ----------------------------------------------------------------------------- the ecosystem's own tests
@pytest.mark.parametrize("game,players", CONFIGS, ids=IDS)
def test_pettingzoo_api_test_and_seed_test_pass(game: str, players: int) -> None:
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about all-zero masks of seats not to act: by design
        api_test(aec_env(game, players, seed=7, **OPTIONS[game]), num_cycles=200)
        seed_test(lambda: aec_env(game, players, **OPTIONS[game]), num_cycles=200)


@pytest.mark.parametrize("game", ["smear", "president"])
def test_parallel_env_passes_pettingzoo_parallel_api_test(game: str) -> None:
    from pettingzoo.test import parallel_api_test

    parallel_api_test(parallel_env(game, seed=3, **OPTIONS[game]), num_cycles=300)


@pytest.mark.parametrize("opponents", ["heuristic", "random"])
@pytest.mark.parametrize("game,players", [("smear", 3), ("doudizhu", 3), ("president", 4), ("tractor", 4),
                                          ("back_alley", 4)])
def test_gymnasium_env_checker_passes_the_single_agent_wrapper(game: str, players: int, opponents: str) -> None:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "not able to test alternative render modes" (no registered spec)
        check_env(single_agent_env(game, players, opponents=opponents, seed=2, **OPTIONS[game]))


def test_single_agent_env_with_random_opponents_replays_a_seed() -> None:
    """The same reset seed and the same actions give the same match, random
    opponents included (they are seeded from the match's seed)."""
    def play(env: Any) -> list[bytes]:
        obs, _ = env.reset(seed=7)
        seen, done = [obs["observation"].tobytes()], False
        while not done:
            obs, _, done, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
            seen.append(obs["observation"].tobytes())
        return seen

    env = single_agent_env("smear", 3, opponents="random", seed=1, max_rounds=2)
    first = play(env)
    play(single_agent_env("smear", 3, opponents="random", seed=99, max_rounds=2))  # another env in between
    assert play(env) == first and len(first) > 5


# ----------------------------------------------------------------------------- exact masks
def reachable(table: Table, limit: int = 20_000) -> set | None:
    """Every action the mask tree of the pending decision can send (as action
    keys), by search over selections (each selection visited once); ``None``
    when more than ``limit`` selections would be visited."""
    d0 = table._decision()
    out: set = set()
    seen: set = set()
    stack = [d0]
    while stack:
        d = stack.pop()
        for i in np.flatnonzero(d.mask()):
            e = d.copy()
            sent = e.push(int(i))
            if sent is not None:
                out.add(sent.key())
                continue
            key = tuple(sorted(e.selection.items()))
            if key not in seen:
                seen.add(key)
                if len(seen) > limit:
                    return None
                stack.append(e)
    return out


def check_decision(table: Table, rng: random.Random, walks: int = 3, search: bool = True) -> int:
    """Check the pending decision of ``table``: every legal action the engine
    lists is sent by its index steps, each allowed by the mask; random walks
    along the mask send actions the engine accepts; for a complete list small
    enough to search, the mask tree sends exactly the legal actions. Returns
    how many actions were checked."""
    g = table.game
    seat = g.to_act
    legal, complete = g.legal_actions()
    checked = 0
    for a in (legal if len(legal) <= 40 else rng.sample(legal, 40)):
        d = table._decision().copy()
        sent = None
        for i in table.layout.steps(a):
            assert d.mask()[i], f"{g.name}: {table.layout.describe(i)} of {a} is masked"
            sent = d.push(i)
            if sent is not None:
                break
        assert sent is not None and sent.key() == a.key(), (a, sent)
        checked += 1
    for _ in range(walks):
        d = table._decision().copy()
        while True:
            m = d.mask()
            allowed = np.flatnonzero(m)
            assert len(allowed), f"{g.name}: a selection {d.selection} with nothing allowed"
            sent = d.push(int(rng.choice(allowed)))
            if sent is not None:
                break
        g.validate(seat, sent)  # raises IllegalAction if the mask let an illegal action through
        checked += 1
    if search and complete and len(legal) <= 400:
        got = reachable(table)
        if got is not None:
            assert got == {a.key() for a in legal}, (g.name, got ^ {a.key() for a in legal})
    return checked


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31))
@pytest.mark.parametrize("game,players", CONFIGS, ids=IDS)
def test_masks_reach_every_legal_action_and_send_no_illegal_one(game: str, players: int, seed: int) -> None:
    rng = random.Random(seed)
    table = Table(game, players, {}, OPTIONS[game])
    table.reset(seed)
    checked = decisions = 0
    while table.to_act is not None and decisions < 200:
        checked += check_decision(table, rng, search=game != "doudizhu" or players == 3)
        decisions += 1
        legal = table.game.legal_actions().actions
        table.apply(table.to_act, rng.choice(legal))
    assert checked >= decisions


#: matches of at least two rounds, for the arrays kept across a new deal
MULTI_ROUND = dict(OPTIONS, tractor={"max_rounds": 2})


@pytest.mark.parametrize("flags", ["default", "flipped"])
@pytest.mark.parametrize("game,players", CONFIGS, ids=IDS)
def test_arrays_and_masks_read_from_the_engine_equal_those_of_the_protocol_messages(game: str, players: int,
                                                                                   flags: str) -> None:
    """Every seat's array at every index step of random matches (kept by the
    game's ``update`` from events, or read by its ``encode_state``) is the
    array of the seat's observation message, and the acting seat's mask
    (from the game's ``state_decision`` where it has one) is the mask of the
    engine's legal list, as a bot's request gives them; with the default
    variant flags and with every flag flipped, for at least 300 steps (and
    past a new deal: Tractor's rounds are longer)."""
    rng = random.Random(players)
    defaults = game_class(game).variant_defaults
    variant = {k: not v for k, v in defaults.items()} if flags == "flipped" else {}
    table = Table(game, players, variant, MULTI_ROUND[game])
    enc, layout = table.encoder, table.layout
    least = 700 if game == "tractor" else 300
    steps = 0
    for seed in range(20):  # whole matches until `least` steps
        if steps >= least:
            break
        table.reset(seed)
        pushed: list[int] = []  # the index steps of the pending decision so far
        while table.to_act is not None and steps < 2000:
            g = table.game
            for s in range(players):
                kind = g.decision_kind() if s == g.to_act else None
                want = enc.encode(protocol.game_observation(g, s), s, kind)
                got = table.observe(s)["observation"]
                if s == g.to_act:
                    want = with_selection(want, enc.selection, table.decision.selection)
                assert got.tobytes() == want.tobytes(), (game, s, np.flatnonzero(got != want))
            legal, complete = g.legal_actions()
            ref = decision_for(layout, game, protocol.game_observation(g, g.to_act), g.decision_kind(), legal, complete)
            for i in pushed:
                assert ref.push(i) is None
            mask = table.observe(g.to_act)["action_mask"]
            assert mask.tobytes() == ref.mask().tobytes(), (game, [layout.describe(int(i)) for i in np.flatnonzero(mask != ref.mask())])
            index = int(rng.choice(np.flatnonzero(mask)))
            pushed = [] if table.step(index) is not None else pushed + [index]
            steps += 1
        if table.to_act is None:  # the arrays the seats see at the end
            for s in range(players):
                want = enc.encode(protocol.game_observation(table.game, s), s, None)
                assert table.observe(s)["observation"].tobytes() == want.tobytes(), (game, s, "end")
    assert steps >= least


def test_back_alley_arrays_kept_by_events_through_a_pass_out_and_the_end_of_the_match() -> None:
    """A one-round Back Alley match (hand size 1) passed out once, redealt,
    bid and played to its end: every seat's array, kept by the game's
    ``update``, equals its message-made one at every action and at the end
    (when pass-outs in a row go back to 0)."""
    table = Table("back_alley", 4, {}, {"first_round": 13, "last_round": 13})
    table.reset(0)
    g = table.game

    def check() -> None:
        for s in range(4):
            kind = g.decision_kind() if s == g.to_act else None
            want = table.encoder.encode(protocol.game_observation(g, s), s, kind)
            assert table.observe(s)["observation"].tobytes() == want.tobytes(), s

    for _ in range(4):  # everybody passes: passed out (spec 4.5), the same index is dealt again
        check()
        table.apply(g.to_act, Action(PASS))
    assert g.passed_out_in_row == 1 and g.phase == "bidding"
    while g.to_act is not None:  # board bids (the last legal bid), then the one trick
        check()
        table.apply(g.to_act, g.legal_actions().actions[-1])
    assert g.over and g.passed_out_in_row == 0
    check()


def tractor_states(seed: int, want: str) -> list[Table]:
    """Tractor tables at decisions whose legal list is incomplete (``want``:
    ``"DISCARD"``, ``"lead"`` or ``"follow"``), from random play."""
    rng = random.Random(seed)
    out = []
    table = Table("tractor", 4, {}, {"max_rounds": 2})
    table.reset(seed)
    g = table.game
    while g.to_act is not None and len(out) < 6:
        legal, complete = g.legal_actions()
        if not complete:
            kind = g.decision_kind()
            which = "DISCARD" if kind == "DISCARD" else "lead" if not g.trick_plays else "follow"
            if which == want:
                t = Table("tractor", 4, {}, {"max_rounds": 2})
                t.attach(copy.deepcopy(g))
                out.append(t)
        table.apply(g.to_act, rng.choice(legal))
    return out


@pytest.mark.parametrize("want", ["DISCARD", "lead", "follow"])
def test_tractor_oracles_send_only_legal_actions_where_the_engine_cannot_list_them(want: str) -> None:
    rng = random.Random(11)
    seen = 0
    for seed in range(40):
        for t in tractor_states(seed, want):
            check_decision(t, rng, walks=25, search=False)
            seen += 1
        if seen >= 8:
            break
    assert seen >= 3, f"too few incomplete {want} decisions met"


def test_tractor_follow_oracle_equals_brute_force_on_every_follow() -> None:
    """Where the follows can be enumerated (C(hand, n) small), the mask tree
    sends exactly the plays the engine's validation accepts."""
    rng = random.Random(5)
    compared = 0
    for seed in range(60):
        table = Table("tractor", 4, {}, {"max_rounds": 1})
        table.reset(seed)
        g = table.game
        while g.to_act is not None and compared < 40:
            legal, complete = g.legal_actions()
            if g.decision_kind() == "PLAY" and g.trick_plays:
                hand = g.hands[g.to_act]
                n = len(g.trick_plays[0].cards)
                if n >= 2 and math.comb(len(hand), n) <= 3000:
                    cards = sorted(Counter(hand).elements())
                    brute = set()
                    for combo in set(combinations(cards, n)):
                        try:
                            g.validate(g.to_act, type(legal[0])("PLAY", combo))
                            brute.add(("PLAY", tuple(sorted(combo)), 0))
                        except IllegalAction:
                            pass
                    t = Table("tractor", 4, {}, {"max_rounds": 1})
                    t.attach(copy.deepcopy(g))
                    if not complete:  # the oracle; complete lists are the list oracle's
                        t.decision = None
                    assert reachable(t) == brute
                    compared += 1
            table.apply(g.to_act, rng.choice(legal))
    assert compared >= 10


def test_a_masked_index_raises_or_plays_the_fallback() -> None:
    env = aec_env("smear", 3, seed=1, **OPTIONS["smear"])
    env.reset()
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalIndex):
        env.step(bad)
    env = aec_env("smear", 3, seed=1, illegal="fallback", **OPTIONS["smear"])
    env.reset()
    agent = env.agent_selection
    env.step(bad)
    assert env.infos[agent] == {"illegal_index": bad} and env.agent_selection != agent


def test_layout_indices_are_fixed_and_described() -> None:
    lay = ActionLayout("back_alley")
    assert lay.size == 1 + 13 + 54 + 1
    assert [lay.describe(i) for i in (0, 1, 13, 14, 67, 68)] == [
        "PASS", "BID 1", "BID 13", "CARD 2C", "CARD RJ", "SUBMIT"]
    assert ActionLayout("tractor").size == 56 and ActionLayout("doudizhu").card_index("3S") == 4 + 39 + 1
    assert len(set(CARD_CODES)) == 54
    with pytest.raises(IllegalIndex):
        lay.describe(69)


# ----------------------------------------------------------------------------- rewards, episodes
@pytest.mark.parametrize("game,players", CONFIGS, ids=IDS)
def test_rewards_add_up_to_the_match_scores(game: str, players: int) -> None:
    env = aec_env(game, players, seed=4, **OPTIONS[game])
    env.reset()
    start = list(env.unwrapped.table.scores)
    total = Counter()
    rng = np.random.default_rng(4)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        total[agent] += reward
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    result = env.unwrapped.table.game.result()
    assert [total[f"seat_{s}"] + start[s] for s in range(players)] == pytest.approx(result.scores)


def test_rewards_come_at_round_ends_in_the_games_unit() -> None:
    """Dou Dizhu money: zero-sum, and only on the step that ends a round."""
    table = Table("doudizhu", 3, {}, {"rounds": 3})
    table.reset(9)
    rng = random.Random(9)
    rounds = 0
    while table.to_act is not None:
        before = table.game.round
        r = table.apply(table.to_act, rng.choice(table.game.legal_actions().actions))
        assert sum(r) == pytest.approx(0)
        ended = table.game.over or table.game.round != before
        rounds += ended
        assert any(r) <= ended
    assert rounds == 3


def test_single_agent_env_seats_the_sample_heuristics_and_observation_policies() -> None:
    from sample_bots.heuristics import smear as heuristic

    pick_first = observation_policy(lambda obs: int(np.flatnonzero(obs["action_mask"])[0]))
    env = single_agent_env("smear", 3, seat=1, opponents=[heuristic.choose, pick_first], seed=5, max_rounds=4)
    obs, _ = env.reset(seed=5)
    total, done, steps = 0.0, False, 0
    while not done:
        assert env.table.to_act == 1
        obs, r, done, trunc, info = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
        total += r
        steps += 1
    result = env.table.game.result()
    assert total == pytest.approx(result.scores[1]) and steps > 4
    with pytest.raises(ValueError):
        single_agent_env("smear", 3, opponents=[heuristic.choose])


def test_options_split_into_variant_flags_and_match_parameters() -> None:
    env = aec_env("smear", 2, with_joker=True, max_rounds=2)
    assert env.unwrapped.table.variant == {"with_joker": True} and env.unwrapped.table.params == {"max_rounds": 2}
    with pytest.raises(ValueError, match="unknown option"):
        aec_env("smear", 2, rounds=3)
    with pytest.raises(ValueError, match="players"):
        aec_env("tractor", 3)


def test_render_shows_the_acting_seats_view_as_text() -> None:
    env = aec_env("president", 4, seed=2, render_mode="ansi", **OPTIONS["president"])
    env.reset()
    text = env.render()
    seat = env.unwrapped.table.to_act
    hand = env.unwrapped.table.game.hands[seat]
    assert f"seat {seat} to act" in text and " ".join(hand[:3]) in text and "allowed:" in text
    other = env.unwrapped.table.game.hands[(seat + 1) % 4]
    assert " ".join(other) not in text


# ----------------------------------------------------------------------------- observation layout
@pytest.mark.parametrize("game,players", CONFIGS, ids=IDS)
def test_observation_segments_tile_the_array_and_hold_the_hand(game: str, players: int) -> None:
    table = Table(game, players, {}, OPTIONS[game])
    table.reset(1)
    enc = table.encoder
    pos = 0
    for s in enc.segments:
        assert s.offset == pos and s.size > 0
        pos += s.size
    assert pos == enc.size
    seat = table.to_act
    vec = table.observe(seat)["observation"]
    hand = enc.segment("hand")
    want = np.zeros(54)
    for c in table.game.hands[seat]:
        want[CARD_CODES.index(c)] += 1
    assert np.array_equal(vec[hand.offset:hand.offset + 54], want)
    assert np.all(vec >= enc.low) and np.all(vec <= enc.high)
    dec = enc.segment("decision")
    assert vec[dec.offset:dec.offset + dec.size].sum() == 1


def test_selection_segment_shows_the_cards_selected() -> None:
    table = Table("doudizhu", 3, {}, {"rounds": 1})
    table.reset(3)
    g = table.game
    while g.decision_kind() != "PLAY":
        table.apply(g.to_act, g.legal_actions().actions[-1])  # the highest bid ends the auction
    pair = next(a for a in g.legal_actions().actions if len(a.cards) == 2 and a.cards[0][0] == a.cards[1][0])
    assert table.step(table.layout.card_index(pair.cards[0])) is None
    sel = table.encoder.segment("selection")
    vec = table.observe(g.to_act)["observation"]
    assert vec[sel.offset + CARD_CODES.index(pair.cards[0])] == 1 and vec[sel.offset:sel.offset + 54].sum() == 1


# ----------------------------------------------------------------------------- misuse gets a clear error
def test_aec_env_used_before_reset_or_given_a_non_integer_says_what_is_wrong() -> None:
    env = aec_env("smear", 3, seed=1, **OPTIONS["smear"])
    for call in (env.last, lambda: env.step(0), lambda: env.observe("seat_0")):
        with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
            call()
    env.reset()
    agent = env.agent_selection
    allowed = np.flatnonzero(env.observe(agent)["action_mask"])
    for bad in (None, 2.7, float(allowed[0]), "0", True):
        with pytest.raises(TypeError, match=f"{agent} is to act: an action is an integer index"):
            env.step(bad)
    assert env.agent_selection == agent  # nothing was played
    env.step(np.int64(allowed[0]))  # numpy integers are indices
    assert env.agent_selection != agent or env.unwrapped.table.decision is not None


def test_an_index_outside_the_action_space_raises_even_under_fallback() -> None:
    env = single_agent_env("smear", 3, opponents="random", seed=1, **OPTIONS["smear"])  # illegal="fallback"
    env.reset()
    size = env.action_space.n
    for bad in (10**6, size, -1):
        with pytest.raises(IllegalIndex, match=rf"index {bad} is outside the action space 0\.\.{size - 1}"):
            env.step(bad)
    with pytest.raises(TypeError, match="integer index"):
        env.step(2.7)
    masked = int(np.flatnonzero(env.action_masks() == 0)[0])  # in range, masked out: the fallback
    _, _, _, _, info = env.step(masked)
    assert info == {"illegal_index": masked}


def test_a_masked_index_names_the_seat_and_the_allowed_indices() -> None:
    env = aec_env("smear", 3, seed=1, **OPTIONS["smear"])
    env.reset()
    seat = env.unwrapped.table.to_act
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[-1])
    lay = env.unwrapped.table.layout
    allowed = ", ".join(lay.describe(int(i)) for i in np.flatnonzero(mask))
    with pytest.raises(IllegalIndex) as e:
        env.step(bad)
    assert str(e.value) == (f"smear: seat {seat}: {lay.describe(bad)} (index {bad}) is not allowed now; "
                            f"allowed now: {allowed}")
    table = Table("doudizhu", 3, {}, {"rounds": 1})  # a lead of many cards: at most 8 named, the rest counted
    table.reset(3)
    g = table.game
    while g.decision_kind() != "PLAY":
        table.apply(g.to_act, g.legal_actions().actions[-1])
    n = int(table.observe(g.to_act)["action_mask"].sum())
    assert n > 8
    with pytest.raises(IllegalIndex, match=rf"allowed now: (CARD \w+, ){{7}}CARD \w+ \(and {n - 8} more\)$"):
        table.step(table.layout.submit_index)


def test_single_agent_env_names_unknown_opponents() -> None:
    with pytest.raises(ValueError) as e:
        single_agent_env("smear", 3, opponents="heuristc")
    assert str(e.value) == ("unknown opponents 'heuristc' (did you mean `heuristic`?): 'heuristic', 'random', "
                            "or a list of 2 policies (one per other seat)")


def test_parallel_seed_test_passes_with_the_fallback() -> None:
    """PettingZoo's parallel_seed_test samples unmasked actions: with
    illegal="raise" (the default) a masked one raises, as documented."""
    from pettingzoo.test import parallel_seed_test

    parallel_seed_test(lambda: parallel_env("smear", 3, illegal="fallback", **OPTIONS["smear"]), num_cycles=100)
    with pytest.raises(IllegalIndex):
        parallel_seed_test(lambda: parallel_env("smear", 3, **OPTIONS["smear"]), num_cycles=100)


def test_single_agent_envs_are_registered_with_gymnasium() -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("referee.envs.single:cardgame_referee/smear-v0", players=3, opponents="random", seed=2,
                         **OPTIONS["smear"])
    assert env.spec is not None and env.spec.id == "cardgame_referee/smear-v0"
    assert env.unwrapped.table.name == "smear" and env.unwrapped.table.players == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no render_fps: the "human" mode prints text
        check_env(env.unwrapped)


def test_docs_segment_tables_are_the_encoders_segments() -> None:
    """docs/envs.md's table per game is Encoder(game).segments, word for word."""
    from pathlib import Path

    from referee.envs.encode import Encoder
    from referee.games import envs_module

    text = (Path(__file__).resolve().parent.parent / "docs" / "envs.md").read_text()
    for game in OPTIONS:
        enc = Encoder(game, envs_module(game).PLAYERS)
        section = text.split(f"#### {game} (")[1].split("\n\n", 2)[1]
        rows = [line for line in section.splitlines() if line.startswith("| `")]
        assert rows == [f"| `{s.name}` | {s.offset} | {s.size} | {s.doc} |" for s in enc.segments], game
