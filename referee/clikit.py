"""What the ``referee`` commands share (:mod:`referee.cli`,
:mod:`referee.laddercli`, :mod:`referee.webcli`, and the bot labels of
:mod:`referee.web.play`): the error console and :func:`fail`, ``KEY=VALUE``
and ``NAME=TOKEN`` parsing, secret, TLS and CA files, a seat's label from its
bot command, the bots' sandbox, the lines that say who holds a run's lease
(and what it waits for), the ``--config`` option of the commands that read a results database and the
database they read, and the ``--db`` of a printed follow-up command.

Exit statuses: 2 for a usage error (a bad option, a missing or unreadable
file), 1 when the work itself failed (a database that cannot be opened, a
match that did not complete)."""

from __future__ import annotations

import json
import os
import shlex
import socket
import ssl
import time
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from referee.botcommand import policy_label
from referee.sandbox import Sandbox, SandboxError, parse_uid_range, prepare

console = Console(stderr=True, soft_wrap=True)  # messages carry paths: never wrap them


def fail(msg: str, code: int = 2) -> NoReturn:
    """Print ``error: msg`` to stderr (the message shown as is, never read as rich
    markup: ``[[bots]]`` stays) and exit with ``code`` (2: usage, 1: the work failed)."""
    console.print(f"[red]error:[/red] {escape(msg)}")
    raise typer.Exit(code)


def os_error_text(e: OSError, doing: str) -> str:
    """An ``OSError`` as a sentence without errno: ``cannot read /x: no such file or directory``."""
    what = (e.strerror or str(e)).lower()
    return f"{doing} {e.filename}: {what}" if e.filename else f"{doing}: {what}"


def parse_kv(items: list[str] | None, what: str) -> dict:
    """``["spring=true", "rounds=3"]`` -> ``{"spring": True, "rounds": 3}`` (JSON values, else strings).
    Raises ``typer.BadParameter`` naming ``what`` for an item without ``=``."""
    out: dict = {}
    for it in items or []:
        if "=" not in it:
            raise typer.BadParameter(f"{what} must look like KEY=VALUE, got {it!r}")
        k, v = it.split("=", 1)
        try:
            out[k] = json.loads(v)
        except json.JSONDecodeError:
            out[k] = v
    return out


def parse_tokens(text: str, where: str) -> list[tuple[str, str]]:
    """``NAME=TOKEN`` entries, one per line (or separated by commas or blanks);
    ``#`` starts a comment. Raises ``ValueError`` naming ``where`` and the line."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0]
        for item in line.replace(",", " ").split():
            name, sep, tok = item.partition("=")
            if not sep or not name or not tok:
                raise ValueError(f"{where} line {n}: expected NAME=TOKEN, got {item!r}")
            out.append((name, tok))
    return out


def read_secret_file(path: Path, opt: str) -> str:
    """The text of a secret file; ``ValueError`` naming ``opt`` and the file when it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{opt} {path}: no such file") from None
    except OSError as e:
        raise ValueError(os_error_text(e, f"{opt}: cannot read")) from None
    except UnicodeDecodeError:
        raise ValueError(f"{opt} {path}: not a text file (UTF-8)") from None


def secret_file_or_exit(path: Path, opt: str) -> str:
    """:func:`read_secret_file`, exiting (2) with its message when the file cannot be read."""
    try:
        return read_secret_file(path, opt)
    except ValueError as e:
        fail(str(e))


def load_tls(cert: Path, key: Path) -> tuple[bytes, bytes]:
    """(certificate PEM, key PEM) read and checked; ``ValueError`` naming the bad file."""
    data = []
    for opt, f in (("--tls-cert", cert), ("--tls-key", key)):
        try:
            data.append(f.read_bytes())
        except FileNotFoundError:
            raise ValueError(f"{opt} {f}: no such file") from None
        except OSError as e:
            raise ValueError(os_error_text(e, f"{opt}: cannot read")) from None
    if b"-----BEGIN CERTIFICATE-----" not in data[0]:
        raise ValueError(f"--tls-cert {cert}: not a PEM certificate (no BEGIN CERTIFICATE block)")
    if b"PRIVATE KEY-----" not in data[1]:
        raise ValueError(f"--tls-key {key}: not a PEM private key (no BEGIN ... PRIVATE KEY block)")
    try:
        ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(str(cert), str(key))
    except ssl.SSLError as e:
        which = f"--tls-key {key} does not match --tls-cert {cert}" if "KEY_VALUES_MISMATCH" in str(e) \
            else f"--tls-cert {cert} / --tls-key {key}: not a valid certificate and key"
        raise ValueError(f"{which} ({e.reason or e})") from None
    return data[0], data[1]


def tls_or_exit(cert: Path | None, key: Path | None) -> tuple[bytes, bytes] | None:
    """``--tls-cert`` and ``--tls-key`` read and checked (:func:`load_tls`);
    ``None`` when neither is given; exits (2) when only one is, or on a bad file."""
    if bool(cert) != bool(key):
        fail("--tls-cert and --tls-key go together")
    if not (cert and key):
        return None
    try:
        return load_tls(cert, key)
    except ValueError as e:
        fail(str(e))


