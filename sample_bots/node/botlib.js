// The Node.js bots' connection to the card-game referee (protocol cardgames.v1):
// required by sample_bots/node/bot.js, and pasted by `referee bot new --lang node`
// into the skeleton it writes (everything between this header and the
// `module.exports` line), so that a new bot is one file running this same code.
//
// A bot brings its arguments, its Hello and its choice of action; this code
// reads the token the referee handed over, loads the .proto files, connects,
// answers each DecisionRequest and, with --reconnect, connects again when the
// referee goes away (docs/protocol.md, "Reconnecting after a dropped connection").
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// --reconnect: wait this long before the first new attempt, doubling up to the second figure (milliseconds)
const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 10000;
// Status codes a new connection may cure: the referee is unreachable or went away (UNAVAILABLE,
// CANCELLED when its server stopped), or still holds this token's dropped connection (ALREADY_EXISTS).
// Never retried: a bad token, a refused Hello, any other refusal.
const RETRY_CODES = [grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.ALREADY_EXISTS];

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

/**
 * The token the referee handed over: read from the descriptor named by
 * REFEREE_TOKEN_FD (a launched bot: read to the end, then closed), else
 * REFEREE_TOKEN (a bot connecting on its own); undefined if neither is set.
 * A descriptor that cannot be read calls onError(message), which must not return.
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

/**
 * The channel credentials for --tls-ca FILE: TLS trusting the CA in that PEM file, or plain
 * TCP when tlsCa is empty. When the file cannot be read, calls onError(message), which must
 * not return.
 */
function channelCredentials(tlsCa, onError) {
  if (!tlsCa) return grpc.credentials.createInsecure();
  let ca;
  try {
    ca = fs.readFileSync(tlsCa);
  } catch (e) {
    onError(`cannot read --tls-ca file ${tlsCa} (${e.message})`);
  }
  return grpc.credentials.createSsl(ca);
}

/**
 * Load cardgames.v1 from the directory protosDir (holding cardgames/v1/referee.proto); returns
 * the package's gRPC definitions. When that file is absent, calls onMissing(entry) (its path),
 * which must not return.
 */
function loadProtocol(protosDir, onMissing) {
  const entry = path.join(protosDir, 'cardgames', 'v1', 'referee.proto');
  if (!fs.existsSync(entry)) onMissing(entry);
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

/**
 * One connection: Hello, then play until it ends. Resolves to {code, why,
 * welcomed}: the exit code, why a new connection may help (null when it would
 * not) and whether the referee welcomed this connection.
 *
 * opts: {referee (address), name (stderr prefix), token, launched (the referee
 * launched this bot: its first welcome goes unannounced)}; hello: the Hello's
 * fields besides the token (bot_name, bot_version, protocol_version, games,
 * ...); decide(req, started): the Action {kind, cards, amount} answering the
 * DecisionRequest req of the match whose MatchStarted is started.
 * `reconnecting` says an earlier connection was welcomed (this welcome is
 * reported as a return).
 */
function connectAndPlay(opts, v1, creds, hello, decide, reconnecting) {
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
        } else if (!opts.launched) { // a launched bot's stderr goes to a file, not to a person
          process.stderr.write(`${opts.name}: connected to ${opts.referee}; waiting for matches\n`);
        }
        break;
      case 'match_started':
        matches.set(msg.match_started.match_id, msg.match_started);
        break;
      case 'decision_request': {
        const req = msg.decision_request;
        const action = decide(req, matches.get(req.match_id));
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
        break; // events and future message kinds need no answer
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

  call.write({ hello: { ...hello, token: opts.token } });
  return ended;
}

/**
 * Play until the referee ends the connection; resolves to the exit code.
 * With opts.reconnect > 0 (seconds), connect again while connectAndPlay says
 * a new connection may help, FIRST_RETRY_MS apart doubling up to
 * MAX_RETRY_MS, until one is welcomed; after opts.reconnect seconds without a
 * welcome, give up: exit code 1. Arguments as for connectAndPlay.
 */
async function run(opts, v1, creds, hello, decide) {
  const say = (line) => process.stderr.write(`${opts.name}: ${line}\n`);
  const patience = opts.reconnect;
  let lostAt = null; // performance.now() when the connection was lost; null while connected
  let delay = FIRST_RETRY_MS;
  let wasWelcomed = false; // an earlier connection was welcomed: a new welcome is a return
  for (;;) {
    const { code, why, welcomed } = await connectAndPlay(opts, v1, creds, hello, decide, wasWelcomed);
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

/**
 * The process's whole life once the arguments are read: Ctrl-C exits 130 quietly; run() plays
 * (arguments as for connectAndPlay), then the process exits with run()'s code.
 */
function runAndExit(opts, v1, creds, hello, decide) {
  process.on('SIGINT', () => process.exit(130)); // Ctrl-C: leave quietly
  run(opts, v1, creds, hello, decide).then((code) => {
    process.exitCode = code;
    // give a half-closed stream a moment to flush, then leave for sure
    setTimeout(() => process.exit(code), 200).unref();
  });
}

module.exports = {
  makeRng, tokenFromEnvironment, channelCredentials, loadProtocol, mayReconnect, statusDetails, rejection,
  connectAndPlay, run, runAndExit,
};
