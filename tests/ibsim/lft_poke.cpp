// lft_poke DRPATH LID PORT [block]: rewrites one LinearForwardingTable entry of the switch at
// DRPATH ("0,1,5" as dump_fts prints it): a DR Get of the block that holds LID, that entry set
// to PORT, a DR Set of the block; with `block`, all 64 entries of that block (as a host that is
// not an SM black-holing LIDs would). infiniband-diags can read LFTs but not write them; the ibsim
// suite's negative control uses this to break a fabric on purpose and see the checks fail.
// lft_poke DRPATH LID get: prints that entry's port, nothing written (dump_fts and ibroute stop
// one block short when the top LID opens a block: bench/routing-vs-opensm reads it this way).
// A plain libibumad client (no IsSM, no method mask), like the diags.
#include <infiniband/umad.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "mad/byte_io.h"
#include "mad/smp.h"

namespace {

bool parse_path(std::string_view s, mad::DrPath& out) {
  bool first = true;
  while (!s.empty()) {
    const size_t comma = s.find(',');
    const std::string_view item = s.substr(0, comma);
    unsigned v = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v > 254) return false;
    if (!first && !out.push(mad::PortNum(static_cast<uint8_t>(v)))) return false;
    if (first && v != 0) return false;  // "0" is the local port, as in dump_fts/OpenSM
    first = false;
    s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
  }
  return !first;
}

// One SMP out and its answer back into `smp` (matched on the low 32 bits of the TID).
bool transact(int fd, int agent, mad::Smp& smp, uint32_t tid) {
  smp.tid = tid;
  const mad::MadBytes bytes = mad::encode_smp(smp);
  std::vector<uint8_t> buf(umad_size() + mad::kMadSize);
  std::memcpy(umad_get_mad(buf.data()), bytes.data(), bytes.size());
  umad_set_addr(buf.data(), 0xFFFF, 0, 0, 0);
  if (umad_send(fd, agent, buf.data(), static_cast<int>(mad::kMadSize), 1000, 0) < 0) {
    std::perror("umad_send");
    return false;
  }
  for (int tries = 0; tries < 20; ++tries) {
    int len = static_cast<int>(mad::kMadSize);
    if (umad_recv(fd, buf.data(), &len, 1000) < 0) continue;
    const auto* mad = static_cast<const uint8_t*>(umad_get_mad(buf.data()));
    mad::ByteReader r(std::span<const uint8_t>(mad, mad::kMadSize));
    if (r.read_be32(12) != tid) continue;
    auto resp = mad::decode_smp(std::span<const uint8_t>(mad, mad::kMadSize));
    if (!resp) return false;
    smp = *resp;
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  mad::DrPath path;
  unsigned lid = 0, port = 0;
  const bool whole = argc == 5 && std::string_view(argv[4]) == "block";
  const bool get_only = argc == 4 && std::string_view(argv[3]) == "get";
  if ((argc != 4 && !whole) || !parse_path(argv[1], path) || std::sscanf(argv[2], "%u", &lid) != 1 ||
      (!get_only && std::sscanf(argv[3], "%u", &port) != 1) || lid == 0 || lid > 0xBFFF || port > 255) {
    std::fprintf(stderr, "usage: lft_poke DRPATH LID PORT [block] | lft_poke DRPATH LID get   e.g. lft_poke 0,1,5 20 3\n");
    return 2;
  }
  if (umad_init() < 0) return 1;
  const int fd = umad_open_port(nullptr, 0);
  if (fd < 0) {
    std::fprintf(stderr, "lft_poke: cannot open a umad port\n");
    return 1;
  }
  const int agent = umad_register(fd, mad::mgmt_class::subn_directed_route, 1, 0, nullptr);
  if (agent < 0) {
    std::fprintf(stderr, "lft_poke: cannot register class 0x81\n");
    return 1;
  }
  const uint32_t block = lid / 64, index = lid % 64;
  mad::Smp smp = mad::make_dr_smp(mad::method::get, mad::attr::linear_fwd_table, block, path);
  if (!transact(fd, agent, smp, 0x1001) || smp.status != 0) {
    std::fprintf(stderr, "lft_poke: LFT block %u Get at %s failed\n", block, path.str().c_str());
    return 1;
  }
  const unsigned old = smp.data[index];
  if (get_only) {
    std::printf("%u\n", old);
    return 0;
  }
  mad::Smp set = mad::make_dr_smp(mad::method::set, mad::attr::linear_fwd_table, block, path);
  set.data = smp.data;
  set.data[index] = static_cast<uint8_t>(port);
  if (whole) std::fill_n(set.data.begin(), 64, static_cast<uint8_t>(port));
  if (!transact(fd, agent, set, 0x1002) || set.status != 0 || set.data[index] != port) {
    std::fprintf(stderr, "lft_poke: LFT block %u Set at %s failed\n", block, path.str().c_str());
    return 1;
  }
  std::printf("switch at %s: LID %u%s now leave%s by port %u (was %u)\n", path.str().c_str(), lid,
              whole ? " and the rest of its block" : "", whole ? "" : "s", port, old);
  umad_unregister(fd, agent);
  umad_close_port(fd);
  return 0;
}
