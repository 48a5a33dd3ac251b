"""President in the training environments (docs/envs.md): its player count
by default, its BID indices (none), its match scores and its observation
array (written with :mod:`referee.envs.encode`). Imported only by
:mod:`referee.envs`, through :func:`referee.games.envs_module`."""

from __future__ import annotations

from typing import Any, Sequence

from referee.engine import Game
from referee.envs.encode import BIG, RANKS, Writer, common, phase

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
    n = w.n
    common(w, kind, o.hand)
    phase(w, o.phase, ("exchange", "play", "over"))
    r = o.rules
    w.flags("rules", [r.bigger_sets_beat_lower, r.bigger_sets_beat_any, r.equal_rank_beats, r.equal_rank_skip,
                      r.revolution, r.jokers, r.two_high_low, r.transparent_threes, r.double_exchange],
            "variant flags bigger_sets_beat_lower, bigger_sets_beat_any, equal_rank_beats, equal_rank_skip, "
            "revolution, jokers, two_high_low, transparent_threes, double_exchange")
    w.scalar("target_score", r.target_score, "role points that end the match", -BIG, BIG)
    w.scalar("round", o.round, "the round (1-based)", 0, BIG)
    w.seat("dealer", o.dealer, "the dealer")
    w.seat("first_leader", o.first_leader, "who led the round's first trick")
    off = w.seg("roles", n * len(ROLES), 0, 1, "each seat's role from the previous round, one-hot per seat over "
                + ", ".join(ROLES) + " (none in round 1)")
    for s, role in enumerate(o.roles[:n]):
        if role in ROLES:
            w.mark(off + ((s - w.me) % n) * len(ROLES) + ROLES.index(role))
    w.per_seat("totals", o.totals, "each seat's role points")
    w.per_seat("last_order", [0] * n if not o.last_order else _places(o.last_order, n),
               "each seat's finishing place in the previous round (1 = first out; 0 = none)", 0, 7)
    w.per_seat("hand_sizes", o.hand_sizes, "cards in each hand", 0, 27)
    w.cards("given", (c for t in o.exchange if t.from_seat == w.me for c in t.cards),
            "cards this seat gave in this round's exchange")
    w.cards("received", (c for t in o.exchange if t.to_seat == w.me for c in t.cards),
            "cards this seat received in this round's exchange")
    w.seat("return_to", o.return_to, "the seat this seat must return cards to now")
    w.scalar("return_count", o.return_count, "how many cards to return", 0, 2)
    w.flags("return_optional", [o.return_optional], "the return may be a pass")
    w.seat("trick_leader", o.trick_leader, "who led the current trick")
    w.scalar("top_count", o.top.count, "cards in the top set", 0, 8)
    w.choice("top_rank", PRESIDENT_RANKS, o.top.rank if o.top.count else None,
             "the top set's effective rank: 2..A, JK (none when leading)")
    w.seat("top_seat", o.top_seat, "who played the top")
    w.flags("revolution", [o.revolution], "a revolution is in force")
    off = w.seg("passed", n, 0, 1, "seats that passed since the top was played")
    for s in o.passed:
        w.mark(off + (s - w.me) % n)
    w.seat_cards("trick", ((p.seat, p.cards) for p in o.trick), "the current trick: cards each seat played in it")
    w.cards("played", o.played, "every card played this round")
    w.per_seat("finished", _places(o.finished, n), "each seat's place among those gone out this round (0: still in)",
               0, 7)


def _places(order: Sequence[int], n: int) -> list[int]:
    out = [0] * n
    for i, s in enumerate(order):
        if 0 <= s < n:
            out[s] = i + 1
    return out
