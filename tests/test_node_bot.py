"""End-to-end tests of the Node.js sample bot (``sample_bots/node/bot.js``).

Real processes over loopback gRPC: the ``referee`` CLI starts a referee,
launches the Node bot and Python bots, and plays. Skipped only when ``node``
is not installed; ``npm ci`` is run once per session if
``sample_bots/node/node_modules`` is missing (needs the npm registry).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import stop_process
from reconnectlib import (a_negative_value_is_a_usage_error, comes_back_to_a_restarted_referee_and_plays,
                          ctrl_c_while_reconnecting_exits_130, exits_without_reconnect_and_never_retries_a_bad_token,
                          reports_its_connection_and_rejections_on_stderr, says_nothing_on_connecting_when_launched)

REPO = Path(__file__).resolve().parent.parent
NODE_DIR = REPO / "sample_bots" / "node"
NODE_BOT = "node sample_bots/node/bot.js"
RANDOM_BOT = "python sample_bots/random_bot.py"
GAME = "doudizhu"

# Test-only self-signed certificate for localhost / 127.0.0.1 (P-256), valid
# 2000-01-01 .. 2100-01-01, so the TLS test needs neither openssl nor network.
TEST_CERT = """\
-----BEGIN CERTIFICATE-----
MIIBiTCCAS+gAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAlsb2NhbGhv
c3QwIBcNMDAwMTAxMDAwMDAwWhgPMjEwMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM
CWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABMiYy9mVt+LoI+8x
/ipJDSlGBtExNIgmJrQTSboMkojbT8UNHySJgHpFTe/n/alAgdU7L2mnwMsIUlkS
znsi1zqjcDBuMA8GA1UdEwEB/wQFMAMBAf8wGgYDVR0RBBMwEYIJbG9jYWxob3N0
hwR/AAABMAsGA1UdDwQEAwIChDATBgNVHSUEDDAKBggrBgEFBQcDATAdBgNVHQ4E
FgQUXoefYZ3wwx/Knsus5lcLueGA5pUwCgYIKoZIzj0EAwIDSAAwRQIgPHfNitTw
my/5JKB6hSRkmdX32sOv1UmEXEX69dx6woICIQDh8WwWCDYTXv7Q2v+Q+Z1Z/fCX
N+mCH/kHSZ2ym+TJxw==
-----END CERTIFICATE-----
"""
TEST_KEY = """\
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIx0j0qwt82do7GEK
kQO/6kADkLVO/Lbe1C06+PK6VfmhRANCAATImMvZlbfi6CPvMf4qSQ0pRgbRMTSI
Jia0E0m6DJKI20/FDR8kiYB6RU3v5/2pQIHVOy9pp8DLCFJZEs57Itc6
-----END PRIVATE KEY-----
"""


def referee_cmd() -> list[str]:
    """argv prefix running the ``referee`` CLI of this interpreter's environment."""
    script = Path(sys.executable).parent / "referee"
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from referee.cli import app; sys.argv[0] = 'referee'; app()"]


