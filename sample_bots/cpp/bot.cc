// Sample C++ bot for the card-game referee (protocol cardgames.v1).
//
//   bot --referee HOST:PORT|unix:PATH [--token TOKEN] [--name NAME] [--seed N]
//       [--tls-ca FILE] [--games g1,g2] [--max-matches K] [--reconnect SECONDS] [--verbose]
//
// The token comes from --token or, when that is absent, from the inherited
// descriptor whose number is in REFEREE_TOKEN_FD (how the referee hands it to
// the bots it launches: read to the end, then closed; the token is never in
// the environment, which /proc/<pid>/environ shows, nor on a command line,
// which every process can read), else from the environment variable
// REFEREE_TOKEN (a bot connecting on its own).
//
// Behaviour: sends a Hello (protocol_version 1; games [] = every game unless
// --games; events bundled into the decision requests) and, run by hand (not
// launched by the referee), says "NAME: connected to ADDR; waiting for
// matches" on stderr once welcomed; then answers every
// DecisionRequest with one of its legal_actions, chosen uniformly with a
// seeded RNG, echoing match_id and request_id. It plays every game.
// Exit status: 0 after a Goodbye or a normal end of the stream; 1 with
// "NAME: connection ended: STATUS: details" on stderr for a connection error
// (bad token -> UNAUTHENTICATED, no referee -> UNAVAILABLE, ...); 2 for bad
// command-line arguments; 130 on Ctrl-C.
//
// With --reconnect SECONDS, a connection lost, a referee that cannot be
// reached or a Goodbye saying the referee shuts down is followed by new
// connections with the same Hello (0.5 s apart, doubling up to 10 s) until
// one is welcomed; after SECONDS without a welcome the bot exits 1. A refused
// Hello (bad token, ...) is never retried. Same behaviour and messages as the
// Python sample bots (sample_bots/botlib.py; docs/protocol.md, "Reconnecting
// after a dropped connection").
//
// Build: see README.md (make; system packages only).

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "cardgames/v1/referee.grpc.pb.h"

namespace pb = cardgames::v1;

