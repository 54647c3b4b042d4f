// bench/sa-load (the client; bench/sa-load.sh drives it against fabricsm and OpenSM): load on
// an SA. A plain libibumad client (no IsSM) that sends PathRecord SubnAdmGet queries, one
// record each (SLID and DLID in the ComponentMask), between pairs of the CA LIDs it is given,
// in a pseudo-random order fixed by --seed, to the SM LID its port knows (QP1, Q_Key
// 0x80010000). It keeps --window queries outstanding, matches answers by TID (the low 32 bits:
// ibsim overwrites the high ones), counts answers with a non-zero status and wrong records as
// errors and queries unanswered after --timeout-ms as timeouts (no resend), and prints answers
// per second and the latency percentiles of the answers. Figures, never pass/fail; the exit
// status is 0 unless the client could not run (bad options, no port, no SA LID).
//
// With --pairs-file it asks each pair of the file once instead, in order, and with --sls prints
// the SL of every answer as "path SLID DLID SL" (sim/sl_dump.h; the figures then go to
// stderr): bench/routing-vs-opensm reads the SLs fabricsm's SA hands out on ibsim this way,
// one process for thousands of pairs where saquery is one process a pair.
//
// One thread: it blocks in umad_recv until the next answer or the next deadline, so an
// answer's receive time is taken as it arrives. (ibsim's shim polls only the first umad fd;
// this client has only one.)
#include <infiniband/umad.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mad/sa_mad.h"
#include "mad/sa_path_record.h"
#include "mad/transport.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: sa_load (--lids LIST | --lids-file FILE | --pairs-file FILE) [--window N] [--seconds S]\n"
    "               [--queries N] [--timeout-ms T] [--seed N] [--ca NAME] [--port N] [--sa-lid LID]\n"
    "               [--sls] [--json]\n"
    "  --lids LIST       CA LIDs to build pairs from: 1,4,7-20 (at least two)\n"
    "  --lids-file FILE  the same, whitespace or comma separated, from a file\n"
    "  --pairs-file FILE \"SLID DLID\" a line: each pair once, in order (no time limit by default)\n"
    "  --sls             print \"path SLID DLID SL\" for every answer; the figures go to stderr\n"
    "  --window N        queries outstanding at once (default 16)\n"
    "  --seconds S       send for S seconds (default 5 unless --queries is given)\n"
    "  --queries N       send N queries (with --seconds too: whichever ends first)\n"
    "  --timeout-ms T    a query unanswered after T ms counts as a timeout (default 1000)\n"
    "  --seed N          the pseudo-random order of the pairs (default 1)\n"
    "  --ca NAME --port N   the local port (default: the first one libibumad finds)\n"
    "  --sa-lid LID      send to this LID instead of the port's SM LID\n"
    "  --json            one JSON object instead of text\n";

struct Options {
  std::vector<uint16_t> lids;
  std::vector<std::pair<uint16_t, uint16_t>> pairs;  // --pairs-file: these, in order
  bool sls = false;
  unsigned window = 16;
  double seconds = 0;
  uint64_t queries = 0;
  unsigned timeout_ms = 1000;
  uint64_t seed = 1;
  std::string ca;
  int port = 0;
  uint16_t sa_lid = 0;
  bool json = false;
};

template <typename T>
bool parse_num(std::string_view s, T& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

// "1,4,7-20" (commas or whitespace between items) appended to `out`.
bool parse_lids(std::string_view s, std::vector<uint16_t>& out) {
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] == ',' || s[i] == ' ' || s[i] == '\n' || s[i] == '\t') {
      ++i;
      continue;
    }
    size_t j = s.find_first_of(", \n\t", i);
    if (j == std::string_view::npos) j = s.size();
    const std::string_view item = s.substr(i, j - i);
    const size_t dash = item.find('-');
    unsigned lo = 0, hi = 0;
    if (!parse_num(item.substr(0, dash), lo)) return false;
    hi = lo;
    if (dash != std::string_view::npos && !parse_num(item.substr(dash + 1), hi)) return false;
    if (lo == 0 || hi < lo || hi > mad::Lid::kMaxUnicast) return false;
    for (unsigned l = lo; l <= hi; ++l) out.push_back(static_cast<uint16_t>(l));
    i = j;
  }
  return true;
}

