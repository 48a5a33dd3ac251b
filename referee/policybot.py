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

A policy that fails (raises, or answers an index the mask forbids) stops
the bot with one line on stderr, exit 1: the referee records a crash whose
reason is that line. ``--on-error first-legal`` plays the first legal action
instead and counts the failures (:class:`PolicyChooser`). A policy that
cannot be loaded is one line too, exit 2.

Needs numpy only (no PettingZoo or Gymnasium). The bot process is the one
of :mod:`sample_bots.botlib`: ``--referee HOST:PORT`` (or ``unix:PATH``), the
token from the descriptor ``$REFEREE_TOKEN_FD`` names (a launched bot), else
``$REFEREE_TOKEN``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from typing import Callable, NoReturn

from cardgames.v1 import referee_pb2 as pb
from referee.botcommand import policy_file_error, policy_label, spec_shape_error
from referee.protocol import action_from_pb, action_to_pb
from sample_bots import botlib

from .envs.actions import ActionLayout, action_index
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
    if (why := spec_shape_error(spec)) is not None:
        raise ValueError(why)
    module_name, _, fn_name = spec.rpartition(":")
    if module_name.endswith(".py") or os.sep in module_name:
        if (why := policy_file_error(spec, Path.cwd())) is not None:
            raise ImportError(why)
        path = Path(module_name).resolve()
        s = importlib.util.spec_from_file_location(path.stem, path)
        assert s is not None and s.loader is not None
        module = importlib.util.module_from_spec(s)
        sys.modules[path.stem] = module
        s.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name == module_name and Path(f"{module_name}.py").is_file():
                raise ModuleNotFoundError(f"{e} (for the file, write ./{module_name}.py:{fn_name})",
                                          name=e.name) from None
            raise
    fn = getattr(module, fn_name)
    if options:
        fn = fn(**options)
    if not callable(fn):
        raise TypeError(f"policy {spec!r} is not callable")
    return fn


#: what the bot does when the policy raises (``--on-error``): stop at the first failure (the
#: referee records a crash), or play the first legal action and go on
ON_ERROR = ("stop", "first-legal")
PROG = "referee bot from-policy"


class PolicyFailed(Exception):
    """The policy raised on a request (``on_error="stop"``): ``str()`` is the
    one line the bot prints before it exits."""


def _one_line(e: BaseException, limit: int = 240) -> str:
    """``ExceptionType: message`` on one line, at most ``limit`` characters."""
    text = f"{type(e).__name__}: {' '.join(str(e).split())}".rstrip(": ")
    return text if len(text) <= limit else text[:limit - 3] + "..."


class PolicyChooser:
    """Answers a ``DecisionRequest`` with the action ``policy`` builds index
    step by index step.

    Any exception on the way (the policy raising, an index the mask
    forbids or out of range, an answer that is not an integer) is one
    *failure*, told as the line ``NAME: policy failed on request N (KIND):
    ExceptionType: message``. With ``on_error="stop"`` (the default) the
    chooser raises :class:`PolicyFailed` with that line: the bot stops, and
    the referee records a crash whose reason shows it. With
    ``on_error="first-legal"`` the line goes to stderr, the request is
    answered with its first legal action and :attr:`failures` counts it
    (:attr:`requests` counts every request). ``ValueError`` for another
    ``on_error``."""

    def __init__(self, policy: Policy, name: str = "policy", on_error: str = "stop"):
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, not {on_error!r}")
        self.policy, self.name, self.on_error = policy, name, on_error
        self.requests = self.failures = 0
        self._encoders: dict[tuple[str, int], Encoder] = {}
        self._layouts: dict[str, ActionLayout] = {}

    def __call__(self, req: pb.DecisionRequest, started: pb.MatchStarted | None = None) -> pb.Action:
        self.requests += 1
        kind = pb.DecisionKind.Name(req.kind)[len(_KIND_PREFIX):]
        try:
            return self._choose(req, started, kind)
        except Exception as e:
            line = f"{self.name}: policy failed on request {req.request_id} ({kind}): {_one_line(e)}"
            if self.on_error == "stop":
                raise PolicyFailed(line) from e
            self.failures += 1
            print(f"{line}; playing the first legal action", file=sys.stderr)
            return req.legal_actions[0]

    def _choose(self, req: pb.DecisionRequest, started: pb.MatchStarted | None, kind: str) -> pb.Action:
        game = req.observation.WhichOneof("game")
        obs = getattr(req.observation, game)
        if started is None or not started.seats:
            raise ValueError("a decision of a match whose MatchStarted was not seen")
        players = len(started.seats)
        enc = self._encoders.get((game, players))
        if enc is None:
            enc = self._encoders[game, players] = Encoder(game, players)
        layout = self._layouts.get(game)
        if layout is None:
            layout = self._layouts[game] = ActionLayout(game)
        legal = tuple(action_from_pb(a) for a in req.legal_actions)
        d = decision_for(layout, game, obs, kind, legal, req.legal_actions_complete)
        base = enc.encode(obs, req.seat, kind)
        while True:
            index = self.policy({"observation": with_selection(base, enc.selection, d.selection),
                                 "action_mask": d.mask()})
            action = d.push(action_index(index), seat=req.seat)
            if action is not None:
                return action_to_pb(action)

    def summary(self) -> str | None:
        """``NAME: policy failed on K of N requests ...`` when it failed
        at all, else ``None``."""
        if not self.failures:
            return None
        return (f"{self.name}: policy failed on {self.failures} of {self.requests} "
                f"{'request' if self.requests == 1 else 'requests'} (answered with the first legal action)")