namespace {

constexpr const char* kBotVersion = "1.0.0";
// A 4-player Dou Dizhu lead can list ~100k legal actions (several MB).
constexpr int kMaxReceiveBytes = 64 * 1024 * 1024;
// --reconnect: wait this long before the first new attempt, doubling up to the second figure (seconds).
constexpr double kFirstRetrySeconds = 0.5, kMaxRetrySeconds = 10.0;

struct Options {
  std::string referee;
  std::string token;
  std::string name = "cpp-bot";
  std::string tls_ca;
  std::vector<std::string> games;
  unsigned long long seed = 0;
  bool seeded = false;
  unsigned max_matches = 1;
  double reconnect = 0;  // seconds; 0: exit when the connection ends
  bool verbose = false;
  // launched by the referee (token on REFEREE_TOKEN_FD): its stderr goes to a file the
  // referee keeps, not to a person, so the first connection is not announced
  bool launched = false;
};

[[noreturn]] void Usage(const std::string& error) {
  if (!error.empty()) std::cerr << "error: " << error << "\n";
  std::cerr << "usage: bot --referee HOST:PORT [--token TOKEN] [--name NAME] [--seed N]\n"
               "           [--tls-ca FILE] [--games g1,g2] [--max-matches K] [--reconnect SECONDS]\n"
               "           [--verbose]\n"
               "The token defaults to what the descriptor REFEREE_TOKEN_FD names holds, else the\n"
               "REFEREE_TOKEN environment variable.\n";
  std::exit(2);
}

unsigned long long ParseNumber(const std::string& flag, const std::string& text) {
  try {
    size_t used = 0;
    unsigned long long v = std::stoull(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  Usage(flag + " needs a non-negative integer, got '" + text + "'");
}

double ParseSeconds(const std::string& flag, const std::string& text) {
  double v = -1;
  try {
    size_t used = 0;
    v = std::stod(text, &used);
    if (used != text.size()) v = -1;
  } catch (const std::exception&) {
  }
  if (!std::isfinite(v) || v < 0) Usage(flag + " SECONDS must be 0 (off) or more, got '" + text + "'");
  return v;
}

// The token the referee handed over: read from the descriptor named by
// REFEREE_TOKEN_FD (a launched bot: read to the end, then closed), else
// REFEREE_TOKEN (a bot connecting on its own); empty if neither is set.
std::string TokenFromEnvironment() {
  const char* fd_text = std::getenv("REFEREE_TOKEN_FD");
  if (fd_text != nullptr && *fd_text != '\0') {
    const int fd = static_cast<int>(ParseNumber("REFEREE_TOKEN_FD", fd_text));
    std::string token;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) token.append(buf, static_cast<size_t>(n));
    if (n < 0) Usage(std::string("REFEREE_TOKEN_FD=") + fd_text + ": cannot read the token from that descriptor");
    close(fd);
    unsetenv("REFEREE_TOKEN_FD");
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    return token;
  }
  const char* env = std::getenv("REFEREE_TOKEN");
  return env != nullptr ? env : "";
}

// `--key value` or `--key=value`.
Options ParseArgs(int argc, char** argv) {
  Options o;
  bool have_token = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i], value;
    bool inline_value = false;
    if (auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inline_value = true;
    }
    if (arg == "--help" || arg == "-h") Usage("");
    if (arg == "--verbose") {
      o.verbose = true;
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) Usage(arg + " needs a value");
      value = argv[++i];
    }
    if (arg == "--referee") {
      o.referee = value;
    } else if (arg == "--token") {
      o.token = value;
      have_token = true;
    } else if (arg == "--name") {
      o.name = value;
    } else if (arg == "--seed") {
      o.seed = ParseNumber(arg, value);
      o.seeded = true;
    } else if (arg == "--tls-ca") {
      o.tls_ca = value;
    } else if (arg == "--games") {
      std::stringstream list(value);
      for (std::string g; std::getline(list, g, ',');)
        if (!g.empty()) o.games.push_back(g);
    } else if (arg == "--max-matches") {
      o.max_matches = static_cast<unsigned>(ParseNumber(arg, value));
      if (o.max_matches < 1) Usage("--max-matches must be >= 1");
    } else if (arg == "--reconnect") {
      o.reconnect = ParseSeconds(arg, value);
    } else {
      Usage("unknown argument " + arg);
    }
  }
  if (o.referee.empty()) Usage("--referee HOST:PORT is required");
  if (!have_token) {
    const char* fd_text = std::getenv("REFEREE_TOKEN_FD");
    o.launched = fd_text != nullptr && *fd_text != '\0';
    o.token = TokenFromEnvironment();
  }
  if (o.token.empty()) Usage("no token: set the environment variable REFEREE_TOKEN (a bot the referee launches gets its token on the descriptor REFEREE_TOKEN_FD names)");
  return o;
}

std::shared_ptr<grpc::Channel> MakeChannel(const Options& o) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxReceiveBytes);
  std::shared_ptr<grpc::ChannelCredentials> creds;
  if (o.tls_ca.empty()) {
    creds = grpc::InsecureChannelCredentials();
  } else {
    std::ifstream in(o.tls_ca, std::ios::binary);
    if (!in) Usage("cannot read --tls-ca file " + o.tls_ca);
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    creds = grpc::SslCredentials(ssl);
  }
  return grpc::CreateCustomChannel(o.referee, creds, args);
}

// The seat's own hand, read from the game's typed observation (the oneof
// `game` of Observation holds exactly the match's game).
const google::protobuf::RepeatedPtrField<std::string>* OwnHand(const pb::Observation& obs) {
  switch (obs.game_case()) {
    case pb::Observation::kDoudizhu: return &obs.doudizhu().hand();
    case pb::Observation::kTractor: return &obs.tractor().hand();
    case pb::Observation::kSmear: return &obs.smear().hand();
    case pb::Observation::kPresident: return &obs.president().hand();
    case pb::Observation::kBackAlley: return &obs.back_alley().hand();
    default: return nullptr;  // a game added after this bot was written
  }
}

