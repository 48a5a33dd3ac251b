"""Tractor in the training environments (docs/envs.md): its player count
by default, its BID indices (none), its match scores, its observation array
(written with :mod:`referee.envs.encode`, from the observation message or
from the engine's state, and kept up to date from the events between
deals: :func:`update`) and the exact oracles of the decisions whose legal
actions the engine does not list in full (``Legal.complete`` false;
shared/rules/tractor.md):

* the kitty burial (section 3): any 8 cards of the starter's 33;
* a lead (section 6.3): any non-empty set of cards of one play-suit (a
  throw is checked by the referee after it is sent);
* a follow (section 7, rules 1-3): ``n`` cards; all of the led play-suit
  when the hand holds ``n`` of it, else every card of it plus any others;
  at least ``min(need, pairs held in the suit)`` pairs of the suit.

Each oracle answers the questions of :class:`referee.envs.actions.Oracle`
exactly, from the seat's observation alone (its hand, the trump, the
effective lead of the trick; :func:`state_decision` reads the same from
the engine and, the oracles being exact, uses them for every burial, lead
and follow, listed in full or not). Variant ``must_follow_tractor`` only
matters when the follower holds a tractor of the lead's length; its legal
follows are then few and the engine lists them all, so the list oracle
serves.

Imported only by :mod:`referee.envs`, through :func:`referee.games.envs_module`.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from referee.engine import DISCARD, PLAY, Action, Game
from referee.envs.actions import CARD_INDEX, N_CARDS, Oracle
from referee.envs.encode import BIG, RANKS, Writer, common, phase

from . import events as E
from . import rules as R

#: the player count of an environment made without one
PLAYERS = 4
#: the BID amounts with an index of their own: none (Tractor declares with cards)
BID_AMOUNTS: tuple[int, ...] = ()

KITTY = 8
SUITS = ("C", "D", "H", "S", "NT")
LEAD_TYPES = ("single", "pair", "tractor", "throw")


def match_scores(game: Game) -> list[float]:
    """Each seat's team's level so far, 2..14 (before the end of the match)."""
    return [float(game.levels[s % 2]) for s in range(game.players)]  # type: ignore[attr-defined]


def _level(r: str) -> int:
    return RANKS.index(r) + 2 if r in RANKS else 15 if r else 0


def encode(w: Writer, o: Any, kind: str | None) -> None:
    """The array of a ``TractorObservation``."""
    last = o.declarations[-1] if o.declarations else None
    t = o.current_trick
    _write(w, kind, o.hand, o.phase, [o.notrump_rank_cards_trump, o.must_follow_tractor, o.kitty_multiplier_power,
                                      o.must_play_ace, o.no_throw_penalty],
           o.round_number, [_level(x) for x in o.levels] or [0, 0], o.trump_rank, o.trump_suit, o.declarer_team,
           o.starter, o.first_drawer, o.cards_dealt, o.final_window, o.declaration_closed,
           last.seat if last is not None else -1, last.cards if last is not None else (), o.kitty_flipped,
           o.kitty_taken, o.kitty_buried, o.hand_sizes, t.leader if o.phase == _PLAY_PHASE else -1,
           [(p.seat, p.cards) for p in t.plays], t.lead_type, t.throw_failure.attempted,
           t.winner if t.plays else -1, t.points, o.defender_points,
           [(p.seat, p.cards) for tr in o.tricks for p in tr.plays])


def encode_state(w: Writer, g: Any, kind: str | None) -> None:
    """The same array as :func:`encode` of ``view.observation(g, w.me)``,
    read from the engine's state (shared/rules/tractor.md section 12: the
    seat's own hand, the kitty only the starter saw, and the public state),
    without building the message."""
    me = w.me
    over, play = g.phase == "over", g.phase == "play"  # the trick in progress exists in the play phase only
    trump_suit = ("NT" if g.trump_suit is None else g.trump_suit) if g.trump_fixed else ""
    last = g.declarations[-1] if g.declarations else None
    mine = me == g.starter and g.trump_fixed and not over  # the kitty is private to the starter (section 3)
    lead, failure = g.trick_lead, g.trick_failure
    _write(w, kind, g.hand_cards[me], _PHASES.index(g.phase) + 1,
           [g.notrump_rank_cards_trump, g.must_follow_tractor, g.kitty_multiplier_power, g.must_play_ace,
            g.no_throw_penalty],
           g.round, g.levels, g.trump_rank, trump_suit, -1 if g.declarer_team is None else g.declarer_team,
           -1 if g.starter is None else g.starter, g.first_drawer, g.dealt, g.window and not g.trump_fixed,
           g.trump_fixed, last.seat if last is not None else -1, last.cards if last is not None else (),
           g.flipped, g.kitty_taken if mine else (), g.kitty_buried if mine and g.buried else (),
           [0] * 4 if over else [len(h) for h in g.hand_cards],
           g.trick_leader if play else -1,
           [(p.seat, p.cards) for p in g.trick_plays] if play else (),
           lead.type if play and lead is not None else "",
           failure.attempted if play and failure is not None else (),
           g.trick_winner if play and g.trick_plays else -1,
           g.current_points if play else 0,
           g.defender_points, [(p.seat, p.cards) for tr in g.tricks for p in tr.plays])


_PHASES = ("declare", "bury", "play", "over")
_PLAY_PHASE = 3  # TRACTOR_PHASE_PLAY: the 1-based position of "play" in _PHASES


def _write(w: Writer, kind: str | None, hand: Iterable[str], phase_value: int, variant: Sequence[bool], round_: int,
           levels: Sequence[int], trump_rank: str, trump_suit: str, declarer_team: int, starter: int,
           first_drawer: int, cards_dealt: int, final_window: bool, closed: bool, declared_by: int,
           declared: Iterable[str], kitty_flipped: Iterable[str], kitty_taken: Iterable[str],
           kitty_buried: Iterable[str], hand_sizes: Sequence[int], trick_leader: int,
           trick: Iterable[tuple[int, Iterable[str]]], lead_type: str, throw_attempted: Iterable[str],
           trick_winner: int, trick_points: int, defender_points: int,
           played: Iterable[tuple[int, Iterable[str]]]) -> None:
    """The array from plain values: ``phase_value`` the protocol's
    ``TractorPhase`` (1-based over :data:`_PHASES`), ``levels`` per team
    (2..14; 0 unknown), seats and teams -1 for none, ``trick`` and
    ``played`` as (seat, cards)."""
    common(w, kind, hand)
    phase(w, phase_value, _PHASES)
    w.flags("variant", variant,
            "variant flags notrump_rank_cards_trump, must_follow_tractor, kitty_multiplier_power, must_play_ace, "
            "no_throw_penalty")
    w.scalar("round", round_, "the round (1-based)", 0, BIG)
    me_team = w.me % 2
    w.scalar("my_level", levels[me_team], "this seat's team's level (2..14)", 0, 15)
    w.scalar("their_level", levels[1 - me_team], "the other team's level (2..14)", 0, 15)
    w.choice("trump_rank", tuple(RANKS), trump_rank, "the round's trump rank, one-hot 2..A")
    w.choice("trump_suit", SUITS, trump_suit, "the trump suit once fixed: C, D, H, S, NT")
    w.choice("declarer_team", ("mine", "theirs"),
             None if declarer_team < 0 else "mine" if declarer_team == me_team else "theirs",
             "which team declares (none until known)")
    w.seat("starter", starter, "the starter")
    w.seat("first_drawer", first_drawer, "who received the first card")
    w.scalar("cards_dealt", cards_dealt, "cards dealt so far", 0, 108)
    w.flags("window", [final_window, closed], "the final declaration window is open; the trump is fixed")
    w.seat("declared_by", declared_by, "who made the standing declaration")
    w.cards("declared", declared, "the cards of the standing declaration")
    w.cards("kitty_flipped", kitty_flipped, "the kitty cards turned up")
    w.cards("kitty_taken", kitty_taken, "the kitty this seat took (the starter only)")
    w.cards("kitty_buried", kitty_buried, "the kitty this seat buried (the starter only)")
    w.per_seat("hand_sizes", hand_sizes, "cards in each hand", 0, 33)
    w.seat("trick_leader", trick_leader, "who led the current trick")
    w.seat_cards("trick", trick, "the current trick: each seat's cards")
    w.choice("lead_type", LEAD_TYPES, lead_type, "the effective lead's type: single, pair, tractor, throw")
    w.cards("throw_attempted", throw_attempted, "the cards of a failed throw in the current trick")
    w.seat("trick_winner", trick_winner, "who is winning the current trick")
    w.scalar("trick_points", trick_points, "points in the current trick", 0, 200)
    w.scalar("defender_points", defender_points, "the defenders' points so far", -BIG, BIG)
    w.seat_cards("played", played, "cards each seat played in the completed tricks of the round")


# ----------------------------------------------------------------------------- the oracles


def _room(hand: dict[str, int], selection: dict[str, int]) -> dict[str, int]:
    """The cards of ``hand`` not selected yet."""
    return {c: k - selection.get(c, 0) for c, k in hand.items() if k > selection.get(c, 0)}


class KittyOracle:
    """Section 3: any 8 cards of the hand."""

    def __init__(self, hand: dict[str, int]):
        self.hand = hand

    def __copy__(self) -> KittyOracle:
        # spelt out: copy.copy cannot make a compiled class (setup.py) without calling __init__
        return KittyOracle(self.hand)

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        return set(_room(self.hand, selection)) if size < KITTY else set()

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        return size == KITTY

    def closed(self, selection: dict[str, int], size: int) -> bool:
        return True


class LeadOracle:
    """Section 6.3: any non-empty set of one play-suit."""

    def __init__(self, hand: dict[str, int], ctx: R.Ctx):
        self.hand, self.ctx = hand, ctx

    def __copy__(self) -> LeadOracle:
        # spelt out: copy.copy cannot make a compiled class (setup.py) without calling __init__
        return LeadOracle(self.hand, self.ctx)

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        if not size:
            return {c for c, k in self.hand.items() if k > 0}
        so = self.ctx.suit_of
        suit = so[next(iter(selection))]  # the play-suit of the cards selected
        return {c for c, k in self.hand.items() if so[c] == suit and k > selection.get(c, 0)}

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        return size > 0

    def closed(self, selection: dict[str, int], size: int) -> bool:
        return not self.addable(selection, size)


class FollowOracle:
    """Section 7, rules 1-3, for the effective ``lead``."""

    def __init__(self, hand: dict[str, int], lead: R.Lead, ctx: R.Ctx):
        self.hand, self.lead, self.ctx = hand, lead, ctx
        so = ctx.suit_of
        self.hs = {c: k for c, k in hand.items() if so[c] == lead.suit}  # HS: the hand's cards of the led suit
        self.nhs = sum(self.hs.values())
        self.need = min(lead.need, sum(1 for k in self.hs.values() if k >= 2))

    def __copy__(self) -> FollowOracle:
        # spelt out: copy.copy cannot make a compiled class (setup.py) without calling __init__
        o = FollowOracle({}, self.lead, self.ctx)
        o.hand, o.hs, o.nhs, o.need = self.hand, self.hs, self.nhs, self.need
        return o

    def _feasible(self, sel: dict[str, int], size: int) -> bool:
        """True if the selection ``sel`` (a sub-multiset of the hand) can be
        completed to a legal follow."""
        n = self.lead.n
        if size > n:
            return False
        m = n - size  # cards still to add
        so, suit = self.ctx.suit_of, self.lead.suit
        if self.nhs >= n:  # every card of the led suit; the pairs rule
            if any(so[c] != suit for c in sel):
                return False
            if not self.need:  # no pair to play (a single lead, or none held in the suit)
                return True
            pairs = completions = fresh = 0
            for c, k in self.hs.items():
                s = sel.get(c, 0)
                if s >= 2:
                    pairs += 1
                elif s == 1:
                    completions += k >= 2
                elif k >= 2:
                    fresh += 1
            done = min(completions, m)  # a completed pair costs one card, a fresh one two
            return pairs + done + min(fresh, (m - done) // 2) >= self.need
        off = sum(k for c, k in sel.items() if so[c] != suit)  # every card of the suit, then anything
        return off <= n - self.nhs

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        out = set()
        suit_only = self.nhs >= self.lead.n  # rule 1: then only cards of the led suit can be added
        for c in _room(self.hand, selection):
            if suit_only and c not in self.hs:
                continue
            selection[c] = selection.get(c, 0) + 1
            if self._feasible(selection, size + 1):
                out.add(c)
            selection[c] -= 1
            if not selection[c]:
                del selection[c]
        return out

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        return size == self.lead.n and self._feasible(selection, size)

    def closed(self, selection: dict[str, int], size: int) -> bool:
        return True


def oracle(obs: Any, kind: str, legal: Sequence[Action], complete: bool) -> Oracle | None:
    """The oracle of a Tractor decision from the seat's ``TractorObservation``
    ``obs``: ``None`` (the list oracle) when ``complete``, else the kitty,
    lead or follow oracle. ``ValueError`` for an incomplete list of another
    decision kind (the engine has none)."""
    if complete:
        return None
    hand = R.counts_of(obs.hand)
    if kind == DISCARD:
        return KittyOracle(hand)
    if kind != PLAY:
        raise ValueError(f"tractor: an incomplete legal list for a {kind} decision")
    trump = obs.trump_suit
    ctx = R.ctx_for(None if trump in ("", "NT") else trump, obs.trump_rank, obs.notrump_rank_cards_trump)
    plays = obs.current_trick.plays
    if not plays:
        return LeadOracle(hand, ctx)
    lead = R.analyze_lead(tuple(plays[0].cards), ctx)  # the effective lead (a failed throw's forced part)
    if lead is None:
        raise ValueError("tractor: the trick's lead is not one play-suit")
    return FollowOracle(hand, lead, ctx)


def state_decision(g: Any) -> tuple[tuple[Action, ...], Oracle | None]:
    """The (legal actions, card oracle) of the seat to act, read from the
    engine. A declaration prompt: the engine's list (complete). The kitty
    burial, a lead and a follow: no action without cards and the kitty,
    lead or follow oracle made from what :func:`oracle` reads in the message
    (the seat's hand, the round's card context, the effective lead), without
    the engine's list: the oracles are exact, so their masks equal those of
    a complete list (``tests/test_envs.py``). A follow under
    ``must_follow_tractor``: the engine's list when it is complete (see the
    module's docstring)."""
    if g.phase == "declare":  # PASS and every legal declaration (section 2.4)
        return g.legal_actions()[0], None
    hand = dict(g.hands[g.to_act])
    if g.phase == "bury":
        return (), KittyOracle(hand)
    if not g.trick_plays:
        return (), LeadOracle(hand, g.ctx)
    if g.must_follow_tractor:
        legal, complete = g.legal_actions()
        if complete:
            return legal, None
    return (), FollowOracle(hand, g.trick_lead, g.ctx)


