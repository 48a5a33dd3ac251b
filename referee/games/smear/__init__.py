"""Cutthroat Canadian Smear (shared/rules/smear.md): engine package.

``GAME`` is the :class:`referee.engine.Game` subclass the registry loads;
:mod:`.rules` holds the pure rule functions shared with :mod:`.conformance`,
:mod:`.events` the event records, :mod:`.view` what a seat is sent
(protocol messages), :mod:`.meta` its labels, roles and round lines,
:mod:`.replay` the replay viewer's renderer and :mod:`.envs` the game in the
training environments.
"""

from __future__ import annotations

from .game import SmearGame

GAME = SmearGame

__all__ = ["GAME", "SmearGame"]