// The whole strategy: any one of the legal actions. Replace it with yours.
pb::Action Choose(const pb::DecisionRequest& req, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, req.legal_actions_size() - 1);
  return req.legal_actions(pick(rng));
}

const char* StatusName(grpc::StatusCode code) {
  switch (code) {
    case grpc::OK: return "OK";
    case grpc::CANCELLED: return "CANCELLED";
    case grpc::UNKNOWN: return "UNKNOWN";
    case grpc::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::NOT_FOUND: return "NOT_FOUND";
    case grpc::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::ABORTED: return "ABORTED";
    case grpc::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::INTERNAL: return "INTERNAL";
    case grpc::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::DATA_LOSS: return "DATA_LOSS";
    case grpc::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "UNKNOWN_STATUS";
  }
}

// The stderr line (without the name) for an answer the referee did not apply:
// "request N rejected: FAULT RULE MESSAGE" (empty parts left out), or, for a
// reply naming a match this connection no longer sits in (unknown_request
// without a match_id: the match ended, for instance aborted by a referee
// shutting down, while the reply was on its way), that the reply came after
// its match ended.
std::string Rejection(const pb::ActionResult& r) {
  const std::string request = std::to_string(r.request_id());
  if (r.fault() == "unknown_request" && r.match_id().empty())
    return "reply to request " + request + " came after its match ended; the referee ignored it";
  std::string line = "request " + request + " rejected:";
  for (const std::string* part : {&r.fault(), &r.rule(), &r.message()})
    if (!part->empty()) line += " " + *part;
  return line;
}

// How one connection ended.
struct Outcome {
  int exit_code = 0;
  std::optional<std::string> why;  // why a new connection may help; empty when it would not
  bool welcomed = false;           // the referee welcomed this connection
};

// One connection: Hello, then play until it ends. `reconnecting`: an earlier
// connection was welcomed (this welcome is reported as a return); else a bot
// run by hand (not opts.launched) reports its first welcome.
Outcome ConnectAndPlay(const Options& opts, std::mt19937_64& rng, bool reconnecting) {
  auto stub = pb::RefereeService::NewStub(MakeChannel(opts));
  grpc::ClientContext context;
  auto stream = stub->Connect(&context);

  pb::BotMessage hello_msg;
  pb::Hello* hello = hello_msg.mutable_hello();
  hello->set_bot_name(opts.name);
  hello->set_bot_version(kBotVersion);
  hello->set_token(opts.token);
  hello->set_protocol_version(1);
  for (const auto& g : opts.games) hello->add_games(g);
  hello->set_max_concurrent_matches(opts.max_matches);
  hello->set_bundle_events(true);  // events arrive inside the requests: fewer messages
  stream->Write(hello_msg);        // a failed write shows up in Finish() below

  Outcome outcome;
  pb::RefereeMessage msg;
  bool goodbye = false, done = false;
  while (!done && stream->Read(&msg)) {
    switch (msg.msg_case()) {
      case pb::RefereeMessage::kWelcome:
        outcome.welcomed = true;
        if (reconnecting) {
          std::cerr << opts.name << ": reconnected to " << opts.referee << "\n";
        } else if (!opts.launched) {
          std::cerr << opts.name << ": connected to " << opts.referee << "; waiting for matches\n";
        }
        break;
      case pb::RefereeMessage::kDecisionRequest: {
        const pb::DecisionRequest& req = msg.decision_request();
        pb::BotMessage out;
        pb::ActionReply* reply = out.mutable_action_reply();
        reply->set_match_id(req.match_id());
        reply->set_request_id(req.request_id());
        *reply->mutable_action() = Choose(req, rng);
        if (opts.verbose) {
          const auto* hand = OwnHand(req.observation());
          std::cerr << opts.name << ": " << req.match_id() << " request " << req.request_id() << " ("
                    << pb::DecisionKind_Name(req.kind()) << "): " << (hand ? hand->size() : 0)
                    << " cards in hand, " << req.legal_actions_size() << " legal actions\n";
        }
        if (!stream->Write(out)) done = true;  // the stream is gone; Finish() says why
        break;
      }
      case pb::RefereeMessage::kActionResult:
        // Only sent when the referee did not apply our answer as given.
        std::cerr << opts.name << ": " << Rejection(msg.action_result()) << "\n";
        break;
      case pb::RefereeMessage::kGoodbye:
        // the end of this bot's work, unless the referee is going away (a new one may come back)
        if (msg.goodbye().reason() == "referee shutting down") outcome.why = "Goodbye: " + msg.goodbye().reason();
        goodbye = done = true;
        break;
      default:
        // match_started, event, match_ended and kinds added later:
        // information only (a stateless bot plays from the observation).
        break;
    }
  }
  stream->WritesDone();
  while (stream->Read(&msg)) {
  }
  const grpc::Status status = stream->Finish();
  const grpc::StatusCode code = status.error_code();
  if (goodbye) return outcome;  // a normal end (exit 0); the Goodbye's reason said whether to come back
  if (status.ok()) {
    outcome.why = "the stream ended without the referee's Goodbye";
  } else if (code == grpc::UNAVAILABLE || code == grpc::CANCELLED || code == grpc::ALREADY_EXISTS) {
    // the referee is unreachable or went away, or still holds this token's dropped connection
    outcome.why = std::string(StatusName(code)) + ": " + status.error_message();
    outcome.exit_code = code == grpc::CANCELLED ? 0 : 1;
  } else {  // a bad token, a refused Hello, any other refusal: never retried
    std::cerr << opts.name << ": connection ended: " << StatusName(code) << ": " << status.error_message() << "\n";
    outcome.exit_code = 1;
  }
  return outcome;
}

