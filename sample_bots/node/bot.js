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

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTOCOL_VERSION = 1;
const BOT_VERSION = '1.0.0';
// --reconnect: wait this long before the first new attempt, doubling up to the second figure (milliseconds)
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10000;
// Status codes a new connection may cure: the referee is unreachable or went away (UNAVAILABLE,
// CANCELLED when its server stopped), or still holds this token's dropped connection (ALREADY_EXISTS).
// Never retried: a bad token, a refused Hello, any other refusal.
const RETRY_CODES = [grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.ALREADY_EXISTS];

/**
 * Whether a new connection may cure the final status `st` ({code, details}) of a stream: one of
 * RETRY_CODES, or a connection torn down under the stream, which grpc-js reports as INTERNAL
 * "Received RST_STREAM ..." (for instance when the referee's server stops without its Goodbye).
 */
function mayReconnect(st) {
  if (RETRY_CODES.includes(st.code)) return true;
  return st.code === grpc.status.INTERNAL && String(st.details).startsWith('Received RST_STREAM');
}

/**
 * The details of a final status `st`, without the empty "Resolution note: " grpc-js may end them
 * with (e.g. "No connection established. Last error: ... ECONNREFUSED 127.0.0.1:1. Resolution note: ").
 */
function statusDetails(st) {
  return String(st.details || st.message).replace(/\s*Resolution note:\s*$/, '');
}

/**
 * The stderr line (without the name) for an ActionResult `r` the referee did not apply:
 * "request N rejected: FAULT RULE MESSAGE" (empty parts left out), or, for a reply naming a
 * match this connection no longer sits in (unknown_request without a match_id: the match
 * ended, for instance aborted by a referee shutting down, while the reply was on its way),
 * that the reply came after its match ended.
 */
function rejection(r) {
  if (r.fault === 'unknown_request' && !r.match_id) {
    return `reply to request ${r.request_id} came after its match ended; the referee ignored it`;
  }
  return `request ${r.request_id} rejected: ` + [r.fault, r.rule, r.message].filter((part) => part).join(' ');
}

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
  if (!opts.token) usage('no token: set REFEREE_TOKEN or pass --token');
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

/**
 * The token the referee handed over: read from the descriptor named by
 * REFEREE_TOKEN_FD (a launched bot: read to the end, then closed), else
 * REFEREE_TOKEN (a bot connecting on its own); undefined if neither is set.
 */
function tokenFromEnvironment(onError) {
  const fdText = process.env.REFEREE_TOKEN_FD;
  delete process.env.REFEREE_TOKEN_FD;
  if (fdText) {
    try {
      const fd = Number(fdText);
      const chunks = [];
      const buf = Buffer.alloc(4096);
      let n;
      while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) chunks.push(Buffer.from(buf.subarray(0, n)));
      fs.closeSync(fd);
      return Buffer.concat(chunks).toString('utf8').trim();
    } catch (e) {
      onError(`REFEREE_TOKEN_FD=${fdText}: cannot read the token from that descriptor (${e.message})`);
    }
  }
  return process.env.REFEREE_TOKEN;
}