def run_referee(args: list[str], timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    """Run ``referee ARGS`` from the repository root; returns the completed process (text)."""
    return subprocess.run(referee_cmd() + args, cwd=REPO, capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="session")
def node_bot() -> str:
    """The Node bot's command line, after making sure its dependencies are installed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node not installed: the Node.js bot tests need Node.js >= 18 on PATH")
    deps = NODE_DIR / "node_modules"
    if not ((deps / "@grpc" / "grpc-js").is_dir() and (deps / "@grpc" / "proto-loader").is_dir()):
        npm = shutil.which("npm")
        assert npm, "node is installed but npm is not: cannot run `npm ci` in sample_bots/node"
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, f"npm ci failed in {NODE_DIR}:\n{r.stdout}\n{r.stderr}"
    return NODE_BOT


def test_node_bot_plays_a_full_match(node_bot: str, tmp_path: Path) -> None:
    """Node bot + two Python random bots finish a Dou Dizhu match; the Node seat has no fault."""
    r = run_referee(["match", GAME, "--param", "rounds=2", "--seed", "11", "--json", "--log-dir", str(tmp_path),
                     "--bot", f"{node_bot} --seed 1", "--bot", f"{RANDOM_BOT} --seed 2",
                     "--bot", f"{RANDOM_BOT} --seed 3"])
    assert r.returncode == 0, f"referee match failed:\n{r.stdout}\n{r.stderr}"
    out = json.loads(r.stdout)
    assert out["status"] == "complete"
    assert out["decisions"] > 0
    node_faults = [f for f in out["faults"] if f["seat"] == 0]
    assert node_faults == [], f"faults of the Node seat: {node_faults}"
    assert 0 not in out["forfeited"]
    stderr = next(tmp_path.glob("*.seat0.stderr")).read_text()
    assert "rejected" not in stderr and "connection ended" not in stderr, stderr
    assert "connected to" not in stderr, stderr  # launched: its connection is not announced


def test_node_bot_in_the_middle_seat_with_4_players(node_bot: str, tmp_path: Path) -> None:
    """Seat numbers and the 2-deck 4-player game do not confuse the bot's heuristic."""
    # a generous clock: this test is about the bot's play, and a 4-player lead can list ~100,000 actions,
    # which a loaded machine's Node process takes more than the default second to parse
    r = run_referee(["match", GAME, "--param", "rounds=1", "--seed", "5", "--json", "--log-dir", str(tmp_path),
                     "--decision-ms", "10000",
                     "--bot", f"{RANDOM_BOT} --seed 2", "--bot", f"{node_bot} --seed 4",
                     "--bot", f"{RANDOM_BOT} --seed 3", "--bot", f"{RANDOM_BOT} --seed 6"])
    assert r.returncode == 0, f"referee match failed:\n{r.stdout}\n{r.stderr}"
    out = json.loads(r.stdout)
    assert out["status"] == "complete"
    assert [f for f in out["faults"] if f["seat"] == 1] == []


def test_node_bot_reports_bad_token_and_exits_nonzero(node_bot: str, tmp_path: Path) -> None:
    """A wrong token: the referee answers UNAUTHENTICATED; the bot says so on stderr and exits 1."""
    serve = subprocess.Popen(referee_cmd() + ["serve", "--port", "0", "--log-dir", str(tmp_path)],
                             env={**os.environ, "REFEREE_ADMIN_TOKEN": "test-admin"},  # secrets never in argv
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
    try:
        line = serve.stdout.readline()
        m = re.search(r"listening on (\S+):(\d+)", line)
        assert m, f"unexpected serve output {line!r}; stderr: {serve.stderr.read() if serve.poll() else ''}"
        addr = f"127.0.0.1:{m.group(2)}"
        r = subprocess.run(["node", "sample_bots/node/bot.js", "--referee", addr, "--token", "not-a-token",
                            "--name", "nodetest"], cwd=REPO, capture_output=True, text=True, timeout=60)
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert "UNAUTHENTICATED" in r.stderr and "nodetest" in r.stderr, r.stderr
    finally:
        stop_process(serve)


def test_node_bot_reports_unreachable_referee(node_bot: str) -> None:
    """Nothing listening: a clear UNAVAILABLE message and exit status 1, not a hang; the line
    does not end with the empty "Resolution note: " grpc-js appends to such details."""
    r = subprocess.run(["node", "sample_bots/node/bot.js", "--referee", "127.0.0.1:1", "--token", "t"],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("node-bot: connection ended: UNAVAILABLE: "), r.stderr
    assert "Resolution note" not in r.stderr and not lines[0].endswith(" "), r.stderr


def test_node_bot_rejects_bad_arguments(node_bot: str) -> None:
    r = subprocess.run(["node", "sample_bots/node/bot.js", "--token", "t"], cwd=REPO, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert "--referee" in r.stderr
    r = subprocess.run(["node", "sample_bots/node/bot.js", "--referee", "127.0.0.1:1", "--token", "t",
                        "--tls-ca", "/nonexistent/ca.pem"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "cannot read --tls-ca file /nonexistent/ca.pem" in r.stderr, r.stderr


def test_mixed_language_tournament(node_bot: str, tmp_path: Path) -> None:
    """Two Python bots and the Node bot in a round robin via ``referee tournament run``.

    Depends on the tournament feature (``tournaments/``, CLI ``referee
    tournament run FILE`` and ``referee tournament status``), whose file
    format is the one of ``tournaments/examples/doudizhu.toml``.
    """
    db = tmp_path / "results.sqlite"
    toml = tmp_path / "mixed.toml"
    toml.write_text(textwrap.dedent(f"""\
        name = "mixed-languages"
        game = "{GAME}"
        players = 3
        schedule = "round_robin"
        games = 1
        seed = 7
        concurrency = 1
        database = "{db}"
        log_dir = "{tmp_path / 'logs'}"
        params = {{ rounds = 2 }}

        [clock]
        decision_ms = 2000

        [[bots]]
        name = "node-sample"
        command = "{node_bot} --seed 1"

        [[bots]]
        name = "py-random-a"
        command = "{RANDOM_BOT} --seed 2"

        [[bots]]
        name = "py-random-b"
        command = "{RANDOM_BOT} --seed 3"
        """))
    r = run_referee(["tournament", "run", str(toml), "--format", "json", "--quiet"], timeout=600)
    assert r.returncode == 0, f"tournament failed:\n{r.stdout}\n{r.stderr}"
    board = {row["bot"]: row for row in json.loads(r.stdout)}
    assert set(board) == {"node-sample", "py-random-a", "py-random-b"}
    # 3 bots, 3 seats: one combination in its 3 seat rotations, every bot in every match
    assert all(row["matches"] == 6 for row in board.values()), board
    node = board["node-sample"]
    assert (node["timeouts"], node["illegal"], node["crashes"], node["other_faults"]) == (0, 0, 0, 0), node
    st = run_referee(["tournament", "status", "mixed-languages", "--db", str(db)])
    assert st.returncode == 0, st.stderr
    assert "6/6 matches done" in st.stdout and "aborted 0" in st.stdout, st.stdout
    assert "faults of node-sample" not in st.stdout, st.stdout


def test_node_bot_heuristic_sheds_cards_and_never_beats_partner(node_bot: str) -> None:
    """The Dou Dizhu heuristic on hand-made requests (pure JS, no referee)."""
    script = textwrap.dedent("""
        const b = require('./sample_bots/node/bot.js');
        const rng = b.makeRng(1);
        const P = (cards) => ({kind: 'ACTION_KIND_PLAY', cards, amount: 0});
        const PASS = {kind: 'ACTION_KIND_PASS', cards: [], amount: 0};
        const req = (obs, legal) => ({kind: 'DECISION_KIND_PLAY', legal_actions: legal,
                                      observation: {game: 'doudizhu', doudizhu: obs}});
        const base = {players: 3, seat: 1, landlord: 0, hand_sizes: [10, 10, 10], top: [], top_seat: -1};
        const out = {};
        // leading: the longest non-bomb play, lowest rank among equals; never a bomb
        out.lead = b.choose(req(base, [P(['3S']), P(['4S','4H']), P(['5S','5H','5D','5C']),
                                       P(['9S','9H']), P(['3S','4H','5D','6C','7C'])]), null, rng).cards;
        // following the landlord: lowest non-bomb beating play
        out.follow = b.choose(req({...base, top: ['8S'], top_seat: 0},
                                  [PASS, P(['KS']), P(['9D']), P(['BJ','RJ'])]), null, rng).cards;
        // partner peasant (seat 2) on top: pass
        out.partner = b.choose(req({...base, top: ['8S'], top_seat: 2}, [PASS, P(['9D'])]), null, rng).kind;
        // only a bomb beats, opponent far from out: pass; opponent about to go out: bomb
        out.keep = b.choose(req({...base, top: ['AS'], top_seat: 0}, [PASS, P(['5S','5H','5D','5C'])]), null, rng).kind;
        out.bomb = b.choose(req({...base, top: ['AS'], top_seat: 0, hand_sizes: [2, 10, 10]},
                                [PASS, P(['5S','5H','5D','5C'])]), null, rng).cards.length;
        // other games: one of the legal actions
        const other = [P(['AH']), P(['KH'])];
        out.other = other.includes(b.choose({kind: 'DECISION_KIND_PLAY', legal_actions: other,
                                             observation: {game: 'smear'}}, {game: 'smear'}, rng));
        console.log(JSON.stringify(out));
        """)
    r = subprocess.run(["node", "-e", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["lead"] == ["3S", "4H", "5D", "6C", "7C"]
    assert out["follow"] == ["9D"]
    assert out["partner"] == "ACTION_KIND_PASS"
    assert out["keep"] == "ACTION_KIND_PASS"
    assert out["bomb"] == 4
    assert out["other"] is True


async def _play_in_process(log_dir: Path, tls: bool, plan: list[tuple[str, list[tuple[str, int]]]],
                           node_args: list[str]) -> tuple[list, int | None, int, int]:
    """Start an in-process referee (TLS or not), one Node bot process and a
    Python random bot per other seat, and play the matches of ``plan``
    concurrently: ``[(match_id, [(seat_kind, seed), ...]), ...]`` with
    seat_kind ``"node"`` (the one shared Node connection) or ``"py"``.
    Returns ``(outcomes, node exit code after Goodbye, connections the Node
    token opened, most matches seated at once on one Node connection)``."""
    from referee.bots import BotProcess
    from referee.runner import MatchSpec
    from referee.service import Referee

    ref = Referee(log_dir)
    creds = None
    if tls:
        (log_dir / "cert.pem").write_text(TEST_CERT)
        creds = (TEST_CERT.encode(), TEST_KEY.encode())
    port = await ref.start("127.0.0.1", 0, creds)
    addr = f"localhost:{port}"
    tls_args = ["--tls-ca", str(log_dir / "cert.pem")] if tls else []
    procs: list = []
    try:
        node_tok = ref.new_token("node")
        node = BotProcess(f"node {REPO / 'sample_bots' / 'node' / 'bot.js'}", "node", addr, node_tok, log_dir,
                          extra_args=tls_args + node_args).start()
        procs.append(node)
        specs, tokens = [], []
        for match_id, seats in plan:
            toks = []
            for s, (kind, seed) in enumerate(seats):
                if kind == "node":
                    toks.append(node_tok)
                else:
                    t = ref.new_token(f"py{s}")
                    procs.append(BotProcess(f"python {REPO / 'sample_bots' / 'random_bot.py'} --seed {seed}",
                                            f"{match_id}.seat{s}", addr, t, log_dir, extra_args=tls_args).start())
                    toks.append(t)
            specs.append(MatchSpec(game=GAME, players=len(seats), seed=len(specs) + 1, params={"rounds": 1},
                                   seat_names=[k for k, _ in seats], match_id=match_id, decision_ms=3000))
            tokens.append(toks)
        peak = 0  # most matches seated at once on one Node connection

        async def watch() -> None:
            nonlocal peak
            while True:
                for c in ref.tokens[node_tok].conns:
                    peak = max(peak, len(c.seats))
                await asyncio.sleep(0.005)

        watcher = asyncio.get_running_loop().create_task(watch())
        outcomes = await asyncio.gather(*(ref.play(sp, tk, 30, close_after=False) for sp, tk in zip(specs, tokens)))
        watcher.cancel()
        conns = len(ref.tokens[node_tok].conns)
        await ref.stop(1.0)  # Goodbye to every connection: the Node bot must exit 0
        rc = None
        for _ in range(100):
            rc = node.poll()
            if rc is not None:
                break
            await asyncio.sleep(0.05)
        return outcomes, rc, conns, peak
    finally:
        for p in procs:
            p.stop(0.5)
        await ref.stop(0.1)


def test_node_bot_over_tls(node_bot: str, tmp_path: Path) -> None:
    """`--tls-ca`: the Node bot verifies the referee's certificate and plays; exits 0 after Goodbye."""
    outcomes, rc, _, _ = asyncio.run(_play_in_process(
        tmp_path, True, [("tls-match", [("node", 0), ("py", 1), ("py", 2)])], ["--seed", "7"]))
    (out,) = outcomes
    assert out.status == "complete", out.status
    assert [f for f in out.faults if f.seat == 0] == []
    assert rc == 0, (rc, (tmp_path / "node.stderr").read_text())


def test_node_bot_plays_two_matches_at_once_on_one_stream(node_bot: str, tmp_path: Path) -> None:
    """`--max-matches 2`: one Node connection is seated in two concurrent matches
    (different seats), answers both by match_id/request_id, and faults in neither."""
    plan = [("mux-a", [("node", 0), ("py", 1), ("py", 2)]),
            ("mux-b", [("py", 3), ("py", 4), ("node", 0)])]
    outcomes, rc, conns, peak = asyncio.run(_play_in_process(tmp_path, False, plan, ["--max-matches", "2"]))
    assert conns == 1, "both matches must have used the same Node connection"
    assert peak == 2, "the two matches must have overlapped on that connection"
    for out, node_seat in zip(outcomes, (0, 2)):
        assert out.status == "complete", out.status
        assert [f for f in out.faults if f.seat == node_seat] == [], out.faults
    assert rc == 0, (rc, (tmp_path / "node.stderr").read_text())


@pytest.mark.parametrize("goodbye", [True, False], ids=["goodbye", "dropped"])
def test_node_bot_with_reconnect_comes_back_to_a_restarted_referee_and_plays(node_bot: str, tmp_path: Path,
                                                                              goodbye: bool) -> None:
    """`--reconnect SECONDS`, as the Python sample bots (tests/reconnectlib.py)."""
    comes_back_to_a_restarted_referee_and_plays(node_bot.split(), tmp_path, goodbye)


def test_node_bot_without_reconnect_exits_and_never_retries_a_bad_token(node_bot: str, tmp_path: Path) -> None:
    exits_without_reconnect_and_never_retries_a_bad_token(node_bot.split(), tmp_path)


def test_node_bot_ctrl_c_while_reconnecting_exits_130(node_bot: str, tmp_path: Path) -> None:
    ctrl_c_while_reconnecting_exits_130(node_bot.split(), tmp_path)


def test_node_bot_rejects_a_negative_reconnect(node_bot: str) -> None:
    a_negative_value_is_a_usage_error(node_bot.split())


def test_node_bot_reports_its_connection_and_a_reply_after_its_match_ended(node_bot: str, tmp_path: Path) -> None:
    reports_its_connection_and_rejections_on_stderr(node_bot.split(), tmp_path)


def test_node_bot_launched_says_nothing_on_connecting(node_bot: str, tmp_path: Path) -> None:
    says_nothing_on_connecting_when_launched(node_bot.split(), tmp_path)
