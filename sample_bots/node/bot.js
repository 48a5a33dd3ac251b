#!/usr/bin/env node
// Sample Node.js bot for the card-game referee (protocol cardgames.v1).
//
//   node sample_bots/node/bot.js --referee HOST:PORT|unix:PATH [--token T] [--name N] [--seed S]
//                                [--tls-ca FILE] [--games g1,g2] [--max-matches K] [--reconnect SECONDS]
//
// Where the token comes from: a bot the referee launches reads it from the
// inherited descriptor whose number is in REFEREE_TOKEN_FD (read to the end,
// then closed: the token is never in the environment, which /proc/<pid>/environ
// shows, nor on a command line, which every process can read); a bot
// connecting on its own takes it from REFEREE_TOKEN or, run by hand, --token.
//
// It loads the project's own .proto files at runtime (../../protos, or the
// directory named by the REFEREE_PROTOS environment variable) with
// @grpc/proto-loader, so there is no copied or generated protocol code.
//
// Behaviour: sends a Hello (protocol_version 1, games [] = every game unless
// --games) and, run by hand (not launched by the referee), says
// "NAME: connected to ADDR; waiting for matches" on stderr once welcomed;
// answers every DecisionRequest with one of its legal_actions
// (seeded RNG), echoing match_id and request_id. Dou Dizhu gets one cheap
// heuristic (see chooseDoudizhu); every other game plays uniformly at random.
// Exit status: 0 after a Goodbye or when the referee ends the stream
// normally; 1 with a message on stderr for connection errors (bad token ->
// UNAUTHENTICATED, unreachable referee -> UNAVAILABLE, ...); 2 for bad
// command-line arguments; 130 on Ctrl-C.
//
// With --reconnect SECONDS, a connection lost, a referee that cannot be
// reached or a Goodbye saying the referee shuts down is followed by new
// connections with the same Hello (0.5 s apart, doubling up to 10 s) until
// one is welcomed; after SECONDS without a welcome the bot exits 1. A refused
// Hello (bad token, ...) is never retried. Same behaviour and messages as the
// Python sample bots (sample_bots/botlib.py; docs/protocol.md, "Reconnecting
// after a dropped connection").
'use strict';

const path = require('path');
const { makeRng, tokenFromEnvironment, channelCredentials, loadProtocol, runAndExit } = require('./botlib');

const PROTOCOL_VERSION = 1;
const BOT_VERSION = '1.0.0';

// ----------------------------------------------------------------- arguments
function usage(msg) {
  process.stderr.write(
    (msg ? `error: ${msg}\n` : '') +
      'usage: node bot.js --referee HOST:PORT [--token TOKEN] [--name NAME] [--seed N]\n' +
      '                   [--tls-ca FILE] [--games g1,g2] [--max-matches K] [--reconnect SECONDS]\n'
  );
  process.exit(2);
}

/** Parse argv (`--key value` or `--key=value`) into an options object. */
function parseArgs(argv) {
  const opts = { name: 'node-bot', seed: null, tlsCa: null, games: '', maxMatches: 1, reconnect: 0 };
  const keys = {
    '--referee': 'referee', '--token': 'token', '--name': 'name', '--seed': 'seed',
    '--tls-ca': 'tlsCa', '--games': 'games', '--max-matches': 'maxMatches', '--reconnect': 'reconnect',
  };
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    let value;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      value = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (arg === '--help' || arg === '-h') usage('');
    const key = keys[arg];
    if (!key) usage(`unknown argument ${arg}`);
    if (value === undefined) {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      value = argv[++i];
    }
    opts[key] = value;
  }
  if (!opts.referee) usage('--referee HOST:PORT is required');
  // a bot the referee launched (token on REFEREE_TOKEN_FD) writes stderr to a file the referee
  // keeps, not to a person: it does not announce its first connection (see connectAndPlay)
  opts.launched = opts.token === undefined && Boolean(process.env.REFEREE_TOKEN_FD);
  if (opts.token === undefined) opts.token = tokenFromEnvironment(usage);
  if (!opts.token) usage('no token: set the environment variable REFEREE_TOKEN (a bot the referee launches gets its token on the descriptor REFEREE_TOKEN_FD names)');
  if (opts.seed !== null) {
    opts.seed = Number(opts.seed);
    if (!Number.isInteger(opts.seed)) usage('--seed must be an integer');
  }
  opts.maxMatches = Number(opts.maxMatches);
  if (!Number.isInteger(opts.maxMatches) || opts.maxMatches < 1) usage('--max-matches must be >= 1');
  opts.reconnect = Number(opts.reconnect);
  if (!Number.isFinite(opts.reconnect) || opts.reconnect < 0) usage('--reconnect SECONDS must be 0 (off) or more');
  return opts;
}

