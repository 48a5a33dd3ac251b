"""The hidden-information proof: a seat only ever receives what the rules let
it see, for every implemented game and every player count.

(a) Differential test. At many decision points of real seeded matches
    (random legal play through the engine), for every seat ``s``: the cards
    of ``hidden_zones(s)`` are shuffled among those same zones (sizes kept)
    and ``with_hidden_zones`` builds the alternative world. Everything the
    referee would send to ``s`` must be byte-identical in both worlds: the
    observation, the decision request (legal actions + kind) when ``s`` acts,
    and the events ``s`` receives when the same next action is applied to
    both. Cards that the step itself reveals to ``s`` (they are named in the
    events ``s`` gets, e.g. a card dealt to it, a card another seat plays,
    the Dou Dizhu kitty turned face up) keep their place; every other hidden
    card moves. This catches leaks that name no card at all (a count, a
    flag, an order derived from hidden cards).
    Because the cards named in those events keep their place, a leak that
    *names* a hidden card in an event is left to (c).
(b) Negative controls: a hidden card slipped into the observation, a count
    of hidden cards in a number field, and an event depending on hidden
    cards are all detected.
(c) Every message sent to every seat over full matches through the real
    runner (in-process seat links) is scanned for card codes the seat may
    not see at that moment, by the engine's ``hidden_zones``: a code is
    flagged when one list (or string field) of the message holds more
    copies of it than the seat can see (two decks: a code may be both in
    the seat's hand and hidden elsewhere). Events of a step that ends a
    round are also allowed what the seat could see when the round ended.
    Fields the spec makes public although the engine's zones still count
    their cards as hidden (Tractor declarations, failed-throw cards, turned
    kitty cards, the kitty revealed at round end; a President giver's
    exchanged cards) are left to (a): see ``SPEC_KNOWN``.
(d) The training environments (``referee.envs``): a seat's observation array
    and action mask, before its decision and after each card it selects,
    are identical in the shuffled worlds of (a); negative controls: a count
    planted in the environment, and a hidden card slipped into the view.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from cardgames.v1 import referee_pb2 as pb
from referee import protocol
from referee.cards import ALL_CODES
from referee.engine import Action, Event, Game, IllegalAction, seeded_rng
from referee.games import envs_module, game_class, implemented, view_module
from referee.runner import BasicSeatLink, MatchSpec, run_match
from referee.service import _serialize_referee_message

#: short but multi-round matches (round boundaries are where a new deal happens)
PARAMS: dict[str, dict[str, Any]] = {
    "doudizhu": {"rounds": 3},
    "tractor": {"max_rounds": 2},
    "smear": {"max_rounds": 3},
    "president": {"max_rounds": 3},
    "back_alley": {"first_round": 11, "last_round": 14},
}
CONFIGS = [(g, n) for g in implemented() for n in game_class(g).player_counts]
#: decision points checked per configuration, shuffles per seat and point
POINTS = 36
SHUFFLES = 2


def new_game(game: str, players: int, seed: int) -> Game:
    return game_class(game)(players, {}, PARAMS.get(game, {}), seeded_rng(seed))


# --------------------------------------------------------------------------- helpers
def card_codes(msg: Any, skip: Any = None) -> list[list[str]]:
    """Card codes in a protobuf message, per container: one list per repeated
    string field (in order), and a one-element list per singular string field.
    ``skip(message, field_name)`` true leaves that field out."""
    out: list[list[str]] = []

    def walk(m: Any) -> None:
        for fd, value in m.ListFields():
            if skip is not None and skip(m, fd.name):
                continue
            if fd.type == fd.TYPE_MESSAGE:
                if fd.is_repeated:
                    if fd.message_type.GetOptions().map_entry:
                        continue
                    for v in value:
                        walk(v)
                else:
                    walk(value)
            elif fd.type == fd.TYPE_STRING:
                vals = list(value) if fd.is_repeated else [value]
                codes = [v for v in vals if v in ALL_CODES]
                if codes:
                    out.append(codes)

    walk(msg)
    return out


def seen_by(events: list[Event], seat: int) -> list[Event]:
    return [e for e in events if e.to is None or e.to == seat]


def events_bytes(game_name: str, events: list[Event]) -> list[bytes]:
    """Each event as a seat gets it, encoded (the same ``Event`` goes alone or bundled in a request)."""
    return [protocol.event_message(game_name, "m", i + 1, e).SerializeToString() for i, e in enumerate(events)]


def shuffle_zones(zones: dict[str, list[str]], fixed: set[str], rng: random.Random) -> dict[str, list[str]]:
    """All cards of ``zones`` except the ``fixed`` codes, permuted among the
    positions they occupy (so every zone keeps its size)."""
    free = [(k, i) for k, cards in zones.items() for i, c in enumerate(cards) if c not in fixed]
    cards = [zones[k][i] for k, i in free]
    rng.shuffle(cards)
    out = {k: list(v) for k, v in zones.items()}
    for (k, i), c in zip(free, cards):
        out[k][i] = c
    return out


def nontrivial(a: dict[str, list[str]], b: dict[str, list[str]]) -> bool:
    """True if some zone holds other cards (as a multiset) after the shuffle."""
    return any(Counter(a[k]) != Counter(b[k]) for k in a)


def rules_reveal(game: str, events: list[Event]) -> bool:
    """Steps whose outcome the rules themselves make depend on other seats'
    hidden cards, so that the events legitimately differ between worlds:
    Tractor's failed throw (spec section 7: a throw fails when another seat
    can beat one of its parts, which everyone learns)."""
    if game == "tractor":
        return any(protocol.event_payload(game, e).WhichOneof("kind") == "throw_failure" for e in events)
    return False


@dataclass
class Stats:
    checks: int = 0
    moved: int = 0
    acting: int = 0
    event_compares: int = 0
    problems: list[str] = field(default_factory=list)


def differential_check(game: Game, action: Action, rng: random.Random, stats: Stats,
                       shuffles: int = SHUFFLES) -> None:
    """Check one decision point of ``game`` (no pending events) for every
    seat; ``action`` is the legal action the seat to act takes next.
    Problems are appended to ``stats.problems``."""
    name = game.name
    actor = game.to_act
    assert actor is not None
    after = copy.deepcopy(game)
    after.apply(actor, action)
    ev_after = after.pop_events()
    for s in range(game.players):
        zones = game.hidden_zones(s)
        mine = seen_by(ev_after, s)
        want_events = events_bytes(name, mine)
        # cards this step reveals to s keep their place in every world
        hidden_codes = {c for cards in zones.values() for c in cards}
        fixed = {c for e in mine for cs in card_codes(protocol.event_payload(name, e)) for c in cs} & hidden_codes
        want_obs = protocol.game_observation(game, s).SerializeToString(deterministic=True)
        want_req = protocol.decision_message(game, "m", 1, 1000, 0).SerializeToString() if s == actor else None
        for _ in range(shuffles):
            alt_zones = shuffle_zones(zones, fixed, rng)
            alt = game.with_hidden_zones(alt_zones)
            stats.checks += 1
            stats.moved += nontrivial(zones, alt_zones)
            where = f"{name} {game.players}p seat {s} ({game.decision_kind()} of seat {actor})"
            if protocol.game_observation(alt, s).SerializeToString(deterministic=True) != want_obs:
                stats.problems.append(f"{where}: observation depends on hidden cards")
                continue
            if s == actor:
                stats.acting += 1
                if protocol.decision_message(alt, "m", 1, 1000, 0).SerializeToString() != want_req:
                    stats.problems.append(f"{where}: legal actions / decision kind depend on hidden cards")
                    continue
            try:
                alt.apply(actor, action)
            except IllegalAction as e:
                if s == actor:  # the actor's choice rests on its own view only
                    stats.problems.append(f"{where}: {action} legal in one world only: {e}")
                continue  # another seat's action that its (moved) hand cannot make here
            alt_events = alt.pop_events()
            if rules_reveal(name, ev_after) or rules_reveal(name, alt_events):
                continue
            stats.event_compares += 1
            if events_bytes(name, seen_by(alt_events, s)) != want_events:
                stats.problems.append(f"{where}: events after {action} depend on hidden cards")


def play_and_pick(game_name: str, players: int, seed: int, points: int) -> tuple[list[Action], set[int]]:
    """Play a random legal match; return its actions and the decision indices
    to check: phase changes, steps after which something private happens
    (deals, exchanges, round ends), and a random sample of the rest."""
    game = new_game(game_name, players, seed)
    game.pop_events()
    rng = random.Random(seed)
    actions: list[Action] = []
    kinds: list[str] = []
    private: list[bool] = []
    while game.to_act is not None and len(actions) < 20_000:
        legal, _ = game.legal_actions()
        kinds.append(game.decision_kind())
        a = rng.choice(legal)
        game.apply(game.to_act, a)
        actions.append(a)
        private.append(any(e.to is not None for e in game.pop_events()))
    assert game.to_act is None, "random play did not finish the match"
    special = [i for i in range(len(actions))
               if private[i] or i == 0 or kinds[i] != kinds[i - 1] or (i + 1 < len(kinds) and kinds[i + 1] != kinds[i])]
    pick = set(rng.sample(special, min(len(special), points // 2)))
    rest = [i for i in range(len(actions)) if i not in pick]
    pick |= set(rng.sample(rest, min(len(rest), points - len(pick))))
    return actions, pick


def run_differential(game_name: str, players: int, seed: int, points: int = POINTS) -> Stats:
    actions, pick = play_and_pick(game_name, players, seed, points)
    game = new_game(game_name, players, seed)
    game.pop_events()
    rng = random.Random(seed * 7919)
    stats = Stats()
    for i, a in enumerate(actions):
        if i in pick:
            differential_check(game, a, rng, stats)
        game.apply(game.to_act, a)
        game.pop_events()
    return stats


# --------------------------------------------------------------------------- (a)
@pytest.mark.parametrize("game_name,players", CONFIGS, ids=[f"{g}-{n}p" for g, n in CONFIGS])
def test_everything_sent_to_a_seat_is_independent_of_cards_it_cannot_see(game_name: str, players: int) -> None:
    total = Stats()
    # 4-player Dou Dizhu: with_hidden_zones deep-copies the engine's legal-play
    # cache (thousands of leads from a 25-card hand), ~0.1 s a world: one match
    seeds = (1,) if (game_name, players) == ("doudizhu", 4) else (1, 2)
    for seed in seeds:
        st = run_differential(game_name, players, seed)
        total.checks += st.checks
        total.moved += st.moved
        total.acting += st.acting
        total.event_compares += st.event_compares
        total.problems += st.problems
    assert not total.problems, f"{len(total.problems)} leak(s), first: " + "; ".join(total.problems[:5])
    # the test has teeth: the worlds really differ, acting seats and events were compared
    assert total.checks >= len(seeds) * POINTS * players
    assert total.moved >= total.checks // 2, (total.moved, total.checks)
    assert total.acting > 0 and total.event_compares >= total.checks // 2


# --------------------------------------------------------------------------- (b)
def _leaky_observation(real):
    def observation(self: Game, seat: int) -> Any:
        o = real(self, seat)
        other = [c for k, cards in sorted(self.hidden_zones(seat).items()) for c in cards]
        if other:
            o.hand.append(other[0])  # the first card of another zone, slipped into the hand
        return o
    return observation


def patch_observation(monkeypatch: pytest.MonkeyPatch, game_name: str, wrap: Any) -> None:
    """Replace the game's observation builder ``f(game, seat)`` (its view
    module's ``observation``, which every path to a seat goes through) by ``wrap(f)``."""
    view = view_module(game_name)
    monkeypatch.setattr(view, "observation", wrap(view.observation))


