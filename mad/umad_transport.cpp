// ibsim's shim (umad2sim) interposes open(), not open64(). meson compiles with
// _FILE_OFFSET_BITS=64, which renames open() to open64() and would bypass the shim when the
// issm device is opened (IsSM would silently stay clear). On LP64 both are the same call.
#undef _FILE_OFFSET_BITS

#include "mad/umad_transport.h"

#include <endian.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "mad/sa_mad.h"

namespace mad {

namespace {

constexpr int kSmiClassVersion = 1;
// After this many umad_recv failures in a row (10 ms apart) the port is considered gone.
constexpr int kMaxRecvErrors = 200;
// On shutdown: how long the port must be quiet before it is closed, and the most we wait.
constexpr int64_t kQuietNs = 50'000'000;
constexpr int64_t kQuietMaxNs = 1'000'000'000;
// receive() returns after at most this many MADs, so the owner's timers run under a flood.
constexpr size_t kMaxBatch = 256;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string errno_text(int e) { return std::strerror(e); }

// Every port of every CA that sysfs (or the shim's fake sysfs) lists.
Result<std::vector<PortCandidate>> list_ports() {
  char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  const int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
  if (n < 0)
    return fail(Errc::io, fmt::format("cannot list InfiniBand devices in /sys/class/infiniband: {}",
                                      errno_text(-n)));
  std::vector<PortCandidate> out;
  for (int i = 0; i < n; ++i) {
    umad_ca_t ca{};
    // libibumad invents "mthca0" when /sys/class/infiniband is missing: umad_get_ca fails on it.
    if (umad_get_ca(names[i], &ca) < 0) continue;
    for (int p = 0; p <= ca.numports && p < UMAD_CA_MAX_PORTS; ++p) {
      const umad_port_t* up = ca.ports[p];
      if (up == nullptr) continue;
      PortCandidate c;
      c.port.ca = ca.ca_name;
      c.port.port = up->portnum;
      c.port.guid = Guid(be64toh(up->port_guid));
      c.port.lid = Lid(static_cast<uint16_t>(up->base_lid));
      c.port.sm_lid = Lid(static_cast<uint16_t>(up->sm_lid));
      c.port.state = up->state;
      c.port.phys_state = up->phys_state;
      c.link_layer = up->link_layer;
      out.push_back(std::move(c));
    }
    umad_release_ca(&ca);
  }
  if (out.empty())
    return fail(Errc::not_found,
                "no InfiniBand device found: /sys/class/infiniband lists no usable CA "
                "(is the HCA driver loaded? under ibsim: is LD_PRELOAD set to libumad2sim.so?)");
  return out;
}

void set_method_bit(long (&mask)[16 / sizeof(long)], uint8_t method) {
  constexpr unsigned kBits = 8 * sizeof(long);
  mask[method / kBits] |= 1L << (method % kBits);
}

}  // namespace

UmadTransport::UmadTransport(UmadPort port, std::chrono::milliseconds request_timeout)
    : port_(std::move(port)),
      request_timeout_ms_(static_cast<int>(request_timeout.count())) {
  gsi_agents_.fill(kAgentUntried);
}

Result<std::unique_ptr<UmadTransport>> UmadTransport::open(const UmadOptions& opts) {
  if (umad_init() < 0) return fail(Errc::io, "umad_init failed (libibumad)");
  auto all = list_ports();
  if (!all) return std::unexpected(all.error());
  auto picked = pick_port(*all, opts);
  if (!picked) return std::unexpected(picked.error());
  UmadPort port = picked->port;
  char issm[256] = {};
  if (umad_get_issm_path(port.ca.c_str(), port.port, issm, sizeof issm) < 0)
    return fail(Errc::not_found, fmt::format("no umad device for {} port {} in "
                                             "/sys/class/infiniband_mad (is ib_umad loaded?)",
                                             port.ca, port.port));
  port.device = issm;
  if (auto at = port.device.rfind("issm"); at != std::string::npos) port.device.replace(at, 4, "umad");
  std::unique_ptr<UmadTransport> t(new UmadTransport(std::move(port), opts.request_timeout));
  if (auto r = t->attach(); !r) return std::unexpected(r.error());  // ~UmadTransport undoes it
  return t;
}

Result<void> UmadTransport::attach() {
  const std::string where = fmt::format("{} ({} port {})", port_.device, port_.ca, port_.port);
  errno = 0;
  const int id = umad_open_port(port_.ca.c_str(), port_.port);
  if (id < 0) {
    const int err = errno;
    const bool denied = ::access(port_.device.c_str(), R_OK | W_OK) != 0 && errno == EACCES;
    return std::unexpected(open_port_error(where, id, err, denied));
  }
  portid_ = id;
  // umad_size() and umad_get_mad() depend on the ABI that umad_open_port just detected.
  send_buf_.assign(umad_size() + kMadSize, 0);

  // As an SM: receive Get/Set (SMInfo from other SMs, `sminfo`) and traps, besides the
  // responses to our own requests, on both SMP classes.
  long mask[16 / sizeof(long)] = {};
  for (uint8_t m : {method::get, method::set, method::trap, method::trap_repress}) set_method_bit(mask, m);
  agent_dr_ = umad_register(portid_, mgmt_class::subn_directed_route, kSmiClassVersion, 0, mask);
  if (agent_dr_ >= 0)
    agent_lid_ = umad_register(portid_, mgmt_class::subn_lid_routed, kSmiClassVersion, 0, mask);
  if (agent_dr_ < 0 || agent_lid_ < 0)
    return fail(Errc::io, fmt::format("cannot register as SM agent (classes 0x81 and 0x01) on {}: "
                                      "{} (is another SM, e.g. opensm, running on this port?)",
                                      where, errno_text(errno)));

  // The SA (class 0x03) of this SM: requests from clients, with the kernel doing RMPP for the
  // long answers (rmpp_version 1, as OpenSM registers it). Without it the SM still works.
  long sa_mask[16 / sizeof(long)] = {};
  for (uint8_t m : {sa_method::get, sa_method::set, sa_method::get_table, sa_method::get_multi, sa_method::del})
    set_method_bit(sa_mask, m);
  const int sa = umad_register(portid_, mgmt_class::subn_adm, kSaClassVersion, 1, sa_mask);
  gsi_agents_[mgmt_class::subn_adm] = sa >= 0 ? sa : kAgentFailed;
  // ibsim's libibumad shim has no RMPP (answers sent for the kernel to segment never reach
  // saquery intact through it): under it the SA sends its answers one MAD at a time itself.
  const char* preload = std::getenv("LD_PRELOAD");
  sa_kernel_rmpp_ = sa >= 0 && !(preload && std::strstr(preload, "umad2sim"));

  if (auto r = open_issm(); !r) return r;

  recv_buf_.assign(umad_size() + kMadSize, 0);
  return {};
}

// IsSM: set while the issm device stays open (the kernel, or the shim, clears it on close).
Result<void> UmadTransport::open_issm() {
  char issm[256] = {};
  (void)umad_get_issm_path(port_.ca.c_str(), port_.port, issm, sizeof issm);
  issm_fd_ = ::open(issm, O_RDONLY | O_NONBLOCK);
  if (issm_fd_ < 0) {
    const int err = errno;
    if (err == EAGAIN || err == EBUSY)
      return fail(Errc::conflict, fmt::format("{} is held by another process: another SM runs on "
                                              "{} port {}", issm, port_.ca, port_.port));
    return fail(Errc::io, fmt::format("cannot open {} to set IsSM: {}", issm,
                                      err == EACCES ? "permission denied (run as root)" : errno_text(err)));
  }
  return {};
}

// ibsim clears IsSM when any SM client of the port leaves, though this one still holds the
// device; a real kernel lets one process at a time hold it.
Result<void> UmadTransport::retake_is_sm() {
  if (issm_fd_ >= 0) ::close(issm_fd_);
  issm_fd_ = -1;
  return open_issm();
}

UmadTransport::~UmadTransport() {
  // Clearing IsSM makes the port send trap 144 to the SM LID, which is this port. ibsim's shim
  // hangs in its exit handler (or crashes) when a MAD arrives after the port is closed, so what
  // still comes (that trap, late answers) is taken until the port has been quiet for a moment.
  if (issm_fd_ >= 0) ::close(issm_fd_);
  if (portid_ >= 0 && !recv_buf_.empty()) {
    const int64_t closed = now_ns();
    std::vector<Packet> ignored;
    for (;;) {
      ignored.clear();
      if (!recv_one(ignored, 5)) break;
      const int64_t t = now_ns();
      if (t - closed >= kQuietMaxNs) break;
      if (t - closed >= kQuietNs && t - last_rx_ns_ >= kQuietNs) break;
    }
  }
  for (int a : gsi_agents_)
    if (a >= 0) umad_unregister(portid_, a);
  if (agent_lid_ >= 0) umad_unregister(portid_, agent_lid_);
  if (agent_dr_ >= 0) umad_unregister(portid_, agent_dr_);
  if (portid_ >= 0) umad_close_port(portid_);
  umad_done();
}

// The agent that sends a class: the SM's own for the two SMP classes; for a GSI class (SA,
// performance, ...) a client agent registered on first use with the MAD's class version.
int UmadTransport::agent_for(uint8_t cls, uint8_t version) {
  if (cls == mgmt_class::subn_directed_route) return agent_dr_;
  if (cls == mgmt_class::subn_lid_routed) return agent_lid_;
  int& a = gsi_agents_[cls];
  if (a == kAgentUntried) {
    a = umad_register(portid_, cls, version, 0, nullptr);
    if (a < 0) a = kAgentFailed;
  }
  return a;
}

Result<void> UmadTransport::send_rmpp(const MadAddress& to, std::span<const uint8_t> mad) {
  const int agent = gsi_agents_[mgmt_class::subn_adm];
  if (agent < 0) return fail(Errc::unsupported, "no SA agent registered for RMPP");
  // Headers plus the records, however few: the kernel pads the last segment and announces
  // the real length, from which the client counts the records.
  if (mad.size() < kSaHeaderSize) return fail(Errc::truncated, "an RMPP answer shorter than the SA headers");
  std::vector<uint8_t> buf(umad_size() + mad.size(), 0);
  std::memcpy(umad_get_mad(buf.data()), mad.data(), mad.size());
  umad_set_addr(buf.data(), to.lid.value(), to.qpn != 0 ? static_cast<int>(to.qpn) : 1, to.sl,
                static_cast<int>(kGsiQkey));
  umad_set_pkey(buf.data(), to.pkey_index);
  // The kernel waits this long for each window's ACK, and resends this many times.
  return post(agent, buf.data(), mad.size(), request_timeout_ms_, 3);
}

Result<void> UmadTransport::post(int agent, void* umad, size_t length, int timeout_ms, int retries) {
  const int r = umad_send(portid_, agent, umad, static_cast<int>(length), timeout_ms, retries);
  ++stats_.sent;
  if (r < 0) {
    ++stats_.send_errors;
    return fail(Errc::io, fmt::format("umad_send on {}: {}", port_.device, errno_text(errno != 0 ? errno : -r)));
  }
  return {};
}

Result<void> UmadTransport::send(const Packet& p) {
  const uint8_t cls = p.mad[1];
  const int agent = agent_for(cls, p.mad[2]);
  if (agent < 0)
    return fail(Errc::io, fmt::format("cannot register a umad agent for management class 0x{:02x} "
                                      "version {} on {}", cls, p.mad[2], port_.device));
  std::memset(send_buf_.data(), 0, umad_size());
  std::memcpy(umad_get_mad(send_buf_.data()), p.mad.data(), kMadSize);
  if (cls == mgmt_class::subn_directed_route) {
    // Pure DR: the permissive DLID (ibsim drops anything else), QP0, no Q_Key.
    umad_set_addr(send_buf_.data(), Lid::kPermissive, 0, p.addr.sl, 0);
  } else if (cls == mgmt_class::subn_lid_routed) {
    umad_set_addr(send_buf_.data(), p.addr.lid.value(), 0, p.addr.sl, 0);
  } else {  // GSI: QP1 and the well-known Q_Key unless the packet names others
    umad_set_addr(send_buf_.data(), p.addr.lid.value(), p.addr.qpn != 0 ? static_cast<int>(p.addr.qpn) : 1,
                  p.addr.sl, static_cast<int>(p.addr.qkey != 0 ? p.addr.qkey : kGsiQkey));
  }
  umad_set_pkey(send_buf_.data(), p.addr.pkey_index);
  // Responses need no kernel timeout; requests do, or the kernel drops their answers.
  const int timeout = method::is_response(p.mad[3]) || p.mad[3] == method::trap_repress ? 0 : request_timeout_ms_;
  const size_t length = std::clamp<size_t>(p.length, kMadHeaderSize, kMadSize);
  return post(agent, send_buf_.data(), length, timeout, 0);
}

// One umad_recv: the MAD in `out` (true), or nothing within `timeout_ms` (false). Errors other
// than a quiet timeout are counted; after kMaxRecvErrors in a row the port is given up on.
Result<bool> UmadTransport::recv_one(std::vector<Packet>& out, int timeout_ms) {
  int len = static_cast<int>(recv_buf_.size() - umad_size());
  const int agent = umad_recv(portid_, recv_buf_.data(), &len, timeout_ms);
  if (agent < 0) {
    if (agent == -ETIMEDOUT || agent == -EWOULDBLOCK || agent == -EAGAIN) return false;
    // A signal (SIGHUP, SIGTERM) ended the poll: libibumad says EIO, errno still says EINTR.
    if (errno == EINTR) return false;
    if (len > static_cast<int>(recv_buf_.size() - umad_size())) {  // longer than a MAD (RMPP): grow, drop
      recv_buf_.resize(umad_size() + static_cast<size_t>(len));
      return false;
    }
    // The shim's spurious wake-up with nothing queued, or a port going away.
    ++stats_.recv_errors;
    if (++recv_errors_ >= kMaxRecvErrors)
      return fail(Errc::io, fmt::format("umad_recv on {} keeps failing: {}", port_.device, errno_text(errno)));
    if (recv_errors_ > 3) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return false;
  }
  recv_errors_ = 0;
  last_rx_ns_ = now_ns();
  if (umad_status(recv_buf_.data()) != 0 || len < static_cast<int>(kMadHeaderSize)) {
    ++stats_.dropped;  // the kernel's timeout of a request: the transaction layer has its own
    return true;
  }
  ++stats_.received;
  Packet& p = out.emplace_back();
  std::memcpy(p.mad.data(), umad_get_mad(recv_buf_.data()), std::min(static_cast<size_t>(len), kMadSize));
  const ib_mad_addr_t* a = umad_get_mad_addr(recv_buf_.data());
  p.addr.lid = Lid(be16toh(a->lid));
  p.addr.qpn = be32toh(a->qpn);
  p.addr.qkey = be32toh(a->qkey);
  p.addr.sl = a->sl;
  p.addr.pkey_index = static_cast<uint16_t>(umad_get_pkey(recv_buf_.data()));
  return true;
}

// Blocks in umad_recv itself (no thread of its own): on ibsim each hand-over between threads
// (a futex wake-up) costs more CPU than the SM spends on the MAD.
Result<void> UmadTransport::receive(std::vector<Packet>& out, Nanos deadline) {
  const size_t before = out.size();
  for (size_t taken = 0; taken < kMaxBatch; ++taken) {
    int timeout_ms = 0;  // once something came: only what is already queued
    if (out.size() == before && taken == 0) {
      const Nanos left = deadline - clock_.now();
      // Rounded up: a wait that ends before the deadline only loops once more.
      timeout_ms = left <= Nanos{0} ? 0 : static_cast<int>(std::min<int64_t>((left.count() + 999'999) / 1'000'000, 1'000'000));
    }
    auto got = recv_one(out, timeout_ms);
    if (!got) return std::unexpected(got.error());
    if (!*got) break;
  }
  return {};
}

UmadStats UmadTransport::stats() const { return stats_; }

}  // namespace mad
