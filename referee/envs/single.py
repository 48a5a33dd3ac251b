"""A Gymnasium single-agent environment: one learning seat, the other seats
played by given policies (docs/envs.md, "Single-agent wrapper")."""

from __future__ import annotations

import random
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from cardgames.v1 import referee_pb2 as pb
from referee.games import GAME_IDS
from referee.local import random_policy
from sample_bots.heuristics import chooser

from referee.words import did_you_mean

from .actions import action_index
from .table import Table, new_seed, split_options

#: the opponents a single-agent environment names by a word
OPPONENTS = ("heuristic", "random")


class ObservationPolicy:
    """A policy over the environments' observations: ``fn(obs) -> index``,
    ``obs`` the ``{"observation", "action_mask"}`` dict of its seat, called
    once per index step. (Any other callable among ``opponents`` is a request
    policy: ``DecisionRequest -> Action``, what a bot computes.)"""

    def __init__(self, fn: Callable[[dict], int]):
        self.fn = fn

    def __call__(self, obs: dict) -> int:
        return self.fn(obs)


def heuristic(game: str) -> Callable[[pb.DecisionRequest], pb.Action]:
    """The sample heuristic bot's ``choose`` for ``game``
    (sample_bots/heuristics/<game>.py). ``LookupError`` if there is none."""
    fn = chooser(game)
    if fn is None:
        raise LookupError(f"no sample heuristic for {game}")
    return fn


class SingleAgentEnv(gymnasium.Env):
    """Seat ``seat`` of a match of ``game`` as a Gymnasium environment.

    ``opponents``: ``"heuristic"`` (the sample heuristics in every other
    seat), ``"random"`` (uniform among the legal actions), or one policy per
    other seat in seat order: a request policy (``DecisionRequest ->
    Action``, e.g. ``sample_bots.heuristics.<game>.choose``) or an
    :class:`ObservationPolicy`. An opponent's illegal answer is replaced by
    the engine's fallback action.

    Observation space: ``Dict(observation=Box(float32), action_mask=Box(int8))``
    as in the AEC environment; action space ``Discrete`` over the game's
    index layout. ``step`` returns the seat's reward summed over everything
    that happened until it is to act again (rewards per round, in the
    game's unit); ``terminated`` at the end of the match; ``truncated``
    never. An index the mask forbids plays the engine's fallback action for
    the seat (``info["illegal_index"]``), as the referee does for an
    illegal answer (``illegal="raise"`` raises instead). ``options``: the
    game's variant flags and match parameters. ``ValueError`` for a bad
    seat, opponents list, game or option."""

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, game: str, players: int | None = None, seat: int = 0,
                 opponents: Sequence[Any] | str = "heuristic", seed: int | None = None,
                 render_mode: str | None = None, illegal: str = "fallback", **options: Any):
        variant, params = split_options(game, options)
        self.table = Table(game, players, variant, params, illegal)
        n = self.table.players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1}, not {seat}")
        self.seat = seat
        others = [s for s in range(n) if s != seat]
        if opponents == "heuristic":
            self.opponents = {s: heuristic(game) for s in others}
        elif opponents == "random":
            self.opponents = {}  # seeded per match by reset(), so that a seed gives the same match
        elif isinstance(opponents, str):
            raise ValueError(f"unknown opponents {opponents!r}{did_you_mean(opponents, OPPONENTS)}: "
                             f"'heuristic', 'random', or a list of {n - 1} policies (one per other seat)")
        else:
            opponents = list(opponents)
            if len(opponents) != n - 1:
                raise ValueError(f"{n - 1} opponents needed (seats {others}), got {len(opponents)}")
            self.opponents = dict(zip(others, opponents))
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        enc, size = self.table.encoder, self.table.layout.size
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(low=enc.low, high=enc.high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(size)
        self._seeds = random.Random(seed)
        self._random_opponents = opponents == "random"
        self._others = others
        self._request_id = 0

    def _others_act(self) -> float:
        """Play the other seats until this seat is to act or the match is over;
        returns this seat's rewards meanwhile."""
        t, total = self.table, 0.0
        while t.to_act is not None and t.to_act != self.seat:
            p = self.opponents[t.to_act]
            if isinstance(p, ObservationPolicy):
                while True:
                    seat = t.to_act
                    rewards = t.step(p(t.observe(seat)))
                    if rewards is not None:
                        break
            else:
                self._request_id += 1
                rewards, _ = t.play_request_policy(p, self._request_id)
            total += rewards[self.seat]
        return total

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start a new match (deals from ``seed``, else from the generator
        seeded by the constructor's ``seed``) and play the other seats until
        this one is to act. Returns ``(observation, info)``."""
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = random.Random(seed)
        match_seed = new_seed(self._seeds)
        self.table.reset(match_seed)
        if self._random_opponents:
            self.opponents = {s: random_policy(match_seed + s) for s in self._others}
        self._others_act()  # rewards before the seat's first decision: none (scores change at round ends)
        return self._obs(), {}

    def _obs(self) -> dict:
        return self.table.observe(self.seat)

    def step(self, action: int) -> tuple[dict, float, bool, bool, dict]:
        """Take index step ``action`` (a Python or numpy integer) for the seat,
        then play the other seats until it is to act again or the match is
        over. Returns ``(observation, reward, terminated, truncated, info)``;
        the observation after the end has an all-zero mask. ``IllegalIndex``
        for an index outside the action space (and, with ``illegal="raise"``,
        one the mask forbids), ``TypeError`` for a non-integer,
        ``RuntimeError`` once the match is over (call ``reset()``)."""
        t = self.table
        if t.to_act is None:
            raise RuntimeError("the match is over: call reset()")
        index = action_index(action)
        rewards = t.step(index)
        info: dict[str, Any] = {"illegal_index": index} if t.last_illegal else {}
        reward = 0.0
        if rewards is not None:
            reward = rewards[self.seat] + self._others_act()
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(reward), t.to_act is None, False, info

    def action_masks(self) -> np.ndarray:
        """The current action mask as booleans (the name sb3-contrib's MaskablePPO looks for)."""
        return self.table.observe(self.seat)["action_mask"].astype(bool)

    def render(self) -> str | None:
        text = self.table.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text


def gymnasium_id(game: str) -> str:
    """The Gymnasium id of ``game``'s single-agent environment:
    ``cardgame_referee/<game>-v0``, registered when this module is imported
    (``gymnasium.make("referee.envs.single:cardgame_referee/<game>-v0",
    opponents="random")`` imports it first)."""
    return f"cardgame_referee/{game}-v0"


for _game in GAME_IDS:
    gymnasium.register(id=gymnasium_id(_game), entry_point=SingleAgentEnv, kwargs={"game": _game})
