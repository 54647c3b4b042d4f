#include "sm/multicast/groups.h"

#include <fmt/format.h>

#include "mad/byte_io.h"
#include "mad/sa_path_record.h"

namespace sm::multicast {

bool Group::has_full_member() const {
  for (const auto& [port, js] : members)
    if (js & mad::join_state::full) return true;
  return false;
}

const Group* Registry::find(const mad::Gid& mgid) const {
  auto it = groups_.find(mgid);
  return it == groups_.end() ? nullptr : &it->second;
}

Group* Registry::find(const mad::Gid& mgid) {
  auto it = groups_.find(mgid);
  return it == groups_.end() ? nullptr : &it->second;
}

const Group* Registry::by_mlid(mad::Lid mlid) const {
  auto it = by_mlid_.find(mlid.value());
  return it == by_mlid_.end() ? nullptr : find(it->second);
}

void Registry::touch(const mad::Gid& mgid) {
  changed_.insert(mgid);
  ++version_;
}

mad::Result<Group*> Registry::create(const mad::Gid& mgid, const GroupParams& params, bool kept) {
  if (groups_.count(mgid)) return mad::fail(mad::Errc::conflict, fmt::format("group {} exists", mgid.str()));
  uint32_t mlid = kMlidFirst;
  for (const auto& [used, g] : by_mlid_) {  // ascending: the first gap is the lowest free
    if (used != mlid) break;
    ++mlid;
  }
  if (mlid > kMlidLast) return mad::fail(mad::Errc::exhausted, "no free multicast LID");
  Group g;
  g.mgid = mgid;
  g.mlid = mad::Lid(static_cast<uint16_t>(mlid));
  g.params = params;
  g.kept = kept;
  by_mlid_[static_cast<uint16_t>(mlid)] = mgid;
  touch(mgid);
  return &(groups_[mgid] = std::move(g));
}

mad::Result<void> Registry::restore(Group g) {
  if (!g.mlid.is_multicast())
    return mad::fail(mad::Errc::invalid, fmt::format("group {}: MLID 0x{:04x} is not multicast", g.mgid.str(),
                                                     g.mlid.value()));
  if (groups_.count(g.mgid)) return mad::fail(mad::Errc::conflict, fmt::format("group {} exists", g.mgid.str()));
  if (by_mlid_.count(g.mlid.value()))
    return mad::fail(mad::Errc::conflict,
                     fmt::format("group {}: MLID 0x{:04x} is taken", g.mgid.str(), g.mlid.value()));
  by_mlid_[g.mlid.value()] = g.mgid;
  ++version_;  // the tables change; the store already holds it
  const mad::Gid key = g.mgid;
  groups_[key] = std::move(g);
  return {};
}

void Registry::clear() {
  groups_.clear();
  by_mlid_.clear();
  changed_.clear();
  ++version_;
}

void Registry::erase(const mad::Gid& mgid) {
  auto it = groups_.find(mgid);
  if (it == groups_.end()) return;
  by_mlid_.erase(it->second.mlid.value());
  groups_.erase(it);
  touch(mgid);
}

void Registry::set_kept(const mad::Gid& mgid, bool kept) {
  Group* g = find(mgid);
  if (!g || g->kept == kept) return;
  g->kept = kept;
  touch(mgid);
}

void Registry::set_member(const mad::Gid& mgid, const mad::Gid& port, uint8_t join_state) {
  Group* g = find(mgid);
  if (!g) return;
  if (join_state == 0) {
    if (g->members.erase(port)) touch(mgid);
    return;
  }
  auto [it, added] = g->members.try_emplace(port, join_state);
  if (!added && it->second == join_state) return;
  it->second = join_state;
  touch(mgid);
}

mad::Gid Registry::unused_mgid(uint8_t scope, uint64_t subnet_prefix) const {
  // ff1S:a01b:<prefix, 8 bytes>:<number, 4 bytes>; prefix bytes 4-11, the number 12-15.
  const uint64_t hi = (0xFF10ULL | (scope & 0xF)) << 48 | 0xA01BULL << 32 | (subnet_prefix >> 32);
  const uint64_t lo_base = (subnet_prefix & 0xFFFFFFFFULL) << 32;
  for (uint64_t n = 0;; ++n) {  // at most groups_.size() + 1 tries
    const mad::Gid g(hi, lo_base | n);
    if (!groups_.count(g)) return g;
  }
}

std::vector<mad::Gid> Registry::take_changed() {
  std::vector<mad::Gid> out(changed_.begin(), changed_.end());
  changed_.clear();
  return out;
}

namespace {
constexpr uint8_t kFormat = 1;
constexpr size_t kHead = 41;   // format, MGID, MLID, kept, parameters, member count
constexpr size_t kMember = 17; // port GID, JoinState
}  // namespace

std::vector<uint8_t> mgid_key(const mad::Gid& mgid) {
  std::vector<uint8_t> k(16);
  mgid.encode(k);
  return k;
}

std::vector<uint8_t> encode_group(const Group& g) {
  std::vector<uint8_t> b(kHead + kMember * g.members.size());
  mad::ByteWriter w(b);
  const GroupParams& p = g.params;
  w.write_u8(0, kFormat);
  g.mgid.encode(std::span(b).subspan(1, 16));
  w.write_be16(17, g.mlid.value());
  w.write_u8(19, g.kept ? 1 : 0);
  w.write_be32(20, p.qkey);
  w.write_be16(24, p.pkey);
  w.write_u8(26, p.mtu);
  w.write_u8(27, p.rate);
  w.write_u8(28, p.sl);
  w.write_be32(29, p.flow_label);
  w.write_u8(33, p.tclass);
  w.write_u8(34, p.scope);
  w.write_u8(35, p.hop_limit);
  w.write_u8(36, p.pkt_life);
  w.write_be32(37, static_cast<uint32_t>(g.members.size()));
  size_t off = kHead;
  for (const auto& [port, js] : g.members) {
    port.encode(std::span(b).subspan(off, 16));
    w.write_u8(off + 16, js);
    off += kMember;
  }
  return b;
}

mad::Result<Group> decode_group(std::span<const uint8_t> b) {
  if (b.size() < kHead) return mad::fail(mad::Errc::truncated, "multicast group record: too short");
  mad::ByteReader r(b);
  if (r.read_u8(0) != kFormat)
    return mad::fail(mad::Errc::unsupported, fmt::format("multicast group record: format {}", r.read_u8(0)));
  Group g;
  g.mgid = mad::Gid::decode(b.subspan(1, 16));
  g.mlid = mad::Lid(r.read_be16(17));
  g.kept = r.read_u8(19) != 0;
  GroupParams& p = g.params;
  p.qkey = r.read_be32(20);
  p.pkey = r.read_be16(24);
  p.mtu = r.read_u8(26);
  p.rate = r.read_u8(27);
  p.sl = r.read_u8(28);
  p.flow_label = r.read_be32(29);
  p.tclass = r.read_u8(33);
  p.scope = r.read_u8(34);
  p.hop_limit = r.read_u8(35);
  p.pkt_life = r.read_u8(36);
  const uint32_t n = r.read_be32(37);
  if (b.size() != kHead + kMember * size_t{n})
    return mad::fail(mad::Errc::invalid, fmt::format("multicast group record: {} bytes for {} members", b.size(), n));
  if (!g.mgid.is_multicast() || !g.mlid.is_multicast() || p.sl > 15 || p.flow_label > 0xFFFFF || p.scope > 15)
    return mad::fail(mad::Errc::invalid, "multicast group record: a field out of range");
  for (uint32_t i = 0; i < n; ++i) {
    const size_t off = kHead + kMember * i;
    const mad::Gid port = mad::Gid::decode(b.subspan(off, 16));
    const uint8_t js = r.read_u8(off + 16);
    if (js == 0 || js > 0xF || !g.members.emplace(port, js).second)
      return mad::fail(mad::Errc::invalid, "multicast group record: a bad member");
  }
  return g;
}

}  // namespace sm::multicast
