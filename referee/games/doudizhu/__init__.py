"""Dou Dizhu, 3 and 4 players (shared/rules/doudizhu.md).

``GAME`` is the engine class; :mod:`.rules` holds the rules core shared by
the engine and :mod:`.conformance`, :mod:`.events` the event records and
:mod:`.view` what a seat is sent (protocol messages); :mod:`.meta` its
labels, roles and round lines, :mod:`.replay` the replay viewer's renderer
and :mod:`.envs` the game in the training environments.
"""

from referee.games.doudizhu.game import DouDizhu

GAME = DouDizhu

__all__ = ["GAME", "DouDizhu"]
