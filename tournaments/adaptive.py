"""``[schedule] until = "separated"``: play until the leaderboard's order is known.

The tournament first plays its fixed schedule (``games`` repetitions, or
the sampled rounds). Then, while some adjacent pair of the leaderboard is
not separated at ``confidence`` (the probability that the upper bot is
really better, from the batch fit's covariance, :mod:`tournaments.batch`),
it adds one more *block*:

* round robin and duplicate: a new repetition of every combination that
  seats both bots of a non-separated adjacent pair, each combination in its
  whole block of seat orders (:mod:`tournaments.seatings`), on new deals
  (duplicate: one new seed for the whole block; round robin: a seed per
  match);
* sampled: for every non-separated adjacent pair, in leaderboard order, one
  group of both bots and the ``players - 2`` bots nearest them on the
  leaderboard (alternately the next above and the next below), each group
  once, in its whole block of seat orders, all on one new seed.

A group is added only whole, and only while the total stays within
``max_matches``. It stops when

* every adjacent pair is separated (``"separated"``), or
* the next block would be empty: no whole group fits the budget
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

from referee.words import plural
from tournaments.live import environment
from tournaments.rating import BoardRow, FitSummary, assemble, fit_rows
from tournaments.schedule import ScheduledMatch, balance, block_matches, build, combinations, derive_seed, repetition
from tournaments.seatings import block_size
from tournaments.spec import TournamentSpec
from tournaments.store import MatchRow


@dataclass
class Stop:
    """Why a tournament stopped: ``kind`` is ``"complete"`` (fixed schedule
    played), ``"separated"`` or ``"budget"``; ``text`` says it in a sentence."""

    kind: str
    text: str


#: the most non-separated pairs a stop line names (the leaderboard marks every one with ~)
STOP_PAIRS = 5


def describe_pairs(board: list[BoardRow], limit: int = STOP_PAIRS) -> str:
    """``"a > b (P 0.81), c > d (P 0.62)"`` for the first ``limit``
    non-separated adjacent pairs by place, then ``"and N more (...)"`` for
    the rest, so a large field's line stays short."""
    pairs = [f"{u.bot} > {lo.bot} (P {u.p_next:.2f})" for u, lo in zip(board, board[1:]) if not u.separated]
    text = ", ".join(pairs[:limit])
    if len(pairs) > limit:
        text += f" and {len(pairs) - limit} more (every one marked ~ on the leaderboard)"
    return text


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
        #: repetitions (round robin) or rounds (sampled) of the fixed schedule: blocks number on from it
        self.fixed_repetitions = max((m.repetition for m in self.matches), default=-1) + 1
        self.fixed_matches = len(self.matches)

    def plan(self) -> str:
        """The fixed schedule in a phrase, for the start of a run: ``"duplicate,
        48 matches (every bot 36 matches, pairs meet 24 times, seats within 0,
        order within 0)"``, plus what ``until`` adds."""
        spec = self.spec
        fixed = self.matches[:self.fixed_matches]
        kind = spec.schedule + (" duplicate" if spec.schedule == "sampled" and spec.duplicate else "")
        if spec.seatings != "balanced":
            kind += f" (seatings {spec.seatings})"
        text = (f"{kind}, {len(fixed)} {plural(len(fixed), 'match', 'matches')} "
                f"({balance(fixed, [b.name for b in spec.bots]).describe()})")
        if spec.until:
            text += (f", then more until every adjacent pair is separated at {spec.confidence:.0%} "
                     f"(at most {spec.max_matches})")
        return text

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
                done = len(self.matches)
                self.stop = Stop("complete", f"schedule complete: {done} {plural(done, 'match', 'matches')}")
                break
            mine = [r for r in rows if r.idx < len(self.matches)]
            fit = FitSummary.of(fit_rows(mine, names, spec.game, spec.players, spec.seed))  # no TrueSkill needed
            board = assemble(fit, {}, environment(spec.trueskill).create_rating(), spec.confidence)
            open_pairs = [(u.bot, lo.bot) for u, lo in zip(board, board[1:]) if not u.separated]
            if not open_pairs:
                done = len(self.matches)
                self.stop = Stop("separated", f"every adjacent pair separated at {spec.confidence:.0%} after "
                                 f"{done} {plural(done, 'match', 'matches')}")
                break
            block = self._block(open_pairs, [r.bot for r in board])
            if not block:
                self.stop = Stop("budget", f"budget of {spec.max_matches} {plural(spec.max_matches, 'match', 'matches')} "
                                 "reached after "
                                 f"{len(self.matches)}; not separated at {spec.confidence:.0%}: "
                                 f"{describe_pairs(board)}")
                break
            self.matches.extend(block)
            self.blocks += 1
        return self.stop

    def _block(self, open_pairs: list[tuple[str, str]], board: list[str]) -> list[ScheduledMatch]:
        spec = self.spec
        rep = self.fixed_repetitions + self.blocks
        per_group = block_size(spec.players, spec.seatings)
        room = max(0, spec.max_matches - len(self.matches)) // per_group  # whole groups that fit the budget
        if spec.schedule == "sampled":
            order = {b.name: i for i, b in enumerate(spec.bots)}
            groups: list[tuple[str, ...]] = []
            for pair in open_pairs:
                g = tuple(sorted(nearest(board, pair, spec.players), key=order.__getitem__))
                if g not in groups and len(groups) < room:
                    groups.append(g)
            seed = derive_seed(spec.seed, f"dup:{rep}")
            number = max(m.group for m in self.matches) + 1
            out: list[ScheduledMatch] = []
            for i, g in enumerate(groups):
                out.extend(block_matches(spec, g, rep, number + i, len(self.matches) + len(out), seed))
            return out
        combos = combinations(spec)
        chosen = [ci for ci, combo in enumerate(combos) if any(a in combo and b in combo for a, b in open_pairs)]
        return repetition(spec, rep, chosen[:room], len(self.matches), combos)


def nearest(board: list[str], pair: tuple[str, str], players: int) -> list[str]:
    """``pair`` (adjacent on ``board``, best first) and the ``players - 2``
    bots nearest it on the board: alternately the next above and the next
    below, the one above first."""
    top = board.index(pair[0])
    out = list(pair)
    above, below = top - 1, top + 2
    while len(out) < players:
        if above >= 0:
            out.append(board[above])
            above -= 1
        if len(out) < players and below < len(board):
            out.append(board[below])
            below += 1
    return out
