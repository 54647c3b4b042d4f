#include "mad/sa_path_record.h"

#include <fmt/format.h>

namespace mad {

namespace {

constexpr FieldSpec kPathRecord[] = {
    {"ServiceID8MSB", 0, 8}, {"ServiceID56LSB", 8, 56}, {"DGID", 64, 128}, {"SGID", 192, 128},
    {"DLID", 320, 16}, {"SLID", 336, 16}, {"RawTraffic", 352, 1}, {"Reserved", 353, 3},
    {"FlowLabel", 356, 20}, {"HopLimit", 376, 8}, {"TClass", 384, 8}, {"Reversible", 392, 1},
    {"NumbPath", 393, 7}, {"P_Key", 400, 16}, {"QoSClass", 416, 12}, {"SL", 428, 4},
    {"MTUSelector", 432, 2}, {"MTU", 434, 6}, {"RateSelector", 440, 2}, {"Rate", 442, 6},
    {"PacketLifeTimeSelector", 448, 2}, {"PacketLifeTime", 450, 6}, {"Preference", 456, 8},
};

constexpr FieldSpec kMcMember[] = {
    {"MGID", 0, 128}, {"PortGID", 128, 128}, {"Q_Key", 256, 32}, {"MLID", 288, 16},
    {"MTUSelector", 304, 2}, {"MTU", 306, 6}, {"TClass", 312, 8}, {"P_Key", 320, 16},
    {"RateSelector", 336, 2}, {"Rate", 338, 6}, {"PacketLifeTimeSelector", 344, 2},
    {"PacketLifeTime", 346, 6}, {"SL", 352, 4}, {"FlowLabel", 356, 20}, {"HopLimit", 376, 8},
    {"Scope", 384, 4}, {"JoinState", 388, 4}, {"ProxyJoin", 392, 1},
};

enum PR : size_t {
  pr_sid_msb, pr_sid_lsb, pr_dgid, pr_sgid, pr_dlid, pr_slid, pr_raw, pr_resv, pr_flow, pr_hop, pr_tclass,
  pr_rev, pr_numb, pr_pkey, pr_qos, pr_sl, pr_mtu_sel, pr_mtu, pr_rate_sel, pr_rate, pr_life_sel, pr_life,
  pr_pref,
};
enum MC : size_t {
  mc_mgid, mc_port_gid, mc_qkey, mc_mlid, mc_mtu_sel, mc_mtu, mc_tclass, mc_pkey, mc_rate_sel, mc_rate,
  mc_life_sel, mc_life, mc_sl, mc_flow, mc_hop, mc_scope, mc_join, mc_proxy,
};

struct Rate {
  uint8_t code;
  unsigned tenths;
};
// Every code with its speed, slowest first.
constexpr Rate kRates[] = {
    {rate::r2_5, 25},  {rate::r5, 50},     {rate::r10, 100},   {rate::r14, 140},   {rate::r20, 200},
    {rate::r25, 250},  {rate::r28, 280},   {rate::r30, 300},   {rate::r40, 400},   {rate::r50, 500},
    {rate::r56, 560},  {rate::r60, 600},   {rate::r80, 800},   {rate::r100, 1000}, {rate::r112, 1120},
    {rate::r120, 1200}, {rate::r168, 1680}, {rate::r200, 2000}, {rate::r300, 3000}, {rate::r400, 4000},
    {rate::r600, 6000}, {rate::r800, 8000}, {rate::r1200, 12000},
};

}  // namespace

unsigned rate::tenths_gbps(uint8_t code) {
  for (const Rate& r : kRates)
    if (r.code == code) return r.tenths;
  return 0;
}

bool rate::valid(uint8_t code) { return tenths_gbps(code) != 0; }

uint8_t rate::next_lower(uint8_t code) {
  const unsigned t = tenths_gbps(code);
  uint8_t best = 0;
  unsigned best_t = 0;
  for (const Rate& r : kRates)
    if (r.tenths < t && r.tenths > best_t) {
      best = r.code;
      best_t = r.tenths;
    }
  return best;
}

uint8_t rate::of_link(uint8_t width, uint8_t speed, uint8_t speed_ext, bool extended) {
  // Lanes per width code (1x, 4x, 8x, 12x, 2x); an unknown width counts as 1x.
  const unsigned lanes = width == 0x02 ? 4 : width == 0x04 ? 8 : width == 0x08 ? 12 : width == 0x10 ? 2 : 1;
  unsigned per_lane = 0;  // tenths of Gb/s, as the rate codes name them
  if (extended && speed_ext != 0) {
    per_lane = speed_ext & 0x8 ? 1000 : speed_ext & 0x4 ? 500 : speed_ext & 0x2 ? 250 : 140;
  } else {
    per_lane = speed & 0x4 ? 100 : speed & 0x2 ? 50 : 25;
  }
  const unsigned want = per_lane * lanes;
  for (const Rate& r : kRates)
    if (r.tenths == want) return r.code;
  return rate::r2_5;
}

std::span<const FieldSpec> PathRecord::components() { return kPathRecord; }
std::span<const FieldSpec> McMemberRecord::components() { return kMcMember; }

void PathRecord::encode(std::span<uint8_t> out) const {
  const auto& f = kPathRecord;
  for (size_t i = 0; i < kSize && i < out.size(); ++i) out[i] = 0;
  put_field(out, f[pr_sid_msb], service_id >> 56);
  put_field(out, f[pr_sid_lsb], service_id);
  if (out.size() >= kSize) {
    dgid.encode(out.subspan(8, 16));
    sgid.encode(out.subspan(24, 16));
  }
  put_field(out, f[pr_dlid], dlid.value());
  put_field(out, f[pr_slid], slid.value());
  put_field(out, f[pr_raw], raw_traffic);
  put_field(out, f[pr_flow], flow_label);
  put_field(out, f[pr_hop], hop_limit);
  put_field(out, f[pr_tclass], tclass);
  put_field(out, f[pr_rev], reversible);
  put_field(out, f[pr_numb], numb_path);
  put_field(out, f[pr_pkey], pkey);
  put_field(out, f[pr_qos], qos_class);
  put_field(out, f[pr_sl], sl);
  put_field(out, f[pr_mtu_sel], mtu_selector);
  put_field(out, f[pr_mtu], mtu);
  put_field(out, f[pr_rate_sel], rate_selector);
  put_field(out, f[pr_rate], rate);
  put_field(out, f[pr_life_sel], pkt_life_selector);
  put_field(out, f[pr_life], pkt_life);
  put_field(out, f[pr_pref], preference);
}

Result<PathRecord> PathRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("PathRecord needs {} bytes, got {}", kSize, in.size()));
  const auto& f = kPathRecord;
  PathRecord p;
  p.service_id = get_field(in, f[pr_sid_msb]) << 56 | get_field(in, f[pr_sid_lsb]);
  p.dgid = Gid::decode(in.subspan(8, 16));
  p.sgid = Gid::decode(in.subspan(24, 16));
  p.dlid = Lid(static_cast<uint16_t>(get_field(in, f[pr_dlid])));
  p.slid = Lid(static_cast<uint16_t>(get_field(in, f[pr_slid])));
  p.raw_traffic = get_field(in, f[pr_raw]) != 0;
  p.flow_label = static_cast<uint32_t>(get_field(in, f[pr_flow]));
  p.hop_limit = static_cast<uint8_t>(get_field(in, f[pr_hop]));
  p.tclass = static_cast<uint8_t>(get_field(in, f[pr_tclass]));
  p.reversible = get_field(in, f[pr_rev]) != 0;
  p.numb_path = static_cast<uint8_t>(get_field(in, f[pr_numb]));
  p.pkey = static_cast<uint16_t>(get_field(in, f[pr_pkey]));
  p.qos_class = static_cast<uint16_t>(get_field(in, f[pr_qos]));
  p.sl = static_cast<uint8_t>(get_field(in, f[pr_sl]));
  p.mtu_selector = static_cast<uint8_t>(get_field(in, f[pr_mtu_sel]));
  p.mtu = static_cast<uint8_t>(get_field(in, f[pr_mtu]));
  p.rate_selector = static_cast<uint8_t>(get_field(in, f[pr_rate_sel]));
  p.rate = static_cast<uint8_t>(get_field(in, f[pr_rate]));
  p.pkt_life_selector = static_cast<uint8_t>(get_field(in, f[pr_life_sel]));
  p.pkt_life = static_cast<uint8_t>(get_field(in, f[pr_life]));
  p.preference = static_cast<uint8_t>(get_field(in, f[pr_pref]));
  return p;
}