@pytest.mark.parametrize("game_name", implemented())
def test_negative_control_a_hidden_card_in_the_observation_is_detected(game_name: str,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    cls = game_class(game_name)
    patch_observation(monkeypatch, game_name, _leaky_observation)
    st = run_differential(game_name, cls.player_counts[0], 3, points=8)
    assert any("observation depends on hidden cards" in p for p in st.problems), st.problems[:3]


def test_negative_control_a_count_derived_from_hidden_cards_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    """A leak that names no card (how many hearts the next seat holds, hidden
    in a score-like field) is invisible to a card-code scan but not to the
    differential test."""

    def wrap(real: Any) -> Any:
        def observation(game: Game, seat: int) -> Any:
            o = real(game, seat)
            nxt = game.hidden_zones(seat).get(f"hand{(seat + 1) % game.players}", [])
            o.max_rounds += sum(1 for c in nxt if c.endswith("H"))
            return o
        return observation

    patch_observation(monkeypatch, "smear", wrap)
    st = run_differential("smear", 3, 4, points=8)
    assert any("observation depends on hidden cards" in p for p in st.problems), st.problems[:3]


def test_negative_control_legal_actions_depending_on_hidden_cards_are_detected(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The requests are compared too (encoded, as a seat gets them): a request
    whose legal_actions_complete flag says whether the next seat holds an odd
    number of hearts is caught although the observation is clean."""
    cls = game_class("smear")
    real = cls._legal_actions

    def legal_actions(self: Game) -> Any:
        acts, complete = real(self)
        nxt = self.hands[(self.to_act + 1) % self.players]
        return acts, sum(1 for c in nxt if c.endswith("H")) % 2 == 0

    monkeypatch.setattr(cls, "_legal_actions", legal_actions)
    st = run_differential("smear", 3, 4, points=12)
    assert any("legal actions / decision kind depend on hidden cards" in p for p in st.problems), st.problems[:3]


def patch_public_plays(monkeypatch: pytest.MonkeyPatch, game_name: str, change: Any) -> None:
    """Make the game emit ``change(game, record)`` instead of the record of each
    public ``Play`` event (a leak planted in an event, for the negative controls)."""
    cls = game_class(game_name)
    real = cls.pop_events

    def pop_events(self: Game) -> list[Event]:
        return [Event(change(self, e.record), e.to) if e.to is None and type(e.record).__name__ == "Play" else e
                for e in real(self)]

    monkeypatch.setattr(cls, "pop_events", pop_events)


def test_negative_control_an_event_depending_on_hidden_cards_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    """Events are compared too: a public event that carries a hidden seat's
    hand size of hearts is caught when the next action is applied."""
    def hearts_count(game: Game, record: Any) -> Any:
        bump = 100 * sum(1 for c in game.hands[0] if c.endswith("H"))
        return dataclasses.replace(record, trick=record.trick + bump)

    patch_public_plays(monkeypatch, "smear", hearts_count)
    st = run_differential("smear", 3, 5, points=12)
    assert any("events after" in p for p in st.problems), st.problems[:3]


# --------------------------------------------------------------------------- (c)
def deck_counts(game: Game) -> Counter:
    """Copies of each code in the game's pack (two decks in Tractor and 4p Dou Dizhu)."""
    name = game.name
    if name == "doudizhu":
        return Counter(game._deck)
    if name == "tractor":
        from referee.games.tractor import rules
        return Counter(rules.DECK)
    if name == "president":
        return Counter(game.rules.pack)
    if name == "smear":
        return Counter(game._deck)
    if name == "back_alley":
        from referee.games.back_alley import rules
        return Counter(rules.DECK)
    raise AssertionError(f"no pack known for {name}: add it here")


def _tractor_known(m: Any, field_name: str, seat: int) -> bool:
    """Tractor spec section 12: declared cards, the cards of a failed throw
    and kitty cards turned up are shown to everyone but stay in a hand / the
    kitty, and the buried kitty is
    revealed at the round's end (and kept in ``last_round``), so the engine's
    hidden zones still hold them. Those fields rest on test (a) alone."""
    return (m.DESCRIPTOR.name, field_name) in {
        ("TractorDeclaration", "cards"), ("TractorThrowFailure", "attempted"), ("TractorKittyFlip", "flipped"),
        ("TractorObservation", "kitty_flipped"), ("TractorRoundResult", "kitty")}


def _president_known(m: Any, field_name: str, seat: int) -> bool:
    """President spec section 9: the giver of an exchanged card knows where
    it went (the receiver's hand, hidden from it by the engine's zones)."""
    return m.DESCRIPTOR.name == "PresidentTransfer" and field_name == "cards" and m.from_seat == seat


#: fields naming cards that the spec lets the seat know although the engine's
#: ``hidden_zones`` still counts them as hidden (the zones say where cards lie,
#: not what a seat has been shown)
SPEC_KNOWN = {"tractor": _tractor_known, "president": _president_known}


class Watch:
    """Wraps the engine the runner plays: remembers, per seat, the hidden
    cards right before a new round is dealt during the last ``apply`` (events
    of that step may describe the round that just ended)."""

    def __init__(self, game: Game):
        self.game = game
        self.total = deck_counts(game)
        self.round_end_hidden: list[Counter] | None = None
        real_apply = game.apply
        start_name = next(n for n in ("_start_round", "_start_deal") if hasattr(game, n))
        real_start = getattr(game, start_name)

        def apply(seat: int, action: Action) -> None:
            self.round_end_hidden = None
            real_apply(seat, action)

        def start(*a: Any, **kw: Any) -> Any:
            self.round_end_hidden = [self.hidden(s) for s in range(game.players)]
            return real_start(*a, **kw)

        game.apply = apply  # type: ignore[method-assign]
        setattr(game, start_name, start)

    def hidden(self, seat: int) -> Counter:
        return Counter(c for cards in self.game.hidden_zones(seat).values() for c in cards)

    def check(self, seat: int, msg: pb.RefereeMessage) -> list[str]:
        need: Counter = Counter()
        known = SPEC_KNOWN.get(self.game.name)
        skip = (lambda m, f: known(m, f, seat)) if known else None
        for container in card_codes(msg, skip):
            for c, k in Counter(container).items():
                need[c] = max(need[c], k)
        if not need:
            return []
        allowed = self.total - self.hidden(seat)
        if msg.WhichOneof("msg") == "event" and self.round_end_hidden is not None:
            allowed = allowed | (self.total - self.round_end_hidden[seat])
        return [f"seat {seat} got {c} x{k} (may see {allowed[c]}) in {msg.WhichOneof('msg')}"
                for c, k in need.items() if k > allowed[c]]


class RecordingLink(BasicSeatLink):
    """In-process SeatLink: plays a random legal action at once and checks
    every message it is sent, as the bytes gRPC writes (the service's
    serializer) parsed back, against the engine's hidden zones at that moment."""

    def __init__(self, seat: int, holder: dict[str, Watch], rng: random.Random, leaks: list[str],
                 counts: Counter):
        self.seat, self.holder, self.rng, self.leaks, self.counts = seat, holder, rng, leaks, counts
        self.name = f"rec{seat}"
        self.connected = True

    def _record(self, msg: pb.RefereeMessage) -> pb.RefereeMessage:
        got = pb.RefereeMessage.FromString(_serialize_referee_message(msg))
        self.counts[got.WhichOneof("msg")] += 1
        self.leaks.extend(self.holder["watch"].check(self.seat, got))
        return got

    async def send(self, msg: pb.RefereeMessage) -> None:
        self._record(msg)

    async def ask(self, msg: pb.RefereeMessage, timeout_s: float) -> tuple[pb.ActionReply, float]:
        msg.decision_request.request_id = self.counts["decision_request"] + 1
        req = self._record(msg).decision_request
        return pb.ActionReply(match_id=req.match_id, request_id=req.request_id,
                              action=self.rng.choice(list(req.legal_actions))), 1.0


def record_match(game_name: str, players: int, seed: int) -> tuple[list[str], Counter, Any]:
    spec = MatchSpec(game=game_name, players=players, seed=seed, seat_names=[f"rec{s}" for s in range(players)],
                     params=PARAMS.get(game_name, {}), match_id=f"{game_name}-{seed}")
    holder: dict[str, Watch] = {}

    def new_game_watched() -> Game:
        g = MatchSpec.new_game(spec)
        holder["watch"] = Watch(g)
        return g

    spec.new_game = new_game_watched  # type: ignore[method-assign]
    leaks: list[str] = []
    counts: Counter = Counter()
    rng = random.Random(seed)
    links = [RecordingLink(s, holder, rng, leaks, counts) for s in range(players)]
    outcome = asyncio.run(run_match(spec, links, None))
    return leaks, counts, outcome


@pytest.mark.parametrize("game_name,players", CONFIGS, ids=[f"{g}-{n}p" for g, n in CONFIGS])
def test_no_message_names_a_card_the_seat_may_not_see(game_name: str, players: int) -> None:
    leaks, counts, outcome = record_match(game_name, players, 21)
    assert outcome.status == "complete" and not outcome.faults
    assert counts["decision_request"] == outcome.decisions and counts["event"] > outcome.decisions
    assert not leaks, f"{len(leaks)} leak(s): " + "; ".join(leaks[:8])


def test_negative_control_the_message_scan_detects_a_hidden_card_in_an_event(monkeypatch: pytest.MonkeyPatch) -> None:
    """A public play that shows a card hidden from the next seat is caught in the events."""
    def hidden_card(game: Game, record: Any) -> Any:
        if not record.cards:
            return record
        zones = game.hidden_zones((record.seat + 1) % game.players)
        return dataclasses.replace(record, cards=(next(c for _, cards in sorted(zones.items()) for c in cards),))

    patch_public_plays(monkeypatch, "doudizhu", hidden_card)
    leaks, counts, outcome = record_match("doudizhu", 3, 23)
    assert outcome.status == "complete" and counts["event"] > outcome.decisions
    assert any(x.endswith("in event") for x in leaks), leaks[:3]


@pytest.mark.parametrize("game_name", implemented())
def test_negative_control_the_message_scan_detects_a_hidden_card(game_name: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    cls = game_class(game_name)
    patch_observation(monkeypatch, game_name, _leaky_observation)
    leaks, counts, outcome = record_match(game_name, cls.player_counts[0], 22)
    assert outcome.status == "complete"
    assert any("in decision_request" in x for x in leaks), leaks[:3]


# --------------------------------------------------------------------------- (d)
# The training environments (referee/envs): the arrays and action masks a
# seat gets, before its decision and after each card it selects, must not
# depend on cards it cannot see either.
def env_views(game: Game, seat: int, action: Action) -> list[bytes]:
    """What the environment gives ``seat`` at this decision point of ``game``
    (left unchanged): its observation array and action mask, and when it is
    to act, again after each index step of ``action`` until the action is sent."""
    from referee.envs.table import Table

    table = Table(game.name, game.players, game.variant, game.params)
    table.attach(copy.deepcopy(game))

    def view() -> bytes:
        o = table.observe(seat)
        return o["observation"].tobytes() + o["action_mask"].tobytes()

    out = [view()]
    if seat == game.to_act:
        for index in table.layout.steps(action):
            if table.step(index) is not None:
                break
            out.append(view())
    return out


def env_differential(game_name: str, players: int, seed: int, points: int) -> Stats:
    actions, pick = play_and_pick(game_name, players, seed, points)
    game = new_game(game_name, players, seed)
    game.pop_events()
    rng = random.Random(seed * 104729)
    stats = Stats()
    for i, a in enumerate(actions):
        if i in pick:
            actor = game.to_act
            for s in range(players):
                want = env_views(game, s, a)
                zones = game.hidden_zones(s)
                for _ in range(SHUFFLES):
                    alt_zones = shuffle_zones(zones, set(), rng)
                    stats.checks += 1
                    stats.moved += nontrivial(zones, alt_zones)
                    stats.acting += s == actor
                    if env_views(game.with_hidden_zones(alt_zones), s, a) != want:
                        stats.problems.append(f"{game_name} {players}p seat {s} ({game.decision_kind()} of seat "
                                              f"{actor}): the environment's arrays depend on hidden cards")
        game.apply(game.to_act, a)
        game.pop_events()
    return stats


@pytest.mark.parametrize("game_name,players", CONFIGS, ids=[f"{g}-{n}p" for g, n in CONFIGS])
def test_environment_observations_are_independent_of_cards_the_seat_cannot_see(game_name: str, players: int) -> None:
    st = env_differential(game_name, players, 5, 12)
    assert not st.problems, f"{len(st.problems)} leak(s), first: " + "; ".join(st.problems[:5])
    assert st.checks >= 12 * players and st.moved >= st.checks // 2 and st.acting > 0


def test_negative_control_a_leak_planted_in_the_environment_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    """An environment whose array holds the number of hearts in the next
    seat's hand (a number, no card named) is caught."""
    from referee.envs.table import Table

    real = Table.observe

    def observe(self: Table, seat: int) -> dict:
        o = real(self, seat)
        nxt = self.game.hidden_zones(seat).get(f"hand{(seat + 1) % self.players}", [])
        o["observation"][-1] += sum(1 for c in nxt if c.endswith("H"))
        return o

    monkeypatch.setattr(Table, "observe", observe)
    st = env_differential("smear", 3, 4, 8)
    assert any("environment's arrays depend on hidden cards" in p for p in st.problems), st.problems[:3]


def _leaky_state_encoder(real: Any) -> Any:
    """A game's ``encode_state`` that also counts the first card of another
    seat's hidden zone in the seat's hand segment."""
    from referee.envs.actions import CARD_INDEX
    from referee.envs.encode import Encoder

    def encode_state(w: Any, game: Game, kind: Any) -> None:
        real(w, game, kind)
        other = [c for k, cards in sorted(game.hidden_zones(w.me).items()) for c in cards]
        if other:
            w.mark(Encoder(game.name, game.players).offsets["hand"] + CARD_INDEX[other[0]])
    return encode_state


@pytest.mark.parametrize("game_name", implemented())
def test_negative_control_a_hidden_card_in_what_the_environment_reads_is_detected(
        game_name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The card slipped into the view, or, for a game whose environment reads
    the engine's state (``encode_state``), into that encoder's hand."""
    envs = envs_module(game_name)
    if hasattr(envs, "encode_state"):
        monkeypatch.setattr(envs, "encode_state", _leaky_state_encoder(envs.encode_state))
    else:
        patch_observation(monkeypatch, game_name, _leaky_observation)
    st = env_differential(game_name, game_class(game_name).player_counts[0], 3, 6)
    assert any("environment's arrays depend on hidden cards" in p for p in st.problems), st.problems[:3]