std::optional<Options> parse_args(int argc, char** argv) {
  Options o;
  bool seconds_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--json" || a == "--sls") {
      (a == "--json" ? o.json : o.sls) = true;
      continue;
    }
    if (a == "-h" || a == "--help") return std::nullopt;
    if (i + 1 >= argc) {
      fmt::print(stderr, "sa_load: {} needs a value (or is unknown)\n", a);
      return std::nullopt;
    }
    const std::string_view v = argv[++i];
    bool ok = true;
    if (a == "--lids") {
      ok = parse_lids(v, o.lids);
    } else if (a == "--lids-file") {
      std::ifstream f{std::string(v)};
      const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      ok = f.is_open() && parse_lids(text, o.lids);
    } else if (a == "--pairs-file") {
      std::ifstream f{std::string(v)};
      ok = f.is_open();
      for (unsigned sl = 0, dl = 0; ok && f >> sl >> dl;) {
        ok = sl >= 1 && dl >= 1 && sl <= mad::Lid::kMaxUnicast && dl <= mad::Lid::kMaxUnicast;
        o.pairs.emplace_back(static_cast<uint16_t>(sl), static_cast<uint16_t>(dl));
      }
      ok = ok && f.eof() && !o.pairs.empty();
    } else if (a == "--window") {
      ok = parse_num(v, o.window) && o.window >= 1 && o.window <= 4096;
    } else if (a == "--seconds") {
      ok = std::sscanf(std::string(v).c_str(), "%lf", &o.seconds) == 1 && o.seconds > 0;
      seconds_given = true;
    } else if (a == "--queries") {
      ok = parse_num(v, o.queries) && o.queries > 0;
    } else if (a == "--timeout-ms") {
      ok = parse_num(v, o.timeout_ms) && o.timeout_ms >= 1;
    } else if (a == "--seed") {
      ok = parse_num(v, o.seed);
    } else if (a == "--ca") {
      o.ca = std::string(v);
    } else if (a == "--port") {
      ok = parse_num(v, o.port);
    } else if (a == "--sa-lid") {
      ok = parse_num(v, o.sa_lid) && o.sa_lid >= 1 && o.sa_lid <= mad::Lid::kMaxUnicast;
    } else {
      fmt::print(stderr, "sa_load: unknown option {}\n", a);
      return std::nullopt;
    }
    if (!ok) {
      fmt::print(stderr, "sa_load: bad value for {}: {}\n", a, v);
      return std::nullopt;
    }
  }
  if (!o.pairs.empty()) {
    if (!o.lids.empty()) {
      fmt::print(stderr, "sa_load: --pairs-file or --lids, not both\n");
      return std::nullopt;
    }
    o.queries = o.queries ? std::min<uint64_t>(o.queries, o.pairs.size()) : o.pairs.size();
    return o;
  }
  if (!seconds_given && o.queries == 0) o.seconds = 5;
  std::sort(o.lids.begin(), o.lids.end());
  o.lids.erase(std::unique(o.lids.begin(), o.lids.end()), o.lids.end());
  if (o.lids.size() < 2) {
    fmt::print(stderr, "sa_load: needs at least two distinct CA LIDs (--lids or --lids-file)\n");
    return std::nullopt;
  }
  return o;
}

// SplitMix64: a fixed sequence per seed, the same on every machine.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform enough for a benchmark's choice among n (n far below 2^32).
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }

 private:
  uint64_t s_;
};

struct Pending {
  Clock::time_point sent;
  uint16_t slid, dlid;
};

struct Counts {
  uint64_t sent = 0, answered = 0, ok = 0, errors = 0, wrong = 0, timeouts = 0, late = 0,
           send_failures = 0, recv_failures = 0;
  std::map<uint16_t, uint64_t> statuses;  // non-zero status -> answers
  std::vector<uint32_t> latency_ns;       // every answer's, any status
};

