"""What a bot command line means: its argv (:func:`split_command`), where its
program and files are (:func:`resolve_command`), whether it can start at all
(:func:`check_command`), and what it must be able to read
(:func:`readable_files`). Used by :mod:`referee.bots` to launch bots and by
:mod:`referee.sandbox` to check them before a match."""

from __future__ import annotations

import ast
import errno
import os
import shlex
import shutil
import sys
from pathlib import Path

import grpc

from cardgames.v1 import referee_pb2


def split_command(command: str) -> list[str]:
    """Split a bot command line; a leading ``python``/``python3`` becomes this
    interpreter, so sample bots run in the referee's environment. Raises
    ``ValueError`` for an empty command."""
    argv = shlex.split(command)
    if not argv:
        raise ValueError("empty bot command")
    if argv[0] in ("python", "python3"):
        argv[0] = sys.executable
    return argv


_INTERPRETERS = ("python", "python3", "node", "nodejs", "ruby", "perl", "bash", "sh", "java", "deno", "bun")
_SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".rb", ".pl", ".sh", ".ts", ".jar")


def resolve_command(command: str, base: Path | None = None) -> list[str]:
    """The argv a bot command runs as: the program found on PATH or, for a
    path (``./mybot``, ``../bin/mybot``, ``.venv/bin/python``), made absolute
    against ``base`` (the directory the user ran the command from, default the
    current one); every later argument naming an existing file relative to
    ``base`` made absolute too, also as the file of a ``FILE.py:NAME``
    reference or the value of a ``KEY=FILE`` argument (``--with
    weights=runs/w.npz``). The bot's own working directory never plays a part. Raises ``ValueError`` (empty command) or ``FileNotFoundError`` /
    ``PermissionError`` naming the program."""
    argv = split_command(command)
    base = Path(base or os.getcwd()).resolve()
    prog = argv[0]
    if os.sep in prog:
        path = Path(prog) if os.path.isabs(prog) else base / prog
        if not path.is_file():
            raise FileNotFoundError(errno.ENOENT, f"program {prog!r} not found (relative paths are taken "
                                    f"from {base})", prog)
        if not os.access(path, os.X_OK):
            raise PermissionError(errno.EACCES, f"program {prog!r} is not executable", prog)
        argv[0] = os.path.normpath(str(path))
    else:
        found = shutil.which(prog)
        if found is None:
            raise FileNotFoundError(errno.ENOENT, f"program {prog!r} not found on PATH", prog)
        argv[0] = found
    return [argv[0]] + [_absolute_arg(a, base) for a in argv[1:]]


def _absolute_arg(arg: str, base: Path) -> str:
    """``arg`` with a relative path to an existing file made absolute against
    ``base``: the whole argument (``bot.py``), the file of a Python
    ``FILE.py:NAME`` reference (``referee bot from-policy ./policy.py:act``),
    or the value of ``KEY=FILE`` (``referee bot from-policy ... --with
    weights=runs/w.npz``)."""
    if arg.startswith("-") or os.path.isabs(arg):
        return arg
    if (base / arg).is_file():
        return str(base / arg)
    file, sep, name = arg.rpartition(":")
    if sep and name and file.endswith(".py") and not os.path.isabs(file) and (base / file).is_file():
        return f"{base / file}:{name}"
    key, sep, value = arg.partition("=")
    if sep and key.isidentifier() and value and not os.path.isabs(value) and (base / value).is_file():
        return f"{key}={base / value}"
    return arg


def policy_label(spec: str) -> str:
    """A bot's name from its policy reference ``MODULE:FUNCTION``: the
    module's last part or the file's stem (``mypackage.policies:load``
    -> ``policies``, ``./mypolicy.py:act`` -> ``mypolicy``), the function
    when there is no module, ``"policy"`` when there is nothing."""
    module, _, function = spec.rpartition(":")
    if module.endswith(".py") or os.sep in module:
        return Path(module).stem or function or "policy"
    return module.rpartition(".")[2] or function or "policy"


def spec_shape_error(spec: str) -> str | None:
    """Why ``spec`` is not a policy reference ``MODULE:FUNCTION``, or ``None``
    when it has that shape."""
    module, sep, function = spec.rpartition(":")
    if sep and module and function:
        return None
    return f"{spec!r} is not MODULE:FUNCTION (e.g. mypolicy.py:act or mypackage.mod:act)"