std::string PathRecord::to_string() const {
  return fmt::format(
      "PathRecord service_id 0x{:016x} dgid {} sgid {} dlid {} slid {} raw {} flow_label 0x{:x} hop_limit {} "
      "tclass {} reversible {} numb_path {} pkey 0x{:04x} qos_class {} sl {} mtu {}:{} rate {}:{} "
      "pkt_life {}:{} preference {}",
      service_id, dgid.str(), sgid.str(), dlid.value(), slid.value(), raw_traffic ? 1 : 0, flow_label, hop_limit,
      tclass, reversible ? 1 : 0, numb_path, pkey, qos_class, sl, mtu_selector, mtu, rate_selector, rate,
      pkt_life_selector, pkt_life, preference);
}

void McMemberRecord::encode(std::span<uint8_t> out) const {
  const auto& f = kMcMember;
  for (size_t i = 0; i < kSize && i < out.size(); ++i) out[i] = 0;
  if (out.size() >= kSize) {
    mgid.encode(out.subspan(0, 16));
    port_gid.encode(out.subspan(16, 16));
  }
  put_field(out, f[mc_qkey], qkey);
  put_field(out, f[mc_mlid], mlid.value());
  put_field(out, f[mc_mtu_sel], mtu_selector);
  put_field(out, f[mc_mtu], mtu);
  put_field(out, f[mc_tclass], tclass);
  put_field(out, f[mc_pkey], pkey);
  put_field(out, f[mc_rate_sel], rate_selector);
  put_field(out, f[mc_rate], rate);
  put_field(out, f[mc_life_sel], pkt_life_selector);
  put_field(out, f[mc_life], pkt_life);
  put_field(out, f[mc_sl], sl);
  put_field(out, f[mc_flow], flow_label);
  put_field(out, f[mc_hop], hop_limit);
  put_field(out, f[mc_scope], scope);
  put_field(out, f[mc_join], join_state);
  put_field(out, f[mc_proxy], proxy_join);
}

