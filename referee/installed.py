"""Where the installation's data files are: the ``.proto`` files, the
documentation and the README, from a source checkout or from an installed wheel (used by
``referee bot new`` and ``referee init``)."""

from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

import cardgames

_REPO = Path(__file__).resolve().parent.parent


def protos_dir() -> Path:
    """Absolute path of the directory holding ``cardgames/v1/*.proto``.

    ``$REFEREE_PROTOS`` if set (and only it). Otherwise the first of: the
    ``protos/`` directory beside the installed ``referee`` package (a source
    checkout or editable install), or the directory above an installed
    ``cardgames`` package if the ``.proto`` files are shipped inside
    ``cardgames/v1/``. Raises ``FileNotFoundError`` if no candidate holds
    ``cardgames/v1/referee.proto`` (then set ``REFEREE_PROTOS``).
    """
    env = os.environ.get("REFEREE_PROTOS")
    if env:
        candidates = [Path(env).expanduser().resolve()]
    else:
        candidates = [_REPO / "protos", Path(cardgames.__file__).resolve().parent.parent]
    for d in candidates:
        if (d / "cardgames" / "v1" / "referee.proto").is_file():
            return d
    where = "$REFEREE_PROTOS" if env else "the referee installation"
    raise FileNotFoundError(f"no cardgames/v1/referee.proto under {' or '.join(map(str, candidates))} ({where}); "
                            "set REFEREE_PROTOS to the directory holding the referee's .proto files")


def docs_dir() -> Path | None:
    """The installed documentation's directory, or ``None`` if there is none.

    From a wheel: ``<prefix>/share/doc/cardgame-referee/``, found through the
    distribution's list of installed files (any install scheme). From a source
    checkout: the repository's ``docs/``.
    """
    try:
        files = metadata.distribution("cardgame-referee").files or []
    except metadata.PackageNotFoundError:
        files = []
    for f in files:
        if f.name == "protocol.md" and f.parent.parts[-2:] == ("doc", "cardgame-referee"):
            return Path(f.locate()).resolve().parent
    checkout = _REPO / "docs"
    return checkout if (checkout / "protocol.md").is_file() else None


def readme_file() -> Path | None:
    """The project's README.md, or ``None`` if the installation has none.

    From a wheel: ``README.md`` in :func:`docs_dir` (the wheel installs it
    beside the guides); from a source checkout: the repository's ``README.md``.
    """
    docs = docs_dir()
    if docs is None:
        return None
    readme = docs / "README.md" if docs != _REPO / "docs" else _REPO / "README.md"
    return readme if readme.is_file() else None
