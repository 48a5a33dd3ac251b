"""One match of one game as the environments see it: the engine, the seat to
act, its pending :class:`~referee.envs.actions.Decision`, the observation
arrays and the rewards. Free of PettingZoo and Gymnasium; the environment
classes (:mod:`referee.envs.aec`, :mod:`referee.envs.single`) wrap it.

Rewards (docs/envs.md): after every action, each seat's reward is the change
of its match score in the game's unit (:func:`match_scores`); scores change
when a round is scored, so rewards come at the end of each round, and at
the end of the match the last reward makes the seat's rewards add up to its
``MatchResult.scores`` less its score at the start.
"""

from __future__ import annotations

import random
from typing import Any, Callable

import numpy as np

from cardgames.v1 import referee_pb2 as pb
from referee import protocol
from referee.engine import DECISION_KINDS, Action, Game, IllegalAction, seeded_rng
from referee.games import envs_module, game_class
from referee.words import plural

from .actions import ActionLayout, Decision, IllegalIndex, Oracle, action_index
from .encode import Encoder, with_selection


def match_scores(game: Game) -> list[float]:
    """Each seat's match score so far, in the game's unit (the game's
    ``match_scores``, ``referee/games/<game>/envs.py``: e.g. Dou Dizhu's
    money, Tractor's team levels). After the end: ``result().scores``."""
    if game.over:
        return [float(x) for x in game.result().scores]
    return envs_module(game.name).match_scores(game)


