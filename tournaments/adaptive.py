"""``[schedule] until = "separated"``: play until the leaderboard's order is known.

The tournament first plays its fixed schedule (``games`` repetitions).
Then, while some adjacent pair of the leaderboard is not separated at
``confidence`` (the probability that the upper bot is really better, from
the batch fit's bootstrap, :mod:`tournaments.batch`), it adds one more
*block*: a new repetition of every combination that seats both bots of a
non-separated adjacent pair, each combination in all its seat rotations,
on new deals (new seeds). A combination is added only whole, and only while
the total stays within ``max_matches``. It stops when

* every adjacent pair is separated (``"separated"``), or
* the next block would be empty: no whole combination fits the budget
  (``"budget"``).

The schedule is a pure function of the file and of the stored results of
the blocks before, so it is the same on every run with the same seed and
the same match results (seeded bots), and a run killed at any point
(``kill -9``) resumes exactly: the blocks decided before are decided again,
identically, from the stored results, and only the missing matches are
played.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tournaments.rating import BoardRow, leaderboard
from tournaments.schedule import ScheduledMatch, build, combinations, repetition
from tournaments.spec import TournamentSpec
from tournaments.store import MatchRow


@dataclass
class Stop:
    """Why a tournament stopped: ``kind`` is ``"complete"`` (fixed schedule
    played), ``"separated"`` or ``"budget"``; ``text`` says it in a sentence."""

    kind: str
    text: str


def describe_pairs(board: list[BoardRow]) -> str:
    """``"a > b (P 0.81), c > d (P 0.62)"`` for the non-separated adjacent pairs."""
    return ", ".join(f"{u.bot} > {lo.bot} (P {u.p_next:.2f})"
                     for u, lo in zip(board, board[1:]) if not u.separated)


@dataclass
class AdaptiveSchedule:
    """The schedule of one tournament as far as it is decided so far.

    ``matches``: every match decided, index order; ``blocks``: how many
    blocks were added after the fixed schedule. Call :meth:`advance` with
    the stored results whenever the decided matches are all played."""

    spec: TournamentSpec
    matches: list[ScheduledMatch] = field(default_factory=list)
    blocks: int = 0
    stop: Stop | None = None

    def __post_init__(self) -> None:
        if not self.matches:
            self.matches = build(self.spec)

    def pending(self, done: set[int]) -> list[ScheduledMatch]:
        """Decided matches not yet in ``done`` (stored match indices)."""
        return [m for m in self.matches if m.index not in done]

    def advance(self, rows: list[MatchRow]) -> Stop | None:
        """Decide what comes next once every decided match is in ``rows``:
        add blocks (possibly several, when resuming) or set :attr:`stop`.
        Returns the stop, or ``None`` while matches remain to be played."""
        spec = self.spec
        names = [b.name for b in spec.bots]
        while self.stop is None:
            have = {r.idx for r in rows}
            if any(m.index not in have for m in self.matches):
                return None
            if not spec.until:
                self.stop = Stop("complete", f"schedule complete: {len(self.matches)} matches")
                break
            mine = [r for r in rows if r.idx < len(self.matches)]
            board = leaderboard(mine, names, spec.trueskill, {}, spec.game, spec.players,
                                spec.seed, spec.confidence)
            open_pairs = [(u.bot, lo.bot) for u, lo in zip(board, board[1:]) if not u.separated]
            if not open_pairs:
                self.stop = Stop("separated", f"every adjacent pair separated at {spec.confidence:.0%} after "
                                 f"{len(self.matches)} matches")
                break
            block = self._block(open_pairs)
            if not block:
                self.stop = Stop("budget", f"budget of {spec.max_matches} matches reached after "
                                 f"{len(self.matches)}; not separated at {spec.confidence:.0%}: "
                                 f"{describe_pairs(board)}")
                break
            self.matches.extend(block)
            self.blocks += 1
        return self.stop

    def _block(self, open_pairs: list[tuple[str, str]]) -> list[ScheduledMatch]:
        spec = self.spec
        rep = spec.games + self.blocks
        chosen: list[int] = []
        size = 0
        per_combo = len(repetition(spec, rep, [0], 0))
        for ci, combo in enumerate(combinations(spec)):
            if any(a in combo and b in combo for a, b in open_pairs):
                if len(self.matches) + size + per_combo <= spec.max_matches:
                    chosen.append(ci)
                    size += per_combo
        return repetition(spec, rep, chosen, len(self.matches))
