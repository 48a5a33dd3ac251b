"""President in the training environments (docs/envs.md): its player count
by default, its BID indices (none), its match scores and its observation
array (written with :mod:`referee.envs.encode`). Imported only by
:mod:`referee.envs`, through :func:`referee.games.envs_module`."""

from __future__ import annotations

from typing import Any, Sequence

from referee.engine import PASS, Action, Game
from referee.envs.actions import CARD_INDEX, N_CARDS, Oracle
from referee.envs.encode import BIG, RANKS, Writer, common

from . import events as E
from .rules import RANK_OF, VARIANT_FLAGS

#: the player count of an environment made without one
PLAYERS = 4
#: the BID amounts with an index of their own: none (President has no bids)
BID_AMOUNTS: tuple[int, ...] = ()

ROLES = ("president", "vice_president", "upper_neutral", "neutral", "lower_neutral", "vice_scum", "scum",
         "super_scum")
PRESIDENT_RANKS = tuple(RANKS) + ("JK",)


def match_scores(game: Game) -> list[float]:
    """Each seat's role points so far (before the end of the match)."""
    return [float(x) for x in game.totals]  # type: ignore[attr-defined]


def encode(w: Writer, o: Any, kind: str | None) -> None:
    """The array of a ``PresidentObservation``."""
    r = o.rules
    _write(w, kind, o.hand, o.phase - 1, [getattr(r, f) for f in VARIANT_FLAGS], r.target_score, o.round, o.dealer,
           o.first_leader, o.roles, o.totals, o.last_order, o.hand_sizes,
           [c for t in o.exchange if t.from_seat == w.me for c in t.cards],
           [c for t in o.exchange if t.to_seat == w.me for c in t.cards], o.return_to, o.return_count,
           o.return_optional, o.trick_leader, o.top.count, o.top.rank, o.top_seat, o.revolution, o.passed,
           [(p.seat, p.cards) for p in o.trick], o.played, o.finished)


def encode_state(w: Writer, g: Any, kind: str | None) -> None:
    """The same array as :func:`encode` of ``view.observation(g, w.me)``,
    read from the engine's state (shared/rules/president.md section 9: the
    seat's own hand, the cards of the exchange transfers it took part in and
    the public state), without building the message."""
    me, v, pending = w.me, g.variant, g.pending
    return_to, return_count, optional = -1, 0, False
    if g.phase == "exchange":
        returner, receiver, k, opt = g.duties[g.duty_idx]
        if returner == me:
            return_to, return_count, optional = receiver, k, opt
    # a return chosen but not yet delivered (spec 5.2) is still held
    sizes = [len(h) + len(pending.get(s, ())) for s, h in enumerate(g.hands)]
    play = g.play
    playing = play is not None and g.phase == "play"
    top = play.top if playing else None
    _write(w, kind, g.hands[me], _PHASES.index(g.phase), [v[f] for f in VARIANT_FLAGS], g.params["target_score"],
           g.round, g.dealer, g.first_leader, g.roles_held, g.totals, g.prev_order or (), sizes,
           [c for t in g.exchange_log if t.from_seat == me for c in t.cards],
           [c for t in g.exchange_log if t.to_seat == me for c in t.cards], return_to, return_count, optional,
           play.leader if playing else -1, 0 if top is None else top[0], "" if top is None else top[1],
           -1 if top is None else play.last, play is not None and play.revolution, play.passed if playing else (),
           [(p.seat, p.cards) for p in play.trick] if playing else (), () if play is None else play.played,
           () if play is None else play.finished)


_PHASES = ("exchange", "play", "over")