def read_ca(tls_ca: Path) -> bytes:
    """The PEM of ``--tls-ca``, checked; exits (2) naming ``--tls-ca`` when the
    file is missing, unreadable or not a PEM certificate."""
    try:
        pem = tls_ca.read_bytes()
    except FileNotFoundError:
        fail(f"--tls-ca {tls_ca}: no such file")
    except OSError as e:
        fail(os_error_text(e, "--tls-ca: cannot read"))
    if b"-----BEGIN CERTIFICATE-----" not in pem:
        fail(f"--tls-ca {tls_ca}: not a PEM certificate (no BEGIN CERTIFICATE block)")
    return pem


def bot_label(cmd: str, seat: int) -> str:
    """A seat's label from its bot command: the last argument that names a
    file (a script, a jar), else the program's name; for ``referee bot
    from-policy SPEC``, the policy's module (:func:`policy_label`); ``#seat`` appended.
    ``python sample_bots/random_bot.py`` -> ``random_bot#0``, ``sleep 60`` -> ``sleep#0``."""
    try:
        parts = shlex.split(cmd)
    except ValueError:
        parts = cmd.split()
    if not parts:
        return f"bot#{seat}"
    if "from-policy" in parts[1:-1]:  # the spec: the first MODULE:FUNCTION after it (options may come first)
        after = parts[parts.index("from-policy", 1) + 1:]
        spec = next((p for i, p in enumerate(after) if ":" in p and not p.startswith("-") and "=" not in p
                     and (i == 0 or after[i - 1] != "--referee")), after[0])
        return f"{policy_label(spec)}#{seat}"
    files = [p for p in parts[1:] if not p.startswith("-") and (Path(p).suffix or Path(p).is_file())]
    return f"{Path(files[-1] if files else parts[0]).stem}#{seat}"


def bot_sandbox(bot_uids: str, isolate_network: bool, commands: list[str], base: Path | None = None,
                labels: dict[str, str] | None = None) -> Sandbox:
    """The bots' sandbox, checked before any match (an error says how to fix it, exit 2);
    ``labels``: who runs each command, named in the error (:func:`referee.sandbox.prepare`)."""
    try:
        if bot_uids not in ("auto", "off"):
            parse_uid_range(bot_uids)
        sb = Sandbox(bot_uids, isolate_network)
        for w in prepare(sb, commands, base, labels):
            console.print(w, style="yellow", markup=False)
    except (SandboxError, ValueError) as e:
        fail(str(e))
    return sb


#: ``--config FILE`` of the commands that read a results database (:func:`reading_db`)
CONFIG_OPT = typer.Option(None, "--config", "-c", help="Tournament file: its database and name.")


def reading_db(db: str | None, config: Path | None) -> tuple[str, str | None]:
    """The database a reading command uses, and the tournament name the
    ``--config`` file gives (``None`` without one): ``--db``, else the file's
    ``database``, else ``$REFEREE_DB``, else ``runs/referee.sqlite``. Exits
    (2) when the file is missing or has a problem."""
    name = None
    if config is not None:
        from tournaments import spec as tspec

        try:
            s = tspec.load(config)
        except FileNotFoundError:
            fail(f"no such tournament file: {config}")
        except tspec.SpecError as e:
            fail(str(e))
        name = s.name
        if not db:
            db = s.database
    return db or os.environ.get("REFEREE_DB") or "runs/referee.sqlite", name


def open_store(db: str, choose: str = "--db PATH"):
    """The results database ``db`` (path or URL) opened for reading, as a
    :class:`tournaments.store.Store` (never creates one); exits (1) saying
    why it cannot be opened. ``choose``: how the command picks another
    database, named in the hint when there is none."""
    # tournaments.store loads SQLAlchemy: +180 ms on every `referee` start-up if imported at the top
    from tournaments.store import StorageError, Store, mask_url

    try:
        return Store(db, create=False)
    except StorageError as e:
        msg = str(e)
        if msg.startswith("no results database"):
            msg += f" (run a tournament first, or pass {choose})"
        fail(msg, 1)
    except Exception as e:  # a database the store cannot open: say so, no traceback
        fail(f"cannot open the results database {mask_url(db)}: {e}", 1)


def db_flag(db: str | None) -> tuple[str, str]:
    """What a printed follow-up command carries for the database ``db`` the
    user chose (``None``: none, the command finds it as this one did): the
    option, `` --db DB`` shell-quoted with a URL's password shown as ``***``,
    and the note to add after the command when the password was masked
    (``""`` if not)."""
    if not db:
        return "", ""
    # tournaments.store loads SQLAlchemy: +180 ms on every `referee` start-up if imported at the top
    from tournaments.store import mask_url

    shown = mask_url(db)
    return f" --db {shlex.quote(shown)}", " (with your password in place of ***)" if shown != db else ""