Result<McMemberRecord> McMemberRecord::decode(std::span<const uint8_t> in) {
  if (in.size() < kSize)
    return fail(Errc::truncated, fmt::format("MCMemberRecord needs {} bytes, got {}", kSize, in.size()));
  const auto& f = kMcMember;
  McMemberRecord m;
  m.mgid = Gid::decode(in.subspan(0, 16));
  m.port_gid = Gid::decode(in.subspan(16, 16));
  m.qkey = static_cast<uint32_t>(get_field(in, f[mc_qkey]));
  m.mlid = Lid(static_cast<uint16_t>(get_field(in, f[mc_mlid])));
  m.mtu_selector = static_cast<uint8_t>(get_field(in, f[mc_mtu_sel]));
  m.mtu = static_cast<uint8_t>(get_field(in, f[mc_mtu]));
  m.tclass = static_cast<uint8_t>(get_field(in, f[mc_tclass]));
  m.pkey = static_cast<uint16_t>(get_field(in, f[mc_pkey]));
  m.rate_selector = static_cast<uint8_t>(get_field(in, f[mc_rate_sel]));
  m.rate = static_cast<uint8_t>(get_field(in, f[mc_rate]));
  m.pkt_life_selector = static_cast<uint8_t>(get_field(in, f[mc_life_sel]));
  m.pkt_life = static_cast<uint8_t>(get_field(in, f[mc_life]));
  m.sl = static_cast<uint8_t>(get_field(in, f[mc_sl]));
  m.flow_label = static_cast<uint32_t>(get_field(in, f[mc_flow]));
  m.hop_limit = static_cast<uint8_t>(get_field(in, f[mc_hop]));
  m.scope = static_cast<uint8_t>(get_field(in, f[mc_scope]));
  m.join_state = static_cast<uint8_t>(get_field(in, f[mc_join]));
  m.proxy_join = get_field(in, f[mc_proxy]) != 0;
  return m;
}

std::string McMemberRecord::to_string() const {
  return fmt::format(
      "MCMemberRecord mgid {} port_gid {} qkey 0x{:08x} mlid 0x{:04x} mtu {}:{} tclass {} pkey 0x{:04x} "
      "rate {}:{} pkt_life {}:{} sl {} flow_label 0x{:x} hop_limit {} scope {} join_state 0x{:x} proxy {}",
      mgid.str(), port_gid.str(), qkey, mlid.value(), mtu_selector, mtu, tclass, pkey, rate_selector, rate,
      pkt_life_selector, pkt_life, sl, flow_label, hop_limit, scope, join_state, proxy_join ? 1 : 0);
}

}  // namespace mad
