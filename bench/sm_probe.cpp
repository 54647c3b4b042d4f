// bench/sm_probe (bench/ha-scale runs it from a third host): how long the master takes to
// answer one MAD while it works. One libibumad client, attached once, so that what it times is
// the SM and the fabric, not a tool's start-up (sminfo and saquery through ibsim's shim spend
// about 200 ms there). Every --gap-ms it sends, together, a LID-routed SMInfo Get to the SM LID
// and a PathRecord SubnAdmGet (SLID and DLID given) to the SA, and waits for both or for
// --timeout-ms. Each answer (or timeout) is one line "SEND_EPOCH_S ANSWER_EPOCH_S RC OK" in the
// --sminfo-log and --pr-log files, the format of ha-scale's whole-client loops: RC 0 answered,
// 124 timed out; OK 1 when the answer is the one asked for (SMInfo of a MASTER, the PathRecord
// of that pair). It stops after --seconds or when --stop-file exists, and prints the
// percentiles of each kind. Figures, never pass/fail: the exit status is 0 unless the client
// could not run.
//
// One thread and one umad fd with two agents (ibsim's shim polls only the first fd).
#include <infiniband/umad.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "mad/sa_mad.h"
#include "mad/sa_path_record.h"
#include "mad/sm_info.h"
#include "mad/smp.h"
#include "mad/transport.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: sm_probe --pr SLID:DLID --sminfo-log FILE --pr-log FILE [--sminfo-failures FILE]\n"
    "                [--pr-failures FILE] [--seconds S] [--stop-file F] [--gap-ms G] [--timeout-ms T]\n"
    "                [--sm-lid LID]\n"
    "  --pr SLID:DLID     the PathRecord asked for each round\n"
    "  --sminfo-log FILE  one line per SMInfo Get: send and answer time (epoch s), rc, ok\n"
    "  --pr-log FILE      the same per PathRecord Get\n"
    "  --sminfo-failures FILE, --pr-failures FILE\n"
    "                     \"SEND_EPOCH_S rc RC: what came back\" for each answer not as asked\n"
    "  --seconds S        stop after S seconds (default: only at --stop-file)\n"
    "  --stop-file F      stop when F exists (checked every round)\n"
    "  --gap-ms G         pause between rounds (default 20)\n"
    "  --timeout-ms T     a query unanswered after T ms is a timeout (default 1000)\n"
    "  --sm-lid LID       ask this LID instead of the port's SM LID\n";

struct Options {
  uint16_t slid = 0, dlid = 0, sm_lid = 0;
  std::string sminfo_log, pr_log, sminfo_failures, pr_failures, stop_file;
  double seconds = 0;
  unsigned gap_ms = 20, timeout_ms = 1000;
};

template <typename T>
bool parse_num(std::string_view s, T& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

bool parse_lid(std::string_view s, uint16_t& out) {
  unsigned v = 0;
  if (!parse_num(s, v) || v == 0 || v > mad::Lid::kMaxUnicast) return false;
  out = static_cast<uint16_t>(v);
  return true;
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "-h" || a == "--help" || i + 1 >= argc) return false;
    const std::string_view v = argv[++i];
    bool ok = true;
    if (a == "--pr") {
      const size_t colon = v.find(':');
      ok = colon != std::string_view::npos && parse_lid(v.substr(0, colon), o.slid) &&
           parse_lid(v.substr(colon + 1), o.dlid);
    } else if (a == "--sminfo-log") {
      o.sminfo_log = std::string(v);
    } else if (a == "--pr-log") {
      o.pr_log = std::string(v);
    } else if (a == "--sminfo-failures") {
      o.sminfo_failures = std::string(v);
    } else if (a == "--pr-failures") {
      o.pr_failures = std::string(v);
    } else if (a == "--stop-file") {
      o.stop_file = std::string(v);
    } else if (a == "--seconds") {
      ok = std::sscanf(std::string(v).c_str(), "%lf", &o.seconds) == 1 && o.seconds > 0;
    } else if (a == "--gap-ms") {
      ok = parse_num(v, o.gap_ms) && o.gap_ms <= 60000;
    } else if (a == "--timeout-ms") {
      ok = parse_num(v, o.timeout_ms) && o.timeout_ms >= 1 && o.timeout_ms <= 60000;
    } else if (a == "--sm-lid") {
      ok = parse_lid(v, o.sm_lid);
    } else {
      fmt::print(stderr, "sm_probe: unknown option {}\n", a);
      return false;
    }
    if (!ok) {
      fmt::print(stderr, "sm_probe: bad value for {}: {}\n", a, v);
      return false;
    }
  }
  if (o.slid == 0 || o.sminfo_log.empty() || o.pr_log.empty()) {
    fmt::print(stderr, "sm_probe: --pr, --sminfo-log and --pr-log are needed\n");
    return false;
  }
  if (o.seconds == 0 && o.stop_file.empty()) {
    fmt::print(stderr, "sm_probe: give --seconds or --stop-file\n");
    return false;
  }
  return true;
}