// ----------------------------------------------------------------------- RNG
/** A uniformly random element of `list`, drawn with `rng` (a makeRng function). */
function pick(rng, list) {
  return list[Math.floor(rng() * list.length)];
}

// ------------------------------------------------------ Dou Dizhu heuristic
// Rank order of shared/rules/doudizhu.md §3: 3 < 4 < ... < A < 2 < BJ < RJ.
const DDZ_RANKS = ['3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K', 'A', '2', 'BJ', 'RJ'];
const DDZ_INDEX = Object.fromEntries(DDZ_RANKS.map((r, i) => [r, i]));

function ddzRank(code) {
  return code === 'BJ' || code === 'RJ' ? code : code[0];
}

/**
 * Cheap reading of a Dou Dizhu play (cards: array of codes, players: 3|4):
 * {size, rank, bomb} where rank is the index (0..14) of the rank that orders
 * the combination (§5.3: the rank with the largest count, highest of those)
 * and bomb is true for bombs and the rocket.
 */
function ddzShape(cards, players) {
  const counts = new Map();
  for (const c of cards) {
    const r = ddzRank(c);
    counts.set(r, (counts.get(r) || 0) + 1);
  }
  let best = -1;
  let bestCount = 0;
  for (const [r, n] of counts) {
    const i = DDZ_INDEX[r];
    if (n > bestCount || (n === bestCount && i > best)) {
      best = i;
      bestCount = n;
    }
  }
  const jokersOnly = [...counts.keys()].every((r) => r === 'BJ' || r === 'RJ');
  const rocket = jokersOnly && cards.length === (players === 4 ? 4 : 2) && counts.size === 2;
  const bomb = rocket || (counts.size === 1 && bestCount >= 4 && !jokersOnly);
  return { size: cards.length, rank: best, bomb };
}

/**
 * Dou Dizhu: bid by a hand-strength count; when leading, shed the most cards
 * in one non-bomb combination (lowest rank first); when following, play the
 * lowest non-bomb combination that beats the top, never beat a partner
 * peasant, and only bomb when an opponent is close to going out. Falls back
 * to random when the observation is absent. Returns one of `legal`.
 */