def policy_file_error(spec: str, base: Path) -> str | None:
    """Why the file of the policy reference ``spec`` (``FILE.py:FUNCTION``, or
    any ``MODULE`` with a ``/``) is missing, relative to ``base``, with a hint
    when only ``.py`` was forgotten; ``None`` when it exists or ``spec``
    names a module (not checked: the bot's Python imports it)."""
    module, _, function = spec.rpartition(":")
    if not (module.endswith(".py") or os.sep in module) or (base / module).is_file():
        return None
    why = f"policy file {module!r} not found (relative paths are taken from {base.resolve()})"
    if not module.endswith(".py") and (base / f"{module}.py").is_file():
        why += f"; did you mean {module}.py:{function}?"
    return why


def policy_function_error(spec: str, base: Path) -> str | None:
    """Why the existing policy file of ``spec`` (``FILE.py:FUNCTION``) cannot
    give the bot ``FUNCTION``: it does not parse, or nothing at its top
    level binds that name (a ``def``, a ``class``, an assignment, an
    import; also inside a top-level ``if`` or ``try``). The file is read
    with :mod:`ast`, never run. ``None`` when it parses and may bind it (a
    ``from M import *`` or a module ``__getattr__`` could), or ``spec``
    names a module or a file that is missing or unreadable (said
    elsewhere)."""
    module, _, function = spec.rpartition(":")
    path = base / module
    if not (module.endswith(".py") or os.sep in module) or not path.is_file():
        return None
    try:
        tree = ast.parse(path.read_bytes(), filename=module)
    except SyntaxError as e:
        return f"policy file {module!r} does not parse: {e.msg} (line {e.lineno})"
    except (OSError, ValueError):
        return None
    names = _top_level_names(tree.body)
    if function in names or "*" in names or "__getattr__" in names:
        return None
    defined = sorted(n for n in names if not n.startswith("_"))
    return (f"policy file {module!r} defines no {function!r} at its top level"
            + (f" (it defines: {', '.join(defined)})" if defined else ""))


def _top_level_names(body: list[ast.stmt]) -> set[str]:
    """The names the statements ``body`` of a module bind at its top level
    (``"*"`` for a star import), looking into ``if``, ``try``, ``with`` and
    loops but not into top-level functions and classes (names bound in a
    function defined inside such a block count too: the check errs towards
    letting a file through)."""
    names: set[str] = set()
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name.partition(".")[0] for a in node.names)
            continue
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(child.name)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                names.update(a.asname or a.name.partition(".")[0] for a in child.names)
    return names


def policy_module_error(spec: str, base: Path) -> str | None:
    """Why the module of the policy reference ``spec`` (``PACKAGE.MODULE:FUNCTION``)
    looks like a file path written with dots: the file ``PACKAGE/MODULE.py``
    exists relative to ``base`` but the bot, which runs in a directory of its
    own, cannot import the module (its top-level name is found by this Python
    only in ``base`` or the current directory, if at all); the reason hints at
    ``PACKAGE/MODULE.py:FUNCTION``. ``None`` otherwise: a file reference, no
    such file, or a module importable from anywhere (not imported here)."""
    module, _, function = spec.rpartition(":")
    file = module.replace(".", "/") + ".py"
    if module.endswith(".py") or os.sep in module or not (base / file).is_file():
        return None
    if _importable_elsewhere(module.partition(".")[0], base):
        return None
    return (f"policy module {module!r} cannot be imported by the bot (it runs in a directory of its own); "
            f"did you mean {file}:{function}?")


def _importable_elsewhere(name: str, base: Path) -> bool:
    """Whether this Python finds the top-level module ``name`` with ``base``
    and the current directory left off ``sys.path`` (nothing is imported)."""
    here = {base.resolve(), Path.cwd().resolve()}
    path = [p for p in sys.path if Path(p or ".").resolve() not in here]
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        try:
            if find_spec is not None and find_spec(name, path) is not None:
                return True
        except (ImportError, ValueError):
            continue
    return False


#: options of ``referee bot from-policy`` (and of every bot) that take a value
_VALUED = ("--referee", "--token", "--name", "--seed", "--tls-ca", "--games", "--max-matches", "--reconnect",
           "--with", "--on-error")