double epoch_s() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// One kind of query: its agent, its outstanding TID, its log and its latencies.
struct Kind {
  const char* name;
  int agent = -1;
  uint32_t tid = 0;  // 0: none outstanding
  Clock::time_point sent;
  double sent_epoch = 0;
  std::FILE* log = nullptr;
  std::FILE* failures = nullptr;  // optional
  std::vector<double> ms;  // answered ones
  uint64_t timeouts = 0, wrong = 0;

  // `why`: what came back, for the failures file when it is not what was asked.
  void finish(double latency_ms, int rc, bool ok, const std::string& why) {
    fmt::print(log, "{:.6f} {:.6f} {} {}\n", sent_epoch, sent_epoch + latency_ms / 1000.0, rc, ok ? 1 : 0);
    if (!ok && failures) fmt::print(failures, "{:.6f} rc {}: {}\n", sent_epoch, rc, why);
    if (rc == 0) ms.push_back(latency_ms);
    if (rc != 0) ++timeouts;
    if (rc == 0 && !ok) ++wrong;
    tid = 0;
  }
};

// Nearest rank.
double pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto rank = std::clamp<size_t>(static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size()))), 1,
                                      v.size());
  return v[rank - 1];
}

bool stop_file_exists(const std::string& f) { return !f.empty() && access(f.c_str(), F_OK) == 0; }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, o)) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (umad_init() < 0) {
    fmt::print(stderr, "sm_probe: umad_init failed\n");
    return 1;
  }
  umad_port_t up{};
  if (umad_get_port(nullptr, 0, &up) < 0) {
    fmt::print(stderr, "sm_probe: no port: is a CA there (or LD_PRELOAD the ibsim shim)?\n");
    return 1;
  }
  const std::string ca = up.ca_name;
  const int portnum = up.portnum;
  const uint16_t sm_lid = o.sm_lid ? o.sm_lid : static_cast<uint16_t>(up.sm_lid);
  const int sm_sl = up.sm_sl;
  umad_release_port(&up);
  if (sm_lid == 0) {
    fmt::print(stderr, "sm_probe: {} port {} knows no SM LID; give --sm-lid\n", ca, portnum);
    return 1;
  }
  const int fd = umad_open_port(ca.c_str(), portnum);
  if (fd < 0) {
    fmt::print(stderr, "sm_probe: cannot open {} port {}: {}\n", ca, portnum, std::strerror(errno));
    return 1;
  }
  Kind smi{"SMInfo"}, pr{"PathRecord"};
  smi.agent = umad_register(fd, mad::mgmt_class::subn_lid_routed, 1, 0, nullptr);
  pr.agent = umad_register(fd, mad::mgmt_class::subn_adm, mad::kSaClassVersion, 0, nullptr);
  if (smi.agent < 0 || pr.agent < 0) {
    fmt::print(stderr, "sm_probe: cannot register the client agents: {}\n", std::strerror(errno));
    return 1;
  }
  smi.log = std::fopen(o.sminfo_log.c_str(), "w");
  pr.log = std::fopen(o.pr_log.c_str(), "w");
  if (!o.sminfo_failures.empty()) smi.failures = std::fopen(o.sminfo_failures.c_str(), "w");
  if (!o.pr_failures.empty()) pr.failures = std::fopen(o.pr_failures.c_str(), "w");
  if (!smi.log || !pr.log || (!o.sminfo_failures.empty() && !smi.failures) ||
      (!o.pr_failures.empty() && !pr.failures)) {
    fmt::print(stderr, "sm_probe: cannot write the logs: {}\n", std::strerror(errno));
    return 1;
  }

  std::vector<uint8_t> sbuf(umad_size() + mad::kMadSize), rbuf(umad_size() + mad::kMadSize);
  auto send = [&](Kind& k, const mad::MadBytes& m, int qp, uint32_t qkey, uint32_t tid) {
    std::memset(sbuf.data(), 0, umad_size());
    std::memcpy(umad_get_mad(sbuf.data()), m.data(), m.size());
    umad_set_addr(sbuf.data(), sm_lid, qp, sm_sl, static_cast<int>(qkey));
    umad_set_pkey(sbuf.data(), 0);
    k.sent = Clock::now();
    k.sent_epoch = epoch_s();
    if (umad_send(fd, k.agent, sbuf.data(), static_cast<int>(mad::kMadSize), static_cast<int>(o.timeout_ms), 0) < 0)
      return false;
    k.tid = tid;
    return true;
  };
  const auto timeout = std::chrono::milliseconds(o.timeout_ms);
  const auto start = Clock::now();
  uint32_t next_tid = 1;
  for (;;) {
    if (o.seconds > 0 && Clock::now() - start >= std::chrono::duration<double>(o.seconds)) break;
    if (stop_file_exists(o.stop_file)) break;
    mad::Smp q = mad::make_lid_smp(mad::method::get, mad::attr::sm_info, 0);
    q.tid = next_tid++;
    mad::SaMad s;
    s.header.method = mad::sa_method::get;
    s.header.attr_id = mad::sa_attr::path_record;
    s.header.tid = next_tid++;
    s.comp_mask = mad::PathRecord::c_slid | mad::PathRecord::c_dlid;
    mad::PathRecord want;
    want.slid = mad::Lid(o.slid);
    want.dlid = mad::Lid(o.dlid);
    want.encode(s.data);
    if (!send(smi, mad::encode_smp(q), 0, 0, static_cast<uint32_t>(q.tid)) ||
        !send(pr, mad::encode_sa_mad(s), 1, mad::kGsiQkey, static_cast<uint32_t>(s.header.tid))) {
      fmt::print(stderr, "sm_probe: umad_send failed: {}\n", std::strerror(errno));
      return 1;
    }
    while (smi.tid != 0 || pr.tid != 0) {
      const auto now = Clock::now();
      for (Kind* k : {&smi, &pr})
        if (k->tid != 0 && now - k->sent >= timeout) k->finish(o.timeout_ms, 124, false, "no answer");
      if (smi.tid == 0 && pr.tid == 0) break;
      int len = static_cast<int>(mad::kMadSize);
      if (umad_recv(fd, rbuf.data(), &len, 5) < 0) continue;
      const auto got = Clock::now();
      const auto* bytes = static_cast<const uint8_t*>(umad_get_mad(rbuf.data()));
      const std::span<const uint8_t> mad(bytes, mad::kMadSize);
      auto h = mad::decode_mad_header(mad);
      if (!h) continue;
      const auto tid = static_cast<uint32_t>(h->tid);  // ibsim overwrites the high 32 bits
      Kind* k = tid == smi.tid ? &smi : tid == pr.tid ? &pr : nullptr;
      if (!k) continue;  // late
      const double ms = std::chrono::duration<double, std::milli>(got - k->sent).count();
      std::string why = fmt::format("status 0x{:04x} ({})", h->status, mad::status::describe(h->status));
      bool ok = h->status == 0;
      if (ok && k == &smi) {
        auto smp = mad::decode_smp(mad);
        auto info = smp ? mad::SmInfo::decode(smp->data) : std::unexpected(smp.error());
        ok = info && info->state == mad::SmState::master;
        why = info ? fmt::format("SMInfo of {} state {}", info->guid, mad::sm_state_name(info->state))
                   : fmt::format("undecodable SMInfo: {}", info.error().message);
      } else if (ok) {
        auto m = mad::decode_sa_mad(mad);
        auto rec = m ? mad::PathRecord::decode(m->data) : std::unexpected(m.error());
        ok = rec && rec->slid == want.slid && rec->dlid == want.dlid;
        why = rec ? fmt::format("PathRecord {} -> {}", rec->slid.value(), rec->dlid.value())
                  : fmt::format("undecodable PathRecord: {}", rec.error().message);
      }
      k->finish(ms, 0, ok, why);
    }
    for (const Kind* k : {&smi, &pr}) {
      std::fflush(k->log);
      if (k->failures) std::fflush(k->failures);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(o.gap_ms));
  }
  umad_close_port(fd);
  umad_done();
  for (const Kind* k : {&smi, &pr})
    fmt::print("{:<10} from {} port {} to LID {}: {} answered, p50 {:.2f} p99 {:.2f} max {:.2f} ms; {} timed out, "
               "{} not as asked\n",
               k->name, ca, portnum, sm_lid, k->ms.size(), pct(k->ms, 50), pct(k->ms, 99), pct(k->ms, 100),
               k->timeouts, k->wrong);
  for (const Kind* k : {&smi, &pr}) {
    std::fclose(k->log);
    if (k->failures) std::fclose(k->failures);
  }
  return 0;
}