// ----------------------------------------------------------------------- RNG
/** mulberry32: a small seeded PRNG; returns a function giving floats in [0, 1). */
function makeRng(seed) {
  let a = seed >>> 0;
  return function rng() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
/** Load cardgames.v1 from the project's protos directory; exits 1 if absent. */
function loadProtocol() {
  const protosDir = process.env.REFEREE_PROTOS || path.resolve(__dirname, '..', '..', 'protos');
  const entry = path.join(protosDir, 'cardgames', 'v1', 'referee.proto');
  if (!fs.existsSync(entry)) {
    process.stderr.write(`error: ${entry} not found; set REFEREE_PROTOS to the referee's protos/ directory\n`);
    process.exit(1);
  }
  const def = protoLoader.loadSync(entry, {
    includeDirs: [protosDir],
    keepCase: true, // field names exactly as in the .proto (match_id, request_id, ...)
    longs: String, // uint64 request_id as a decimal string: echoed back unchanged
    enums: String, // enum values by name ("DECISION_KIND_PLAY")
    defaults: true,
    oneofs: true, // a oneof's name holds the name of the field that is set
  });
  return grpc.loadPackageDefinition(def).cardgames.v1;
}

/**
 * One connection: Hello, then play until it ends. Resolves to {code, why,
 * welcomed}: the exit code, why a new connection may help (null when it would
 * not) and whether the referee welcomed this connection. `reconnecting` says
 * an earlier connection was welcomed (this welcome is reported as a return);
 * else a bot run by hand (not opts.launched) reports its first welcome.
 */
function connectAndPlay(opts, v1, creds, rng, reconnecting) {
  let resolve;
  const ended = new Promise((r) => {
    resolve = r;
  });
  const client = new v1.RefereeService(opts.referee, creds, {
    // a 4-player Dou Dizhu lead can list ~100k legal actions (several MB)
    'grpc.max_receive_message_length': 64 * 1024 * 1024,
  });
  const call = client.Connect();
  const matches = new Map(); // match_id -> MatchStarted
  let welcomed = false;
  let finished = false;

  function finish(code, why, message) {
    if (finished) return;
    finished = true;
    if (message) process.stderr.write(`${opts.name}: ${message}\n`);
    client.close();
    resolve({ code, why, welcomed });
  }

  call.on('data', (msg) => {
    switch (msg.msg) {
      case 'welcome':
        welcomed = true;
        if (reconnecting) {
          process.stderr.write(`${opts.name}: reconnected to ${opts.referee}\n`);
        } else if (!opts.launched) {
          process.stderr.write(`${opts.name}: connected to ${opts.referee}; waiting for matches\n`);
        }
        break;
      case 'match_started':
        matches.set(msg.match_started.match_id, msg.match_started);
        break;
      case 'decision_request': {
        const req = msg.decision_request;
        let action;
        try {
          action = choose(req, matches.get(req.match_id), rng);
        } catch (e) {
          process.stderr.write(`${opts.name}: heuristic failed (${e && e.message}); playing random\n`);
          action = pick(rng, req.legal_actions);
        }
        call.write({
          action_reply: {
            match_id: req.match_id,
            request_id: req.request_id,
            action: { kind: action.kind, cards: action.cards || [], amount: action.amount || 0 },
          },
        });
        break;
      }
      case 'action_result': {
        const r = msg.action_result;
        if (!r.accepted) process.stderr.write(`${opts.name}: ${rejection(r)}\n`);
        break;
      }
      case 'match_ended':
        matches.delete(msg.match_ended.match_id);
        break;
      case 'goodbye': {
        const reason = msg.goodbye.reason;
        call.end();
        finish(0, reason === 'referee shutting down' ? `Goodbye: ${reason}` : null);
        break;
      }
      default:
        break; // events and future message kinds: ignored by this bot
    }
  });
  // The stream's final gRPC status decides the exit code ('error' carries the
  // same status and comes first for non-OK codes; both are idempotent here).
  function onStatus(st) {
    if (st.code === grpc.status.OK) return finish(0, "the stream ended without the referee's Goodbye");
    const name = Object.keys(grpc.status).find((k) => grpc.status[k] === st.code) || String(st.code);
    const why = `${name}: ${statusDetails(st)}`;
    if (mayReconnect(st)) return finish(1, why);
    return finish(1, null, `connection ended: ${why}`);
  }
  call.on('error', onStatus);
  call.on('status', onStatus);

  call.write({
    hello: {
      bot_name: opts.name,
      bot_version: BOT_VERSION,
      token: opts.token,
      protocol_version: PROTOCOL_VERSION,
      games: opts.games.split(',').filter((g) => g),
      max_concurrent_matches: opts.maxMatches,
      bundle_events: true, // events ride inside the next DecisionRequest (this bot reads none of them)
    },
  });
  return ended;
}

/**
 * Play until the referee ends the connection; resolves to the exit code.
 * With opts.reconnect > 0 (seconds), connect again while connectAndPlay says
 * a new connection may help, FIRST_RETRY_MS apart doubling up to
 * MAX_RETRY_MS, until one is welcomed; after opts.reconnect seconds without a
 * welcome, give up: exit code 1.
 */
async function run(opts, v1, creds, rng) {
  const say = (line) => process.stderr.write(`${opts.name}: ${line}\n`);
  const patience = opts.reconnect;
  let lostAt = null; // performance.now() when the connection was lost; null while connected
  let delay = FIRST_RETRY_MS;
  let wasWelcomed = false; // an earlier connection was welcomed: a new welcome is a return
  for (;;) {
    const { code, why, welcomed } = await connectAndPlay(opts, v1, creds, rng, wasWelcomed);
    wasWelcomed = wasWelcomed || welcomed;
    if (why === null || patience <= 0) {
      if (why !== null && code !== 0) say(`connection ended: ${why}`);
      return code;
    }
    if (welcomed || lostAt === null) {
      const what = welcomed ? 'lost the referee' : 'cannot reach the referee';
      say(`${what} at ${opts.referee} (${why}); reconnecting for up to ${patience} s`);
      lostAt = performance.now();
      delay = FIRST_RETRY_MS;
    }
    const left = lostAt + patience * 1000 - performance.now();
    if (left <= 0) {
      say(`could not reconnect to ${opts.referee} within ${patience} s (last attempt: ${why}); giving up`);
      return 1;
    }
    await new Promise((wake) => setTimeout(wake, Math.min(delay, left)));
    delay = Math.min(2 * delay, MAX_RETRY_MS);
  }
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const seed = opts.seed !== null ? opts.seed : (Date.now() ^ (process.pid << 8)) >>> 0;
  const rng = makeRng(seed);
  const v1 = loadProtocol();
  let creds = grpc.credentials.createInsecure();
  if (opts.tlsCa) {
    let ca;
    try {
      ca = fs.readFileSync(opts.tlsCa);
    } catch (e) {
      usage(`cannot read --tls-ca file ${opts.tlsCa} (${e.message})`);
    }
    creds = grpc.credentials.createSsl(ca);
  }
  process.on('SIGINT', () => process.exit(130)); // Ctrl-C: leave quietly
  run(opts, v1, creds, rng).then((code) => {
    process.exitCode = code;
    // give a half-closed stream a moment to flush, then leave for sure
    setTimeout(() => process.exit(code), 200).unref();
  });
}

if (require.main === module) main();

module.exports = { parseArgs, makeRng, ddzShape, chooseDoudizhu, choose };
