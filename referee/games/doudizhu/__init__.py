"""Dou Dizhu, 3 and 4 players (shared/rules/doudizhu.md).

``GAME`` is the engine class; :mod:`.rules` holds the rules core shared by
the engine and :mod:`.conformance`.
"""

from referee.games.doudizhu.game import DouDizhu

GAME = DouDizhu

__all__ = ["GAME", "DouDizhu"]