def policy_spec(argv: list[str]) -> str | None:
    """The policy reference of a ``... bot from-policy SPEC ...`` command
    line (the first argument after ``from-policy`` that is neither an option
    nor an option's value), or ``None`` for another command or none given."""
    if "from-policy" not in argv[1:] or argv[argv.index("from-policy", 1) - 1] != "bot":
        return None
    after = argv[argv.index("from-policy", 1) + 1:]
    skip = False
    for arg in after:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in _VALUED
        else:
            return arg
    return None


def with_values(argv: list[str]) -> list[tuple[str, str]]:
    """The ``(KEY, VALUE)`` pairs of the ``--with KEY=VALUE`` (or
    ``--with=KEY=VALUE``) arguments of a ``... bot from-policy ...`` command
    line, in order; ``[]`` for another command. An argument without ``=`` is
    left out (the bot refuses it itself)."""
    if "from-policy" not in argv[1:] or argv[argv.index("from-policy", 1) - 1] != "bot":
        return []
    after = argv[argv.index("from-policy", 1) + 1:]
    pairs = []
    for i, arg in enumerate(after):
        if arg.startswith("--with="):
            kv = arg.removeprefix("--with=")
        elif arg == "--with" and i + 1 < len(after):
            kv = after[i + 1]
        else:
            continue
        key, sep, value = kv.partition("=")
        if sep and key:
            pairs.append((key, value))
    return pairs


def with_file_error(argv: list[str], base: Path) -> str | None:
    """Why a ``--with KEY=FILE`` value of the from-policy command line
    ``argv`` is missing, relative to ``base``; ``None`` when every value that
    is a path (has a ``/``; a URL ``SCHEME://...`` is not) exists. Other
    values are the factory's strings and are not checked."""
    for key, value in with_values(argv):
        if os.sep in value and "://" not in value and not (base / value).exists():
            return f"--with {key}: file {value!r} not found (relative paths are taken from {base.resolve()})"
    return None


def check_command(command: str, cwd: Path | None = None) -> str | None:
    """A reason why ``command`` cannot start a bot, or ``None`` if it looks
    runnable: the program must be found (on PATH, or as a path relative to
    ``cwd``, see :func:`resolve_command`) and executable, and for an
    interpreter (``python``, ``node``, ...) a script argument that looks like
    a file (``*.py``, ``*.js``, ...) must exist, relative to ``cwd``. For
    ``referee bot from-policy SPEC``, ``SPEC`` must be ``MODULE:FUNCTION`` and
    its file, if it names one, must exist relative to ``cwd`` and bind
    ``FUNCTION`` at its top level
    (:func:`spec_shape_error`, :func:`policy_file_error`, :func:`policy_function_error`; a module name that
    is a file path written with dots is refused, :func:`policy_module_error`),
    and so must each
    ``--with KEY=VALUE`` value that is a path (:func:`with_file_error`)."""
    base = Path(cwd or os.getcwd())
    try:
        argv = resolve_command(command, base)
    except ValueError as e:
        return str(e)
    except OSError as e:
        return e.strerror
    if (spec := policy_spec(split_command(command))) is not None:
        return (spec_shape_error(spec) or policy_file_error(spec, base) or policy_function_error(spec, base)
                or policy_module_error(spec, base) or with_file_error(split_command(command), base))
    name = Path(argv[0]).name
    if name in _INTERPRETERS or name.startswith(("python", "node")):
        script = next((a for a in argv[1:] if not a.startswith("-")), None)
        if script and Path(script).suffix in _SCRIPT_SUFFIXES and not Path(script).is_file():
            return f"script {script!r} not found (relative paths are taken from {base.resolve()})"
    return None


def readable_files(argv: list[str]) -> list[str]:
    """What a bot started as ``argv`` must be able to read besides its program:
    its existing file arguments and, for this Python, the referee's protocol
    package and gRPC (the sample bots import them)."""
    files = [a for a in argv[1:] if os.path.isabs(a) and os.path.isfile(a)]
    files += [f for f, sep, _ in (a.rpartition(":") for a in argv[1:])
              if sep and f.endswith(".py") and os.path.isabs(f) and os.path.isfile(f)]
    files += [f for k, sep, f in (a.partition("=") for a in argv[1:])
              if sep and k.isidentifier() and os.path.isabs(f) and os.path.isfile(f)]
    if os.path.realpath(argv[0]) == os.path.realpath(sys.executable):
        files += [referee_pb2.__file__, grpc.__file__]
    return files
