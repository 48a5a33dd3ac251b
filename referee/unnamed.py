"""Files without a name while they are written (Linux ``O_TMPFILE``).

A bot that runs under the referee's own uid can open any file the referee
can name; a file opened with ``O_TMPFILE`` has no name (no directory entry)
until :func:`give_name` links it into its directory. The referee keeps the
live match log and a bot's captured output that way while the bot runs
(see docs/sandbox.md, "under the referee's uid").
"""

from __future__ import annotations

import os
from pathlib import Path


def open_unnamed(directory: Path, flags: int = os.O_WRONLY, mode: int = 0o600) -> int | None:
    """A descriptor of a new file without a name in ``directory`` (``flags``:
    ``os.O_WRONLY`` or ``os.O_RDWR``), or ``None`` where the file system has no
    ``O_TMPFILE`` (the caller then makes a named file)."""
    try:
        return os.open(directory, os.O_TMPFILE | flags, mode)
    except (OSError, AttributeError):  # EOPNOTSUPP, EISDIR on old kernels; not Linux
        return None


def give_name(fd: int, path: Path) -> None:
    """Link the unnamed file of descriptor ``fd`` (:func:`open_unnamed`) as
    ``path`` (in the directory it was made in), replacing a file of that name.
    Raises ``OSError`` when it cannot (the directory is gone)."""
    path = Path(path)
    path.unlink(missing_ok=True)
    proc = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        # linkat(AT_SYMLINK_FOLLOW) of the descriptor's /proc entry: what links an O_TMPFILE
        # file without CAP_DAC_READ_SEARCH (os.link with default arguments would call link(2),
        # which does not follow the /proc link)
        os.link(str(fd), path, src_dir_fd=proc, follow_symlinks=True)
    finally:
        os.close(proc)
