"""Per-game decision functions of the heuristic sample bot.

Each module ``<game>.py`` exports ``choose(req: DecisionRequest) -> Action``
(protocol messages from cardgames.v1) and uses only what the request holds.
"""

from __future__ import annotations

import importlib
from typing import Callable

from cardgames.v1 import referee_pb2 as pb


def chooser(game: str) -> Callable[[pb.DecisionRequest], pb.Action] | None:
    """The heuristic for ``game``, or ``None`` if there is none."""
    try:
        return importlib.import_module(f"sample_bots.heuristics.{game}").choose
    except ModuleNotFoundError:
        return None