def _policy_spec(text: str) -> str:
    """``text`` if it has the shape ``MODULE:FUNCTION`` (argparse's type check)."""
    if (why := spec_shape_error(text)) is not None:
        raise argparse.ArgumentTypeError(why)
    return text


class _OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, ``PROG: error: MESSAGE``
    (no usage block: the bot's stderr is what ``referee match`` shows as a
    crash reason); a bad policy reference without argparse's ``argument
    MODULE:FUNCTION:`` in front, since its message names it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message.removeprefix('argument MODULE:FUNCTION: ')}\n")


def _policy_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("policy", metavar="MODULE:FUNCTION", type=_policy_spec,
                    help="the policy obs -> index over the training environments' observations (docs/envs.md): "
                    "a module name or a path to a .py file, and the function's name")
    ap.add_argument("--with", dest="options", action="append", default=[], metavar="KEY=VALUE",
                    help="FUNCTION is a factory: FUNCTION(KEY=VALUE, ...) (values as strings) returns the policy; "
                    "repeatable. A relative path to an existing file is taken from the directory the match was started "
                    "from (referee match and tournaments make it absolute); run by hand, from the bot's working "
                    "directory")
    ap.add_argument("--on-error", choices=ON_ERROR, default="stop",
                    help="when the policy raises (or answers an index the mask forbids): 'stop' (default) exits "
                    "at once with one line on stderr, which the referee records as a crash; 'first-legal' "
                    "plays the first legal action, says so on stderr, and counts the failures at exit")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line of ``referee bot from-policy``: ``MODULE:FUNCTION``,
    ``--with KEY=VALUE``..., ``--on-error``, and the options of every bot
    (:func:`sample_bots.botlib.parse_args`). Exits 2 with one line
    ``referee bot from-policy: error: ...`` for a bad command line (the
    policy's shape is checked first)."""
    args = botlib.parse_args("", argv, _policy_options, prog=PROG, parser=_OneLineParser, description=(
        "Run a policy over the training environments' observations (referee.envs, docs/envs.md) as a bot. "
        "The bot's name defaults to the policy's module; the token comes from the descriptor "
        "REFEREE_TOKEN_FD names (a bot the referee launches), else REFEREE_TOKEN."))
    args.name = args.name or policy_label(args.policy)
    args.with_options = {}
    for kv in args.options:
        key, sep, value = kv.partition("=")
        if not sep or not key:
            print(f"{PROG}: error: --with {kv!r}: expected KEY=VALUE", file=sys.stderr)
            raise SystemExit(2)
        args.with_options[key] = value
    return args


def _load_error(spec: str, e: Exception) -> str:
    """The one line of a policy that cannot be loaded."""
    line = f"{PROG}: cannot load the policy {spec}: {_one_line(e)}"
    filename = getattr(e, "filename", None)
    if isinstance(e, FileNotFoundError) and isinstance(filename, str) and not os.path.isabs(filename):
        line += f" (relative paths are taken from the bot's working directory {os.getcwd()}: give absolute ones)"
    return line


def run(argv: list[str]) -> int:
    """Run the bot ``referee bot from-policy`` with command line ``argv``
    (``MODULE:FUNCTION --referee HOST:PORT ...``, see :func:`parse_args`).
    Returns the process exit code: 2 for a bad command line or a policy that
    cannot be loaded, 1 when the policy failed under ``--on-error stop``,
    else botlib's. Every error is one line on stderr."""
    args = parse_args(argv)
    try:
        policy = load_policy(args.policy, args.with_options)
    except Exception as e:
        print(_load_error(args.policy, e), file=sys.stderr)
        return 2
    chooser = PolicyChooser(policy, args.name, args.on_error)
    try:
        return botlib.run(chooser, args)
    except PolicyFailed as e:
        print(e, file=sys.stderr)
        return 1
    finally:
        if (summary := chooser.summary()) is not None:
            print(summary, file=sys.stderr)


__all__ = ["load_policy", "PolicyChooser", "PolicyFailed", "run", "parse_args", "Policy", "ON_ERROR"]