mad::MadBytes path_query(uint32_t tid, uint16_t slid, uint16_t dlid) {
  mad::SaMad m;
  m.header.method = mad::sa_method::get;
  m.header.attr_id = mad::sa_attr::path_record;
  m.header.tid = tid;
  m.comp_mask = mad::PathRecord::c_slid | mad::PathRecord::c_dlid;
  mad::PathRecord pr;
  pr.slid = mad::Lid(slid);
  pr.dlid = mad::Lid(dlid);
  pr.encode(m.data);
  return mad::encode_sa_mad(m);
}

// Files an answer against its query: status, and for status 0 the record it must hold (and
// with `sls`, prints its SL).
void take_answer(const mad::SaMad& m, const Pending& q, Counts& c, bool sls) {
  ++c.answered;
  if (m.header.status != 0) {
    ++c.errors;
    ++c.statuses[m.header.status];
    return;
  }
  auto pr = mad::PathRecord::decode(m.data);
  if (m.header.method != mad::sa_method::get_resp || m.header.attr_id != mad::sa_attr::path_record || !pr ||
      pr->slid.value() != q.slid || pr->dlid.value() != q.dlid) {
    ++c.errors;
    ++c.wrong;
    return;
  }
  ++c.ok;
  if (sls) fmt::print("path {} {} {}\n", q.slid, q.dlid, pr->sl);
}

// Nearest-rank percentile of sorted values, in microseconds.
double pct_us(const std::vector<uint32_t>& v, double p) {
  if (v.empty()) return 0;
  const auto rank = std::clamp<size_t>(static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()))), 1,
                                      v.size());
  return v[rank - 1] / 1000.0;
}

struct Target {
  std::string ca;
  int port = 0;
  uint16_t lid = 0, sa_lid = 0;
  uint8_t sl = 0;
};

}  // namespace