def split_options(game: str, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``options`` split into (variant flags, match parameters) by the game's
    defaults. ``ValueError`` naming an option that is neither."""
    cls = game_class(game)
    variant, params = {}, {}
    for k, v in options.items():
        if k in cls.variant_defaults:
            variant[k] = v
        elif k in cls.param_defaults:
            params[k] = v
        else:
            known = sorted({*cls.variant_defaults, *cls.param_defaults})
            raise ValueError(f"{game}: unknown option {k!r} (variant flags and match parameters: {', '.join(known)})")
    return variant, params


def decision_for(layout: ActionLayout, game_name: str, obs: Any, kind: str, legal: tuple[Action, ...],
                 complete: bool) -> Decision:
    """The :class:`Decision` of a seat from what its request holds: its game
    observation message ``obs``, the decision ``kind``, the legal actions and
    whether the list is complete. An incomplete list is served by the game's
    ``oracle`` (``referee/games/<game>/envs.py``); ``ValueError`` when the
    game has none."""
    oracle: Oracle | None = None
    if not complete:
        game_oracle = getattr(envs_module(game_name), "oracle", None)
        if game_oracle is None:
            raise ValueError(f"{game_name}: an incomplete legal list has no oracle")
        oracle = game_oracle(obs, kind, legal, complete)
    return Decision(layout, kind, legal, oracle)


class Table:
    """One match of ``game`` for ``players`` seats, with ``variant`` flags and
    match ``params``, driven index step by index step.

    ``illegal``: what a forbidden index does: ``"raise"``
    (:class:`~referee.envs.actions.IllegalIndex`) or ``"fallback"`` (for an
    index in the layout's range that the mask forbids, the engine's
    fallback action is played for the seat, as the referee does for an
    illegal answer, and :attr:`last_illegal` is set; an index out of range
    raises all the same). ``ValueError``
    for an unknown game, player count, option or ``illegal`` value."""

    def __init__(self, game: str, players: int | None = None, variant: dict[str, Any] | None = None,
                 params: dict[str, Any] | None = None, illegal: str = "raise"):
        if illegal not in ("raise", "fallback"):
            raise ValueError(f"illegal must be 'raise' or 'fallback', not {illegal!r}")
        self.name = game
        self.cls = game_class(game)
        self.players = envs_module(game).PLAYERS if players is None else players
        if self.players not in self.cls.player_counts:
            raise ValueError(f"{game}: {self.players} {plural(self.players, 'player')} not supported "
                             f"(allowed: {', '.join(map(str, self.cls.player_counts))})")
        self.variant, self.params = dict(variant or {}), dict(params or {})
        self.illegal = illegal
        self.layout = ActionLayout(game)
        self.encoder = Encoder(game, self.players)
        #: the game's ``state_decision(game)`` (``referee/games/<game>/envs.py``), if it has one: the
        #: actions without cards and the card oracle, read from the engine instead of its legal list
        self._state_decision = getattr(envs_module(game), "state_decision", None)
        #: the game's ``update(arrays, offsets, game, records)``: brings every seat's array up to
        #: date from one action's event records, instead of encoding it again
        self._update = envs_module(game).update
        self._arrays: list[np.ndarray | None] = [None] * self.players  # per seat, kept by _update
        self.game: Game = self.cls(self.players, self.variant, self.params, seeded_rng(0))  # checks the options
        self.decision: Decision | None = None
        self.scores = match_scores(self.game)
        self.last_illegal = False
        self.events: list[Any] = []  # the last action's event records (public and private), for render

    # -- the match -------------------------------------------------------------
    def reset(self, seed: int) -> None:
        """Start a new match whose deals follow ``seed``."""
        self.game = self.cls(self.players, self.variant, self.params, seeded_rng(seed))
        self.game.pop_events()
        self.decision = None
        self._arrays = [None] * self.players
        self.scores = match_scores(self.game)
        self.last_illegal = False
        self.events = []

    def attach(self, game: Game) -> None:
        """Drive ``game`` (a match of this table's game and player count, with
        no pending events) from its current state instead: for tests and
        tools that build a state first. ``ValueError`` for another game."""
        if game.name != self.name or game.players != self.players:
            raise ValueError(f"a {game.name} match of {game.players} players, not {self.name} of {self.players}")
        self.game = game
        self.decision = None
        self._arrays = [None] * self.players
        self.scores = match_scores(game)
        self.last_illegal = False
        self.events = []

    @property
    def to_act(self) -> int | None:
        """The seat to act, ``None`` once the match is over."""
        return self.game.to_act

    def _decision(self) -> Decision:
        d = self.decision
        if d is None:
            g = self.game
            seat = g.to_act
            assert seat is not None
            kind = g.decision_kind()
            fast = self._state_decision(g) if self._state_decision is not None else None
            if fast is not None:
                d = Decision(self.layout, kind, *fast)
            else:
                legal, complete = g.legal_actions()
                obs = None if complete else protocol.game_observation(g, seat)
                d = decision_for(self.layout, self.name, obs, kind, legal, complete)
            self.decision = d
        return d

    def _array(self, seat: int) -> np.ndarray:
        """``seat``'s array with no pending decision (the table's own: copy it
        before changing it). Kept up to date by the game's ``update``;
        encoded from the engine's state when ``update`` cannot follow an
        action's events (a new deal...)."""
        a = self._arrays[seat]
        if a is None:
            a = self._arrays[seat] = self.encoder.encode_state(self.game, seat, None)
        return a

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        """``{"observation": float32 array, "action_mask": int8 array}`` of
        ``seat``; the mask is all zeros unless ``seat`` is to act."""
        g = self.game
        if seat == g.to_act:
            d = self._decision()
            obs = with_selection(self._array(seat), self.encoder.selection, d.selection)
            obs[self.encoder.decision + DECISION_KINDS.index(d.kind)] = 1  # as encode writes it
            return {"observation": obs, "action_mask": d.mask()}
        return {"observation": self._array(seat).copy(),
                "action_mask": np.zeros(self.layout.size, dtype=np.int8)}

    def step(self, index: int) -> list[float] | None:
        """Take index step ``index`` (a Python or numpy integer) for the seat
        to act. Returns the rewards per seat when an action was sent to the
        engine, else ``None`` (a card added to the selection). Raises
        :class:`IllegalIndex` for an index out of the layout's range, and for
        one the mask forbids under ``illegal="raise"``; ``TypeError`` for a
        non-integer (:func:`~referee.envs.actions.action_index`);
        ``RuntimeError`` after the end."""
        g = self.game
        seat = g.to_act
        if seat is None:
            raise RuntimeError(f"{self.name}: the match is over: call reset()")
        index = action_index(index)
        d = self._decision()
        self.last_illegal = False
        try:
            action = d.push(index, seat)
        except IllegalIndex:
            if self.illegal == "raise" or not 0 <= index < self.layout.size:
                raise  # the fallback stands for a masked-out index, not for one outside the action space
            self.last_illegal = True
            action = g.fallback_action()
        if action is None:
            return None
        return self.apply(seat, action)

    def apply(self, seat: int, action: Action) -> list[float]:
        """Apply a whole engine action for ``seat`` (the acting seat): returns
        the rewards per seat. ``IllegalAction`` (state unchanged) if the
        engine refuses it."""
        g = self.game
        g.apply(seat, action)
        self.events = g.pop_events()
        self.decision = None
        if not self._update(self._arrays, self.encoder.offsets, g, [e.record for e in self.events]):
            self._arrays = [None] * self.players
        new = match_scores(g)
        old, self.scores = self.scores, new
        return [a - b for a, b in zip(new, old)]

    def decision_request(self, request_id: int = 1) -> pb.DecisionRequest:
        """The protocol ``DecisionRequest`` the referee would send the seat to
        act (for request policies, e.g. the sample heuristics)."""
        return protocol.decision_request(self.game, "env", request_id, 1000, 0)

    def play_request_policy(self, policy: Callable[[pb.DecisionRequest], pb.Action], request_id: int = 1) -> tuple[list[float], bool]:
        """Let ``policy`` (``DecisionRequest -> Action``, what a bot computes)
        act for the seat to act; an illegal or unreadable answer is replaced by
        the fallback action. Returns (rewards per seat, whether it was replaced)."""
        g = self.game
        seat = g.to_act
        assert seat is not None
        try:
            return self.apply(seat, protocol.action_from_pb(policy(self.decision_request(request_id)))), False
        except (IllegalAction, ValueError):
            return self.apply(seat, g.fallback_action()), True

    # -- text ------------------------------------------------------------------
    def render(self) -> str:
        """The table as text: the match's state as the seat to act sees it
        (its hand, its selection, the legal choices), or the result."""
        g = self.game
        lines = [f"{self.name} ({self.players} players), match scores: "
                 + " ".join(f"seat {s}: {x:g}" for s, x in enumerate(self.scores))]
        if self.events:
            lines.append("last events: " + "; ".join(_event_text(e.record) for e in self.events if e.to is None))
        seat = g.to_act
        if seat is None:
            r = g.result()
            lines.append("match over; ranks: " + " ".join(f"seat {s}: {k}" for s, k in enumerate(r.ranks)))
            return "\n".join(lines)
        d = self._decision()
        obs = protocol.game_observation(g, seat)
        lines.append(f"seat {seat} to act: {d.kind}; hand: {' '.join(obs.hand)}")
        if d.size:
            lines.append("selected: " + " ".join(d.selection_cards()))
        allowed = np.flatnonzero(d.mask())
        lines.append("allowed: " + ", ".join(self.layout.describe(int(i)) for i in allowed))
        return "\n".join(lines)


def _event_text(record: Any) -> str:
    fields = getattr(record, "__dataclass_fields__", {})
    parts = []
    for f in fields:
        v = getattr(record, f)
        if isinstance(v, tuple) and all(isinstance(x, str) for x in v):
            v = " ".join(v)
        if isinstance(v, (int, str)) and v != "":
            parts.append(f"{f}={v}")
    return type(record).__name__ + (" " + " ".join(parts) if parts else "")


def new_seed(rng: random.Random) -> int:
    """A match seed drawn from ``rng``."""
    return rng.getrandbits(63)
