#include "mad/sa_multipath_record.h"

#include <fmt/format.h>

#include <algorithm>

namespace mad {

namespace {

constexpr FieldSpec kMultiPath[] = {
    {"RawTraffic", 0, 1}, {"Reserved", 1, 3}, {"FlowLabel", 4, 20}, {"HopLimit", 24, 8}, {"TClass", 32, 8},
    {"Reversible", 40, 1}, {"NumbPath", 41, 7}, {"P_Key", 48, 16}, {"QoSClass", 64, 12}, {"SL", 76, 4},
    {"MTUSelector", 80, 2}, {"MTU", 82, 6}, {"RateSelector", 88, 2}, {"Rate", 90, 6},
    {"PacketLifeTimeSelector", 96, 2}, {"PacketLifeTime", 98, 6}, {"ServiceID8MSB", 104, 8},
    {"IndependenceSelector", 112, 2}, {"Reserved", 114, 6}, {"SGIDCount", 120, 8}, {"DGIDCount", 128, 8},
    {"ServiceID56LSB", 136, 56},
};

enum MP : size_t {
  mp_raw, mp_resv0, mp_flow, mp_hop, mp_tclass, mp_rev, mp_numb, mp_pkey, mp_qos, mp_sl, mp_mtu_sel, mp_mtu,
  mp_rate_sel, mp_rate, mp_life_sel, mp_life, mp_sid_msb, mp_indep, mp_resv1, mp_sgids, mp_dgids, mp_sid_lsb,
};

}  // namespace

std::span<const FieldSpec> MultiPathRecord::components() { return kMultiPath; }

void MultiPathRecord::encode(std::span<uint8_t> out) const {
  const auto& f = kMultiPath;
  for (size_t i = 0; i < size() && i < out.size(); ++i) out[i] = 0;
  put_field(out, f[mp_raw], raw_traffic);
  put_field(out, f[mp_flow], flow_label);
  put_field(out, f[mp_hop], hop_limit);
  put_field(out, f[mp_tclass], tclass);
  put_field(out, f[mp_rev], reversible);
  put_field(out, f[mp_numb], numb_path);
  put_field(out, f[mp_pkey], pkey);
  put_field(out, f[mp_qos], qos_class);
  put_field(out, f[mp_sl], sl);
  put_field(out, f[mp_mtu_sel], mtu_selector);
  put_field(out, f[mp_mtu], mtu);
  put_field(out, f[mp_rate_sel], rate_selector);
  put_field(out, f[mp_rate], rate);
  put_field(out, f[mp_life_sel], pkt_life_selector);
  put_field(out, f[mp_life], pkt_life);
  put_field(out, f[mp_sid_msb], service_id >> 56);
  put_field(out, f[mp_indep], independence);
  // The counts say what is written: SGIDs first, as many as fit (and 255 at most each).
  const size_t room = out.size() > kHeadSize ? (out.size() - kHeadSize) / kGidSize : 0;
  const size_t ns = std::min({sgids.size(), size_t{255}, room});
  const size_t nd = std::min({dgids.size(), size_t{255}, room - ns});
  put_field(out, f[mp_sgids], ns);
  put_field(out, f[mp_dgids], nd);
  put_field(out, f[mp_sid_lsb], service_id);
  size_t at = kHeadSize;
  for (size_t i = 0; i < ns + nd; ++i, at += kGidSize)
    (i < ns ? sgids[i] : dgids[i - ns]).encode(out.subspan(at, kGidSize));
}

Result<MultiPathRecord> MultiPathRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kHeadSize)
    return fail(Errc::truncated, fmt::format("MultiPathRecord needs {} bytes, got {}", kHeadSize, in.size()));
  const auto& f = kMultiPath;
  MultiPathRecord m;
  m.raw_traffic = get_field(in, f[mp_raw]) != 0;
  m.flow_label = static_cast<uint32_t>(get_field(in, f[mp_flow]));
  m.hop_limit = static_cast<uint8_t>(get_field(in, f[mp_hop]));
  m.tclass = static_cast<uint8_t>(get_field(in, f[mp_tclass]));
  m.reversible = get_field(in, f[mp_rev]) != 0;
  m.numb_path = static_cast<uint8_t>(get_field(in, f[mp_numb]));
  m.pkey = static_cast<uint16_t>(get_field(in, f[mp_pkey]));
  m.qos_class = static_cast<uint16_t>(get_field(in, f[mp_qos]));
  m.sl = static_cast<uint8_t>(get_field(in, f[mp_sl]));
  m.mtu_selector = static_cast<uint8_t>(get_field(in, f[mp_mtu_sel]));
  m.mtu = static_cast<uint8_t>(get_field(in, f[mp_mtu]));
  m.rate_selector = static_cast<uint8_t>(get_field(in, f[mp_rate_sel]));
  m.rate = static_cast<uint8_t>(get_field(in, f[mp_rate]));
  m.pkt_life_selector = static_cast<uint8_t>(get_field(in, f[mp_life_sel]));
  m.pkt_life = static_cast<uint8_t>(get_field(in, f[mp_life]));
  m.service_id = get_field(in, f[mp_sid_msb]) << 56 | get_field(in, f[mp_sid_lsb]);
  m.independence = static_cast<uint8_t>(get_field(in, f[mp_indep]));
  const size_t ns = get_field(in, f[mp_sgids]), nd = get_field(in, f[mp_dgids]);
  const size_t need = kHeadSize + kGidSize * (ns + nd);
  if (in.size() < need)
    return fail(Errc::truncated,
                fmt::format("MultiPathRecord with {} + {} GIDs needs {} bytes, got {}", ns, nd, need, in.size()));
  size_t at = kHeadSize;
  for (size_t i = 0; i < ns + nd; ++i, at += kGidSize)
    (i < ns ? m.sgids : m.dgids).push_back(Gid::decode(in.subspan(at, kGidSize)));
  return m;
}

std::string MultiPathRecord::to_string() const {
  std::string gids;
  for (const Gid& g : sgids) gids += " sgid " + g.str();
  for (const Gid& g : dgids) gids += " dgid " + g.str();
  return fmt::format(
      "MultiPathRecord raw {} flow_label 0x{:x} hop_limit {} tclass {} reversible {} numb_path {} pkey 0x{:04x} "
      "qos_class {} sl {} mtu {}:{} rate {}:{} pkt_life {}:{} service_id 0x{:016x} independence {}{}",
      raw_traffic ? 1 : 0, flow_label, hop_limit, tclass, reversible ? 1 : 0, numb_path, pkey, qos_class, sl,
      mtu_selector, mtu, rate_selector, rate, pkt_life_selector, pkt_life, service_id, independence, gids);
}

}  // namespace mad