def _write(w: Writer, kind: str | None, hand: Sequence[str], phase_index: int, flags: Sequence[bool],
           target_score: int, round_: int, dealer: int, first_leader: int, roles: Sequence[str],
           totals: Sequence[int], last_order: Sequence[int], hand_sizes: Sequence[int], given: Sequence[str],
           received: Sequence[str], return_to: int, return_count: int, return_optional: bool, trick_leader: int,
           top_count: int, top_rank: str, top_seat: int, revolution: bool, passed: Sequence[int],
           trick: Sequence[tuple[int, Sequence[str]]], played: Sequence[str], finished: Sequence[int]) -> None:
    n = w.n
    common(w, kind, hand)
    w.onehot("phase", 3, phase_index, "the phase: " + ", ".join(_PHASES))
    w.flags("rules", flags, "variant flags " + ", ".join(VARIANT_FLAGS))
    w.scalar("target_score", target_score, "role points that end the match", -BIG, BIG)
    w.scalar("round", round_, "the round (1-based)", 0, BIG)
    w.seat("dealer", dealer, "the dealer")
    w.seat("first_leader", first_leader, "who led the round's first trick")
    off = w.seg("roles", n * len(ROLES), 0, 1, "each seat's role from the previous round, one-hot per seat over "
                + ", ".join(ROLES) + " (none in round 1)")
    for s, role in enumerate(roles[:n]):
        if role in ROLES:
            w.mark(off + ((s - w.me) % n) * len(ROLES) + ROLES.index(role))
    w.per_seat("totals", totals, "each seat's role points")
    w.per_seat("last_order", _places(last_order, n) if last_order else [0] * n,
               "each seat's finishing place in the previous round (1 = first out; 0 = none)", 0, 7)
    w.per_seat("hand_sizes", hand_sizes, "cards in each hand", 0, 27)
    w.cards("given", given, "cards this seat gave in this round's exchange")
    w.cards("received", received, "cards this seat received in this round's exchange")
    w.seat("return_to", return_to, "the seat this seat must return cards to now")
    w.scalar("return_count", return_count, "how many cards to return", 0, 2)
    w.flags("return_optional", [return_optional], "the return may be a pass")
    w.seat("trick_leader", trick_leader, "who led the current trick")
    w.scalar("top_count", top_count, "cards in the top set", 0, 8)
    w.choice("top_rank", PRESIDENT_RANKS, top_rank if top_count else None,
             "the top set's effective rank: 2..A, JK (none when leading)")
    w.seat("top_seat", top_seat, "who played the top")
    w.flags("revolution", [revolution], "a revolution is in force")
    off = w.seg("passed", n, 0, 1, "seats that passed since the top was played")
    for s in passed:
        w.mark(off + (s - w.me) % n)
    w.seat_cards("trick", trick, "the current trick: cards each seat played in it")
    w.cards("played", played, "every card played this round")
    w.per_seat("finished", _places(finished, n), "each seat's place among those gone out this round (0: still in)",
               0, 7)


def _places(order: Sequence[int], n: int) -> list[int]:
    out = [0] * n
    for i, s in enumerate(order):
        if 0 <= s < n:
            out[s] = i + 1
    return out


def state_decision(g: Any) -> tuple[tuple[Action, ...], Oracle] | None:
    """The decision of the seat to act, read from the engine for a play (a
    return: ``None``, the engine's list): the actions without cards (PASS
    when there is a top, spec 6.2 step 1) and a :class:`RankOracle`, instead
    of the engine's list of every legal set."""
    if g.phase != "play":
        return None
    p = g.play
    allowed = p.rules.allowed_counts(p.top, p.revolution)
    return ((_PASS,) if p.top is not None else ()), RankOracle(p.hands[p.to_act], allowed)


_PASS = Action(PASS)