// Play until the referee ends the connection; returns the exit code. With
// opts.reconnect > 0 (seconds), connect again while ConnectAndPlay says a new
// connection may help, kFirstRetrySeconds apart doubling up to
// kMaxRetrySeconds, until one is welcomed; after opts.reconnect seconds
// without a welcome, give up: exit code 1.
int Run(const Options& opts, std::mt19937_64& rng) {
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> lost_at;  // when the connection was lost; empty while connected
  double delay = kFirstRetrySeconds;
  bool was_welcomed = false;  // an earlier connection was welcomed: a new welcome is a return
  while (true) {
    const Outcome outcome = ConnectAndPlay(opts, rng, was_welcomed);
    was_welcomed = was_welcomed || outcome.welcomed;
    const std::string why = outcome.why.value_or("");
    if (!outcome.why || opts.reconnect <= 0) {
      if (outcome.why && outcome.exit_code != 0) std::cerr << opts.name << ": connection ended: " << why << "\n";
      return outcome.exit_code;
    }
    if (outcome.welcomed || !lost_at) {
      std::cerr << opts.name << ": " << (outcome.welcomed ? "lost the referee" : "cannot reach the referee")
                << " at " << opts.referee << " (" << why << "); reconnecting for up to " << opts.reconnect
                << " s\n";
      lost_at = Clock::now();
      delay = kFirstRetrySeconds;
    }
    const double left = opts.reconnect - std::chrono::duration<double>(Clock::now() - *lost_at).count();
    if (left <= 0) {
      std::cerr << opts.name << ": could not reconnect to " << opts.referee << " within " << opts.reconnect
                << " s (last attempt: " << why << "); giving up\n";
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(delay, left)));
    delay = std::min(2 * delay, kMaxRetrySeconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options opts = ParseArgs(argc, argv);
  std::mt19937_64 rng(opts.seeded ? opts.seed : std::random_device{}());
  std::signal(SIGINT, [](int) { _exit(130); });  // Ctrl-C: leave quietly, also while waiting to reconnect
  return Run(opts, rng);
}
