"""``referee bot from-policy MODULE:FUNCTION``: a policy over the training
environments' observations (docs/envs.md) as a bot that connects to the referee.

A *policy* is ``fn(obs) -> int``: ``obs`` is ``{"observation": float32
array, "action_mask": int8 array}`` exactly as :mod:`referee.envs` gives it,
the result an allowed index of the game's action layout. The bot computes
those arrays from each ``DecisionRequest`` it receives (the environments make
them from the same observation message), asks the policy for index steps
until they make an action, and sends that action. With ``--with KEY=VALUE``
options, ``FUNCTION`` is instead a factory called as ``FUNCTION(KEY=VALUE,
...)`` (values as strings) that returns the policy, e.g. to load weights.

Needs numpy only (no PettingZoo or Gymnasium). The bot process is the one
of :mod:`sample_bots.botlib`: ``--referee HOST:PORT`` (or ``unix:PATH``), the
token from the descriptor ``$REFEREE_TOKEN_FD`` names (a launched bot), else
``$REFEREE_TOKEN`` (or ``--token``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable

from cardgames.v1 import referee_pb2 as pb
from referee.botcommand import policy_label
from referee.protocol import action_from_pb, action_to_pb
from sample_bots import botlib

from .envs.actions import ActionLayout, IllegalIndex
from .envs.encode import Encoder, with_selection
from .envs.table import decision_for

Policy = Callable[[dict], int]
_KIND_PREFIX = "DECISION_KIND_"


def load_policy(spec: str, options: dict[str, str] | None = None) -> Policy:
    """The policy named by ``spec``, ``MODULE:FUNCTION``: ``MODULE`` an
    importable module name or a path to a ``.py`` file. With ``options``,
    ``FUNCTION(**options)`` is returned (a factory). ``ValueError`` for a
    malformed spec, ``ImportError``/``AttributeError`` when not found,
    ``TypeError`` when it is not callable."""
    module_name, sep, fn_name = spec.rpartition(":")
    if not sep or not module_name or not fn_name:
        raise ValueError(f"policy {spec!r}: expected MODULE:FUNCTION")
    if module_name.endswith(".py") or os.sep in module_name:
        path = Path(module_name).resolve()
        if not path.is_file():
            raise ImportError(f"policy module file {module_name!r} not found")
        s = importlib.util.spec_from_file_location(path.stem, path)
        assert s is not None and s.loader is not None
        module = importlib.util.module_from_spec(s)
        sys.modules[path.stem] = module
        s.loader.exec_module(module)
    else:
        module = importlib.import_module(module_name)
    fn = getattr(module, fn_name)
    if options:
        fn = fn(**options)
    if not callable(fn):
        raise TypeError(f"policy {spec!r} is not callable")
    return fn


class PolicyChooser:
    """Answers a ``DecisionRequest`` with the action ``policy`` builds index
    step by index step. A policy index the mask forbids (or an exception of
    the policy) is reported on stderr and answered with the first legal
    action, so the bot never stalls its seat."""

    def __init__(self, policy: Policy, name: str = "policy"):
        self.policy, self.name = policy, name
        self._encoders: dict[tuple[str, int], Encoder] = {}
        self._layouts: dict[str, ActionLayout] = {}

    def __call__(self, req: pb.DecisionRequest, started: pb.MatchStarted | None = None) -> pb.Action:
        game = req.observation.WhichOneof("game")
        obs = getattr(req.observation, game)
        if started is None or not started.seats:
            raise ValueError(f"{self.name}: a decision of a match whose MatchStarted was not seen")
        players = len(started.seats)
        enc = self._encoders.get((game, players))
        if enc is None:
            enc = self._encoders[game, players] = Encoder(game, players)
        layout = self._layouts.get(game)
        if layout is None:
            layout = self._layouts[game] = ActionLayout(game)
        kind = pb.DecisionKind.Name(req.kind)[len(_KIND_PREFIX):]
        legal = tuple(action_from_pb(a) for a in req.legal_actions)
        try:
            d = decision_for(layout, game, obs, kind, legal, req.legal_actions_complete)
            base = enc.encode(obs, req.seat, kind)
            while True:
                index = self.policy({"observation": with_selection(base, enc.selection, d.selection),
                                     "action_mask": d.mask()})
                action = d.push(int(index))
                if action is not None:
                    return action_to_pb(action)
        except (IllegalIndex, ValueError, TypeError, KeyError) as e:
            print(f"{self.name}: policy failed ({e}); playing the first legal action", file=sys.stderr)
            return req.legal_actions[0]


def run(spec: str, argv: list[str], options: dict[str, str] | None = None) -> int:
    """Run the bot of policy ``spec`` with botlib's command line ``argv``
    (``--referee HOST:PORT`` ...). Returns the process exit code."""
    args = botlib.parse_args(policy_label(spec), argv)
    chooser = PolicyChooser(load_policy(spec, options), args.name)
    return botlib.run(chooser, args)


__all__ = ["load_policy", "PolicyChooser", "run", "Policy"]