class RankOracle:
    """The card oracle of a President play at rank level: a play is ``c``
    cards of one rank ``r`` from the hand (spec 6.1), legal exactly when ``c``
    is among the counts of ``r`` that beat the top (``allowed``:
    :meth:`.rules.Rules.allowed_counts`, spec 6.2 steps 3-7), whichever
    cards of that rank are chosen. So a code is addable exactly when its rank
    is the selection's (any playable rank for an empty selection) and some
    allowed count of that rank the hand can make exceeds the selection's
    size; the masks equal those of the engine's complete list
    (``tests/test_envs.py``). ``hand``: the seat's codes."""

    __slots__ = ("_ranks",)

    def __init__(self, hand: Sequence[str], allowed: dict[str, tuple[int, ...]]):
        by_rank: dict[str, list[str]] = {}
        for c in hand:
            by_rank.setdefault(RANK_OF[c], []).append(c)
        #: playable rank -> (the hand's codes of it, the allowed counts it can make, ascending)
        self._ranks: dict[str, tuple[list[str], list[int]]] = {}
        for r, cards in by_rank.items():
            counts = [k for k in allowed[r] if k <= len(cards)]
            if counts:
                self._ranks[r] = (cards, counts)

    def __copy__(self) -> RankOracle:
        # spelt out: copy.copy cannot make a compiled class (setup.py) without calling __init__
        o = RankOracle((), {})
        o._ranks = self._ranks
        return o

    def _counts(self, selection: dict[str, int]) -> list[int]:
        """The allowed counts of the (non-empty) selection's rank."""
        return self._ranks[RANK_OF[next(iter(selection))]][1]

    def addable(self, selection: dict[str, int], size: int) -> set[str]:
        if not size:
            return {c for cards, _ in self._ranks.values() for c in cards}
        cards, counts = self._ranks[RANK_OF[next(iter(selection))]]
        return {c for c in cards if c not in selection} if counts[-1] > size else set()

    def submittable(self, selection: dict[str, int], size: int) -> bool:
        return size > 0 and size in self._counts(selection)

    def closed(self, selection: dict[str, int], size: int) -> bool:
        return self._counts(selection)[-1] <= size


def update(arrays: list[Any], off: dict[str, int], g: Any, records: Sequence[Any]) -> bool:
    """Bring each seat's array (``arrays[s]``, ``None``: not made yet) up to
    date with one play-phase action's event records (``g`` is the state after
    the action): a play (spec 6.3: its cards, the top and revolution after
    it, the seat going out), a pass (an automatic one too, spec 6.5) and a
    trick's end (spec 6.6) change the entries they name. Returns False for an
    action without records (a return that others still have to decide, spec
    5.2) and any other record (the exchange's transfers, a round's or the
    match's end): the arrays are then encoded again from the state.
    ``tests/test_envs.py`` checks the arrays equal :func:`encode_state` of
    every seat at every step."""
    if not records:
        return False
    n = g.players
    hand, trick, played, passed = off["hand"], off["trick"], off["played"], off["passed"]
    sizes, finished, revolution = off["hand_sizes"], off["finished"], off["revolution"]
    top_count, top_rank, top_seat = off["top_count"], off["top_rank"], off["top_seat"]
    ranks_end = top_rank + len(PRESIDENT_RANKS)
    for r in records:
        t = type(r)
        if t is E.Play:
            if not r.cards:  # a pass
                for me, a in enumerate(arrays):
                    if a is not None:
                        a[passed + (r.seat - me) % n] = 1
                continue
            codes = [CARD_INDEX[c] for c in r.cards]
            count, rank = r.top  # the top after a play: its count and effective rank
            rank_index = top_rank + PRESIDENT_RANKS.index(rank)
            for me, a in enumerate(arrays):
                if a is not None:
                    k = (r.seat - me) % n
                    for c in codes:  # one pack: each code once
                        a[trick + k * N_CARDS + c] = 1
                        a[played + c] = 1
                        if k == 0:
                            a[hand + c] = 0
                    a[sizes + k] = r.hand_size
                    if r.place:
                        a[finished + k] = r.place
                    a[passed:passed + n] = 0
                    a[top_count] = count
                    a[top_rank:ranks_end] = 0
                    a[rank_index] = 1
                    a[top_seat:top_seat + n] = 0
                    a[top_seat + k] = 1
                    a[revolution] = r.revolution
        elif t is E.TrickEnd:  # a new trick, led by r.leader, with no top
            leader = off["trick_leader"]
            for me, a in enumerate(arrays):
                if a is not None:
                    a[trick:trick + n * N_CARDS] = 0
                    a[passed:passed + n] = 0
                    a[top_count] = 0
                    a[top_rank:ranks_end] = 0
                    a[top_seat:top_seat + n] = 0
                    a[leader:leader + n] = 0
                    a[leader + (r.leader - me) % n] = 1
        else:
            return False
    return True
