"""The PettingZoo AEC environment over one of the five engines (docs/envs.md)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .actions import action_index
from .table import Table, new_seed


def agent_name(seat: int) -> str:
    """The agent of ``seat``: ``"seat_<seat>"``."""
    return f"seat_{seat}"


class CardGameEnv(AECEnv):
    """One agent per seat (``seat_0`` .. ``seat_<n-1>``); an episode is one
    whole match. Observations: ``{"observation": float32 array (the game's
    segments, docs/envs.md), "action_mask": int8 array}``; actions: indices of
    the game's :class:`~referee.envs.actions.ActionLayout`. Rewards: the
    change of each seat's match score, at the end of every round
    (:mod:`referee.envs.table`). Made by :func:`referee.envs.aec_env`."""

    metadata = {"render_modes": ["ansi", "human"], "name": "cardgame_referee", "is_parallelizable": True}

    def __init__(self, game: str, players: int | None = None, seed: int | None = None,
                 variant: dict[str, Any] | None = None, params: dict[str, Any] | None = None,
                 render_mode: str | None = None, illegal: str = "raise"):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.table = Table(game, players, variant, params, illegal)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"cardgame_referee_{game}")
        n = self.table.players
        self.possible_agents = [agent_name(s) for s in range(n)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        enc, size = self.table.encoder, self.table.layout.size
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=enc.low, high=enc.high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(size,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self._seeds = random.Random(seed)
        self._first_seed = seed
        self._started = False  # reset() was called: agents, rewards, agent_selection... exist

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new match: its deals follow ``seed``, or when ``None`` a
        seed drawn from the generator seeded by the constructor's ``seed``."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self.table.reset(new_seed(self._seeds))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        seat = self.table.to_act
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]
        self._started = True

    def _not_started(self) -> None:
        raise RuntimeError(f"{self.metadata['name']}: no match yet: call reset() first")

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._started:
            self._not_started()
        return self.table.observe(self._seat[agent])

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last()`` (the observation, cumulative reward,
        termination, truncation and info of :attr:`agent_selection`);
        ``RuntimeError`` before ``reset()``. Written out, not through
        ``super()``: it is on every step of a training loop."""
        if not self._started:
            self._not_started()
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action: Any) -> None:
        """Take index step ``action`` (a Python or numpy integer) for
        :attr:`agent_selection` (``None`` for an agent whose episode is
        over). Raises :class:`~referee.envs.actions.IllegalIndex` for an
        index outside the action space, and for one the mask forbids unless
        made with ``illegal="fallback"``; ``TypeError`` for a non-integer
        (``None`` included) for a live agent; ``RuntimeError`` before
        ``reset()``."""
        if not self._started:
            self._not_started()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            index = action_index(action)
        except TypeError as e:
            raise TypeError(f"{agent} is to act: {e} (None is only for an agent whose episode is over)") from None
        t = self.table
        self._cumulative_rewards[agent] = 0.0
        rewards = t.step(index)
        if t.last_illegal:
            self.infos[agent] = {"illegal_index": index}
        elif self.infos[agent]:
            self.infos[agent] = {}
        if rewards is None:  # a card selected: no reward, the same agent acts again
            for a in self.rewards:
                self.rewards[a] = 0.0
        else:
            for a, r in zip(self.possible_agents, rewards):
                self.rewards[a] = r
            self._accumulate_rewards()
            seat = t.to_act
            if seat is None:
                for a in self.agents:
                    self.terminations[a] = True
                seat = (self._seat[agent] + 1) % t.players
            self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``: returned; ``"human"``: printed)."""
        text = self.table.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