# ----------------------------------------------------------------------------- kept by events


def update(arrays: list[Any], off: dict[str, int], g: Any, records: Sequence[Any]) -> bool:
    """Bring each seat's array (``arrays[s]``, ``None``: not made yet) up to
    date with one action's event records (``g`` is the state after the
    action): a card dealt (section 2.1), a declaration or a pass at a
    prompt (2.4; the final window's flag is read from ``g``), a failed
    throw (9), a play (6-8; the trick's winner and points so far are read
    from ``g``) and a trick's end (8) change the entries they name. Returns
    False for any other record (a new deal, the trump fixed, the kitty, a
    round's end): the arrays are then encoded again from the state.
    ``tests/test_envs.py`` checks the arrays equal :func:`encode_state` of
    every seat at every step."""
    trick, played, hand, sizes = off["trick"], off["played"], off["hand"], off["hand_sizes"]
    for r in records:
        t = type(r)
        if t is E.CardDealt:  # private to its seat: only that seat's hand shows the card
            left, dealt = len(g.hand_cards[r.seat]), off["cards_dealt"]
            for me, a in enumerate(arrays):
                if a is not None:
                    a[dealt] = r.index + 1
                    a[sizes + (r.seat - me) % 4] = left
            a = arrays[r.seat]
            if a is not None:
                a[hand + CARD_INDEX[r.card]] += 1
        elif t is E.DeclarePass or t is E.Declaration:
            window = g.window and not g.trump_fixed  # the last card's answer opens the final window
            for me, a in enumerate(arrays):
                if a is not None:
                    if window:
                        a[off["window"]] = 1
                    if t is E.Declaration:  # it becomes the standing declaration
                        _set_seat(a, off["declared_by"], r.seat, me)
                        _set_cards(a, off["declared"], r.cards)
        elif t is E.ThrowFailure:  # the attempted cards; the penalty moves the defenders' points
            for a in arrays:
                if a is not None:
                    _set_cards(a, off["throw_attempted"], r.attempted)
                    a[off["defender_points"]] = g.defender_points
        elif t is E.Played:
            seat, codes = r.play.seat, [CARD_INDEX[c] for c in r.play.cards]
            left = len(g.hand_cards[seat])
            winner = g.trick_winner if g.trick_plays else -1  # the trick may have ended with this play
            for me, a in enumerate(arrays):
                if a is not None:
                    base = trick + ((seat - me) % 4) * N_CARDS
                    for c in codes:
                        a[base + c] += 1
                    a[sizes + (seat - me) % 4] = left
                    if r.lead:
                        a[off["lead_type"] + LEAD_TYPES.index(r.lead_type)] = 1
                    _set_seat(a, off["trick_winner"], winner, me)
                    a[off["trick_points"]] = g.current_points
            a = arrays[seat]
            if a is not None:
                for c in codes:
                    a[hand + c] -= 1
        elif t is E.TrickEnd and g.phase == "play":  # the next trick, led by the winner (else the round ended)
            end = N_CARDS * 4
            for me, a in enumerate(arrays):
                if a is not None:
                    a[played:played + end] += a[trick:trick + end]
                    a[trick:trick + end] = 0
                    a[off["lead_type"]:off["lead_type"] + len(LEAD_TYPES)] = 0
                    a[off["throw_attempted"]:off["throw_attempted"] + N_CARDS] = 0
                    _set_seat(a, off["trick_winner"], -1, me)
                    _set_seat(a, off["trick_leader"], r.winner, me)
                    a[off["trick_points"]] = 0
                    a[off["defender_points"]] = r.defender_points
        else:
            return False
    return True


def _set_seat(a: Any, offset: int, seat: int, me: int) -> None:
    """The seat one-hot at ``offset`` of seat ``me``'s array holds ``seat`` (-1: none)."""
    a[offset:offset + 4] = 0
    if seat >= 0:
        a[offset + (seat - me) % 4] = 1


def _set_cards(a: Any, offset: int, cards: Iterable[str]) -> None:
    """The card vector at ``offset`` holds ``cards``."""
    a[offset:offset + N_CARDS] = 0
    for c in cards:
        a[offset + CARD_INDEX[c]] += 1