def db_from_anywhere(db: str | None) -> str | None:
    """``db`` as a printed command that first changes directory (``cd DIR &&
    ...``) must name it: a relative SQLite path made absolute (from this
    process's directory, where it was given); a URL, an absolute path and
    ``None`` as they are."""
    if not db or "://" in db or os.path.isabs(db):
        return db
    return os.path.abspath(db)


def path_flag(option: str, path: str | Path | None, here: str | None = None) -> str:
    """`` OPTION PATH`` for a printed command, shell-quoted (``""`` without
    ``path``). ``here``: a directory the path is shown relative to when it
    is under it."""
    if not path:
        return ""
    shown = str(path)
    if here is not None and not os.path.relpath(shown, here).startswith(".."):
        shown = os.path.relpath(shown, here)
    return f" {option} {shlex.quote(shown)}"


def referee_flags(addr: str | None, tls_ca: str | Path | None, here: str | None = None,
                  admin_token_file: str | Path | None = None, token_option: str = "--admin-token-file") -> str:
    """What a printed command that continues a run on a hosted referee
    carries: `` --referee HOST:PORT``, with ``tls_ca`` `` --tls-ca CA``, and
    with ``admin_token_file`` the file holding that referee's admin token
    under ``token_option`` (`` --admin-token-file FILE``; the path, never the
    token), shell-quoted (``""`` without ``addr``). ``here``: a directory the
    paths are shown relative to when under it."""
    if not addr:
        return ""
    return (f" --referee {shlex.quote(addr)}" + path_flag("--tls-ca", tls_ca, here)
            + path_flag(token_option, admin_token_file, here))


def stored_flags(stored: dict[str, Any], here: str | None = None) -> str:
    """The options the command that continues a stored tournament or ladder
    carries from its last run (``stored``: its stored spec, whose
    ``referee``, ``tls_ca``, ``admin_token_file`` and, of a ladder,
    ``referee_admin_token_file`` hold that run's options, paths absolute):
    a ladder's own `` --admin-token-file FILE``, then :func:`referee_flags`
    of the referee it played on with the file of that referee's admin token
    (``--referee-admin-token-file`` of a ladder, ``--admin-token-file`` of a
    tournament). Paths only, never a token; ``here`` as in :func:`path_flag`."""
    if stored.get("schedule") == "ladder":
        return (path_flag("--admin-token-file", stored.get("admin_token_file"), here)
                + referee_flags(stored.get("referee"), stored.get("tls_ca"), here,
                                stored.get("referee_admin_token_file"), "--referee-admin-token-file"))
    return referee_flags(stored.get("referee"), stored.get("tls_ca"), here, stored.get("admin_token_file"))


#: what a printed continue command adds when the run had its admin token from the environment
TOKEN_ENV_NOTE = " (with REFEREE_ADMIN_TOKEN set)"


def token_env_note(stored: dict[str, Any]) -> str:
    """:data:`TOKEN_ENV_NOTE` when the stored tournament's or ladder's last run
    (``stored``: its stored spec) had its admin token in ``REFEREE_ADMIN_TOKEN``
    and no token file (its ``admin_token_env``), else ``""``."""
    return TOKEN_ENV_NOTE if stored.get("admin_token_env") else ""


def lease_held_line(lease: dict) -> str:
    """The status line of a tournament's (or ladder's) live lease: its pid, host
    and the seconds since its last heartbeat."""
    host = "this host" if lease["host"] == socket.gethostname() else f"host {lease['host']}"
    return f"  lease held by pid {lease['pid']} on {host} (heartbeat {time.time() - lease['heartbeat_at']:.0f} s ago)"


def waiting_line(wait: dict) -> str:
    """The status line of a running ladder that waits (``wait``: ``what``,
    ``since``, ``until`` from :meth:`tournaments.store.Store.wait`, unix
    seconds), local times: ``  waiting for the referee at 10.0.0.5:50051
    since 14:02:11 (gives up at 14:07:11)``."""
    def clock(t: float) -> str:
        return time.strftime("%H:%M:%S", time.localtime(t))

    return f"  waiting for {wait['what']} since {clock(wait['since'])} (gives up at {clock(wait['until'])})"


def why_not_running(stale: dict | None, holder: str) -> str:
    """Why an interrupted tournament (or ladder) runs nowhere, from the lease its
    last ``holder`` ("driver", "process") left (``None``: none was left)."""
    # tournaments.store loads SQLAlchemy: +180 ms on every `referee` start-up if imported at the top
    from tournaments.store import LEASE_TTL_S

    if stale is None:
        return f"no {holder} holds its lease"
    if time.time() - stale["heartbeat_at"] > LEASE_TTL_S:
        return (f"the lease of its {holder} (pid {stale['pid']} on {stale['host']}) expired "
                f"{time.time() - stale['heartbeat_at']:.0f} s after its last heartbeat")
    return f"its {holder} (pid {stale['pid']} on {stale['host']}) is gone"
