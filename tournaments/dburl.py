"""Database paths and URLs: what SQLAlchemy is given, what may be printed,
and the file behind a SQLite database (shared by the store and the
tournament file's validation, which must not open a database)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url


def url_for(database: str) -> str:
    """``"runs/x.sqlite"`` -> ``"sqlite:///runs/x.sqlite"``; ``postgresql://``
    and ``postgres://`` -> ``postgresql+psycopg://`` (psycopg 3); other URLs pass through."""
    if "://" not in database:
        return f"sqlite:///{database}"
    for prefix in ("postgresql://", "postgres://"):
        if database.startswith(prefix):
            return "postgresql+psycopg://" + database[len(prefix):]
    return database


def mask_url(database: str) -> str:
    """A database path or URL fit to print: the password replaced by ``***``."""
    if "://" not in database:
        return database
    try:
        return make_url(database).render_as_string(hide_password=True)
    except sa_exc.ArgumentError:
        return "<unparsable database URL>"


def sqlite_path(database: str) -> Path | None:
    """The file behind a SQLite path or URL (``None``: not a file-backed SQLite database)."""
    if "://" not in database:
        return Path(database)
    u = make_url(database)
    if u.get_backend_name() == "sqlite" and u.database and u.database != ":memory:":
        return Path(u.database)
    return None