int main(int argc, char** argv) {
  auto opts = parse_args(argc, argv);
  if (!opts) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const Options& o = *opts;
  if (umad_init() < 0) {
    fmt::print(stderr, "sa_load: umad_init failed\n");
    return 1;
  }
  umad_port_t up{};
  if (umad_get_port(o.ca.empty() ? nullptr : o.ca.c_str(), o.port, &up) < 0) {
    fmt::print(stderr, "sa_load: no such port ({} port {}): is a CA there (or LD_PRELOAD the ibsim shim)?\n",
               o.ca.empty() ? "any CA" : o.ca, o.port);
    return 1;
  }
  Target t{up.ca_name, up.portnum, static_cast<uint16_t>(up.base_lid), static_cast<uint16_t>(up.sm_lid),
           static_cast<uint8_t>(up.sm_sl)};
  umad_release_port(&up);
  if (o.sa_lid != 0) t.sa_lid = o.sa_lid;
  if (t.sa_lid == 0) {
    fmt::print(stderr, "sa_load: {} port {} knows no SM LID (is the subnet up?); give --sa-lid\n", t.ca, t.port);
    return 1;
  }
  const int fd = umad_open_port(t.ca.c_str(), t.port);
  if (fd < 0) {
    fmt::print(stderr, "sa_load: cannot open {} port {}: {}\n", t.ca, t.port, std::strerror(errno));
    return 1;
  }
  // A client agent: responses only, no RMPP (every answer here is one MAD).
  const int agent = umad_register(fd, mad::mgmt_class::subn_adm, mad::kSaClassVersion, 0, nullptr);
  if (agent < 0) {
    fmt::print(stderr, "sa_load: cannot register an SA client agent: {}\n", std::strerror(errno));
    return 1;
  }

  Rng rng(o.seed);
  Counts c;
  std::map<uint32_t, Pending> pending;  // by TID; TIDs grow, so begin() is the oldest
  uint32_t next_tid = 1;
  const size_t n = o.pairs.empty() ? o.lids.size() : o.pairs.size();
  std::vector<uint8_t> sbuf(umad_size() + mad::kMadSize), rbuf(umad_size() + mad::kMadSize);
  const auto timeout = std::chrono::milliseconds(o.timeout_ms);
  const auto start = Clock::now();
  const auto stop_sending = o.seconds > 0 ? start + std::chrono::duration_cast<Clock::duration>(
                                                        std::chrono::duration<double>(o.seconds))
                                          : Clock::time_point::max();
  auto last_answer = start;
  int recv_errors_in_row = 0, send_errors_in_row = 0;
  auto sending = [&](Clock::time_point now) {
    return now < stop_sending && (o.queries == 0 || c.sent < o.queries);
  };

  for (;;) {
    bool send_failed = false;
    while (sending(Clock::now()) && pending.size() < o.window) {
      uint16_t slid = 0, dlid = 0;
      if (o.pairs.empty()) {
        const size_t s = rng.below(n);
        size_t d = rng.below(n - 1);
        if (d >= s) ++d;
        slid = o.lids[s];
        dlid = o.lids[d];
      } else {
        std::tie(slid, dlid) = o.pairs[c.sent];
      }
      const uint32_t tid = next_tid++;
      const mad::MadBytes q = path_query(tid, slid, dlid);
      std::memset(sbuf.data(), 0, umad_size());
      std::memcpy(umad_get_mad(sbuf.data()), q.data(), q.size());
      umad_set_addr(sbuf.data(), t.sa_lid, 1, t.sl, static_cast<int>(mad::kGsiQkey));
      umad_set_pkey(sbuf.data(), 0);
      const auto at = Clock::now();
      if (umad_send(fd, agent, sbuf.data(), static_cast<int>(mad::kMadSize), static_cast<int>(o.timeout_ms), 0) < 0) {
        ++c.send_failures;
        if (++send_errors_in_row > 1000) {
          fmt::print(stderr, "sa_load: umad_send keeps failing: {}\n", std::strerror(errno));
          return 1;
        }
        send_failed = true;  // try again after a receive
        break;
      }
      send_errors_in_row = 0;
      ++c.sent;
      pending.emplace(tid, Pending{at, slid, dlid});
    }
    const auto now = Clock::now();
    // Queries past their deadline are timeouts; their slots go to new queries.
    while (!pending.empty() && now - pending.begin()->second.sent >= timeout) {
      ++c.timeouts;
      pending.erase(pending.begin());
    }
    if (pending.empty() && !sending(now)) break;

    // Wait for the next answer, at most until the oldest query's deadline (1 ms after a
    // failed send, to try again).
    auto until = pending.empty() ? now : pending.begin()->second.sent + timeout;
    if (send_failed) until = std::min(until, now + std::chrono::milliseconds(1));
    const auto wait = std::max<int64_t>(std::chrono::ceil<std::chrono::milliseconds>(until - now).count(), 1);
    int len = static_cast<int>(mad::kMadSize);
    const int r = umad_recv(fd, rbuf.data(), &len, static_cast<int>(std::min<int64_t>(wait, 1000)));
    const auto got = Clock::now();
    if (r < 0) {
      if (r != -ETIMEDOUT && r != -EAGAIN && r != -EWOULDBLOCK && ++recv_errors_in_row > 1000) {
        fmt::print(stderr, "sa_load: umad_recv keeps failing: {}\n", std::strerror(-r));
        return 1;
      }
      if (r != -ETIMEDOUT && r != -EAGAIN && r != -EWOULDBLOCK) ++c.recv_failures;
      continue;
    }
    recv_errors_in_row = 0;
    const auto* bytes = static_cast<const uint8_t*>(umad_get_mad(rbuf.data()));
    auto m = mad::decode_sa_mad(std::span<const uint8_t>(bytes, mad::kMadSize));
    if (!m) continue;
    const uint32_t tid = static_cast<uint32_t>(m->header.tid);
    auto it = pending.find(tid);
    if (it == pending.end()) {
      if (tid != 0 && tid < next_tid) ++c.late;  // answered after its timeout
      continue;
    }
    if (umad_status(rbuf.data()) != 0) {  // the kernel gave up on it (a real HCA; ibsim never does)
      ++c.timeouts;
      pending.erase(it);
      continue;
    }
    c.latency_ns.push_back(static_cast<uint32_t>(
        std::min<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(got - it->second.sent).count(),
                          UINT32_MAX)));
    take_answer(*m, it->second, c, o.sls);
    last_answer = got;
    pending.erase(it);
  }
  const auto end = Clock::now();
  umad_unregister(fd, agent);
  umad_close_port(fd);
  umad_done();

  std::sort(c.latency_ns.begin(), c.latency_ns.end());
  // The rate over the time answers came in (not the wait for queries that timed out at the end).
  const double answering = std::chrono::duration<double>(last_answer - start).count();
  const double wall = std::chrono::duration<double>(end - start).count();
  const double qps = answering > 0 ? static_cast<double>(c.ok) / answering : 0;
  double mean = 0;
  for (uint32_t v : c.latency_ns) mean += v;
  mean = c.latency_ns.empty() ? 0 : mean / static_cast<double>(c.latency_ns.size()) / 1000.0;
  std::string statuses;
  for (auto [s, k] : c.statuses) statuses += fmt::format("{}\"0x{:04x}\": {}", statuses.empty() ? "" : ", ", s, k);

  std::FILE* out = o.sls ? stderr : stdout;  // --sls: stdout holds the SLs
  if (o.json) {
    fmt::print(out, "{{\"ca\": \"{}\", \"port\": {}, \"lid\": {}, \"sa_lid\": {}, \"lids\": {}, \"window\": {}, "
               "\"seed\": {}, \"timeout_ms\": {}, \"seconds\": {:.3f}, \"answering_seconds\": {:.3f}, \"sent\": {}, \"answered\": {}, "
               "\"ok\": {}, \"errors\": {}, \"wrong_records\": {}, \"timeouts\": {}, \"late\": {}, "
               "\"send_failures\": {}, \"qps\": {:.1f}, \"latency_us\": {{\"p50\": {:.1f}, \"p90\": {:.1f}, "
               "\"p99\": {:.1f}, \"max\": {:.1f}, \"mean\": {:.1f}}}, \"statuses\": {{{}}}}}\n",
               t.ca, t.port, t.lid, t.sa_lid, n, o.window, o.seed, o.timeout_ms, wall, answering, c.sent, c.answered,
               c.ok, c.errors, c.wrong, c.timeouts, c.late, c.send_failures, qps, pct_us(c.latency_ns, 50),
               pct_us(c.latency_ns, 90), pct_us(c.latency_ns, 99), pct_us(c.latency_ns, 100), mean, statuses);
    return 0;
  }
  fmt::print(out, "PathRecord SubnAdmGet from {} port {} (LID {}) to the SA at LID {}: {} {}, window {}, "
             "seed {}\n",
             t.ca, t.port, t.lid, t.sa_lid, n, o.pairs.empty() ? "CA LIDs" : "pairs", o.window, o.seed);
  fmt::print(out, "sent {}  answered {}  ok {}  errors {}  timeouts {}  late {}  in {:.2f} s\n", c.sent, c.answered,
             c.ok, c.errors, c.timeouts, c.late, wall);
  if (c.wrong > 0) fmt::print(out, "answers with status 0 but not the record asked for: {}\n", c.wrong);
  if (!statuses.empty()) fmt::print(out, "error statuses: {}\n", statuses);
  if (c.send_failures > 0) fmt::print(out, "umad_send failures: {}\n", c.send_failures);
  fmt::print(out, "qps {:.1f} (answers with status 0 per second, over the {:.2f} s up to the last answer)\n", qps,
             answering);
  fmt::print(out, "latency_us p50 {:.1f}  p90 {:.1f}  p99 {:.1f}  max {:.1f}  mean {:.1f} ({} answers)\n",
             pct_us(c.latency_ns, 50), pct_us(c.latency_ns, 90), pct_us(c.latency_ns, 99),
             pct_us(c.latency_ns, 100), mean, c.latency_ns.size());
  return 0;
}