function chooseDoudizhu(req, legal, rng) {
  const obs = req.observation && req.observation.doudizhu;
  if (!obs) return pick(rng, legal);
  const players = obs.players || 3;
  const passes = legal.filter((a) => a.kind === 'ACTION_KIND_PASS');
  const pass = passes.length ? passes[0] : null;

  if (req.kind === 'DECISION_KIND_BID') {
    const bids = legal.filter((a) => a.kind === 'ACTION_KIND_BID').sort((x, y) => x.amount - y.amount);
    const hand = obs.hand || [];
    let strength = 0;
    for (const c of hand) {
      const r = ddzRank(c);
      if (r === 'RJ') strength += 2;
      else if (r === 'BJ' || r === '2') strength += 1;
    }
    const byRank = new Map();
    for (const c of hand) byRank.set(ddzRank(c), (byRank.get(ddzRank(c)) || 0) + 1);
    for (const [r, n] of byRank) if (n >= 4 && r !== 'BJ' && r !== 'RJ') strength += 2;
    if (!bids.length || strength < 3) return pass || pick(rng, legal);
    return strength >= 5 ? bids[bids.length - 1] : bids[0];
  }

  const plays = legal.filter((a) => a.kind === 'ACTION_KIND_PLAY');
  if (!plays.length) return pass || pick(rng, legal);
  const shaped = plays.map((a) => ({ a, s: ddzShape(a.cards, players) }));
  const normal = shaped.filter((x) => !x.s.bomb);
  const leading = !obs.top || obs.top.length === 0;

  if (leading) {
    const pool = normal.length ? normal : shaped;
    pool.sort((x, y) => y.s.size - x.s.size || x.s.rank - y.s.rank);
    return pool[0].a;
  }

  const me = obs.seat;
  const landlord = obs.landlord;
  const topSeat = obs.top_seat;
  const partnerOnTop = landlord >= 0 && me !== landlord && topSeat !== landlord && topSeat >= 0;
  if (partnerOnTop && pass) return pass;
  if (normal.length) {
    normal.sort((x, y) => x.s.rank - y.s.rank || x.s.size - y.s.size);
    return normal[0].a;
  }
  // only bombs (or the rocket) beat the top: use one when an opponent is close to going out
  const sizes = obs.hand_sizes || [];
  const opponents = sizes
    .map((n, seat) => ({ n, seat }))
    .filter(({ seat }) => seat !== me && (me === landlord || seat === landlord));
  const danger = opponents.some(({ n }) => n <= 4);
  if (danger || !pass) {
    shaped.sort((x, y) => x.s.size - y.s.size || x.s.rank - y.s.rank);
    return shaped[0].a;
  }
  return pass;
}

/** Choose the reply to one DecisionRequest: a game heuristic, else random legal. */
function choose(req, started, rng) {
  const legal = req.legal_actions || [];
  if (!legal.length) {
    // the referee always sends at least one legal action; answer something well-formed anyway
    return { kind: 'ACTION_KIND_PASS', cards: [], amount: 0 };
  }
  const game = (started && started.game) || (req.observation && req.observation.game);
  if (game === 'doudizhu') return chooseDoudizhu(req, legal, rng);
  return pick(rng, legal);
}

// -------------------------------------------------------------- connection
// The connection itself (token, Hello, the --reconnect loop) is in botlib.js, shared with the
// skeleton `referee bot new --lang node` writes.

/**
 * The reply to one DecisionRequest: choose()'s, or a random legal action (with a line on stderr)
 * when the heuristic throws.
 */
function decide(opts, req, started, rng) {
  try {
    return choose(req, started, rng);
  } catch (e) {
    process.stderr.write(`${opts.name}: heuristic failed (${e && e.message}); playing random\n`);
    return pick(rng, req.legal_actions);
  }
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const seed = opts.seed !== null ? opts.seed : (Date.now() ^ (process.pid << 8)) >>> 0;
  const rng = makeRng(seed);
  const protosDir = process.env.REFEREE_PROTOS || path.resolve(__dirname, '..', '..', 'protos');
  const v1 = loadProtocol(protosDir, (entry) => {
    process.stderr.write(`error: ${entry} not found; set REFEREE_PROTOS to the referee's protos/ directory\n`);
    process.exit(1);
  });
  const creds = channelCredentials(opts.tlsCa, usage);
  const hello = {
    bot_name: opts.name,
    bot_version: BOT_VERSION,
    protocol_version: PROTOCOL_VERSION,
    games: opts.games.split(',').filter((g) => g),
    max_concurrent_matches: opts.maxMatches,
    bundle_events: true, // events ride inside the next DecisionRequest (this bot reads none of them)
  };
  runAndExit(opts, v1, creds, hello, (req, started) => decide(opts, req, started, rng));
}

if (require.main === module) main();

module.exports = { parseArgs, makeRng, ddzShape, chooseDoudizhu, choose };
