// The drill's rogue event (drill.h): a host that is not an SM tries to reprogram a switch on
// the master's path with LID-routed SMPs, as root on that host could with the umad device.
// Whether M_Key protection refuses it is the SMA's business (sim/sma.cpp); reporting it is the
// SM's (trap 256: E0610, the violation counter: W0609); repairing what got through is the SM's
// LFT read-back (lft_verify_pass) and its sweeps. The drill only attacks, watches and times.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cli/drill.h"
#include "mad/attributes.h"
#include "sim/verifier.h"

namespace cli {

namespace {

using namespace std::chrono_literals;

double rogue_ms(mad::Nanos from, mad::Nanos to) { return static_cast<double>((to - from).count()) / 1e6; }

// What root on a host does with the umad device: LID-routed SMPs (class 0x01) from its own
// port, each answer (if any) back to its inbox.
class RogueHost final : public mad::Reactor {
 public:
  RogueHost(sim::SimFabric& f, sim::EndpointId ep) : f_(f), ep_(ep) {}

  uint64_t send(mad::Smp s, uint16_t dlid) {
    s.tid = 0x524F475545000000ULL | ++sent_;  // "ROGUE"
    mad::Packet p;
    p.mad = mad::encode_smp(s);
    p.addr.lid = mad::Lid(dlid);
    f_.inject(ep_, p);
    return s.tid;
  }
  const mad::Smp* answer(uint64_t tid) const {
    auto it = answers_.find(tid);
    return it == answers_.end() ? nullptr : &it->second;
  }
  bool answered_all(const std::vector<uint64_t>& tids) const {
    return std::all_of(tids.begin(), tids.end(), [&](uint64_t t) { return answers_.contains(t); });
  }

  void on_mad(const mad::Packet& p) override {
    auto s = mad::decode_smp(p.mad);
    if (s && s->method == mad::method::get_resp) answers_.emplace(s->tid, *s);
  }
  void on_tick() override {}
  std::optional<mad::Nanos> next_deadline() const override { return std::nullopt; }

 private:
  sim::SimFabric& f_;
  sim::EndpointId ep_;
  uint64_t sent_ = 0;
  std::map<uint64_t, mad::Smp> answers_;
};

// What the verifier says of the whole fabric, to compare before, during and after.
struct RouteFigures {
  uint64_t routed = 0, unrouted = 0, loops = 0, no_lid = 0, duplicate_lids = 0, ports_not_active = 0;
  std::vector<uint64_t> hops;
  bool operator==(const RouteFigures&) const = default;
};

RouteFigures route_figures(const sim::SimFabric& f) {
  const sim::VerifyReport r = sim::verify_routing(f, sim::VerifyOptions{.max_samples = 0});
  return RouteFigures{r.routed, r.unrouted, r.loops, r.no_lid, r.duplicate_lids, r.ports_not_active, r.hop_histogram};
}

// The CA to attack from: one that runs no SM, with a LID and a free port 1, as many links from
// the master as any; the first such node on ties.
std::optional<sim::NodeIdx> pick_rogue(const Cluster& c, sim::NodeIdx master) {
  const sim::SimFabric& f = c.fabric();
  std::set<sim::NodeIdx> sm_nodes;
  for (size_t i = 0; i < c.size(); ++i) sm_nodes.insert(c.node_of(i));
  std::vector<uint32_t> dist(f.nodes().size(), UINT32_MAX);
  std::vector<sim::NodeIdx> queue{master};
  dist[master] = 0;
  for (size_t h = 0; h < queue.size(); ++h) {
    const sim::SimNode& n = f.node(queue[h]);
    if (!n.is_switch() && h > 0) continue;  // a CA does not forward
    for (const sim::SimPort& p : n.ports)
      if (p.num != 0 && p.link_up() && dist[p.peer] == UINT32_MAX) {
        dist[p.peer] = dist[queue[h]] + 1;
        queue.push_back(p.peer);
      }
  }
  std::optional<sim::NodeIdx> best;
  for (sim::NodeIdx i = 0; i < f.nodes().size(); ++i) {
    const sim::SimNode& n = f.node(i);
    if (n.is_switch() || !n.present || sm_nodes.contains(i) || dist[i] == UINT32_MAX || n.num_ports < 1) continue;
    const sim::SimPort& p = n.ports[1];
    if (!p.link_up() || p.lid == 0 || p.endpoint != sim::kNoEndpoint) continue;
    if (!best || dist[i] > dist[*best]) best = i;
  }
  return best;
}

// The switch the master's SMPs and routes leave by: its own, or its CA's neighbour.
std::optional<sim::NodeIdx> pick_target(const sim::SimFabric& f, sim::NodeIdx master) {
  const sim::SimNode& n = f.node(master);
  if (n.is_switch()) return master;
  if (n.num_ports < 1 || !n.ports[1].link_up() || !f.node(n.ports[1].peer).is_switch()) return std::nullopt;
  return n.ports[1].peer;
}

uint8_t lft_entry(const sim::SimSwitch& sw, uint32_t lid) { return lid < sw.lft.size() ? sw.lft[lid] : 0xFF; }

// The external port to set Down: an active one the answers to the rogue do not leave by, toward
// another switch if there is one (the lowest number first). A link between switches, because
// the simulator flags the retrain (SwitchInfo PortStateChange) only at the far end: at a port
// facing a CA nothing would tell the SM (see the report to the lead).
std::optional<uint8_t> pick_port(const sim::SimFabric& f, sim::NodeIdx sw, uint16_t rogue_lid) {
  const sim::SimNode& n = f.node(sw);
  const uint8_t to_rogue = lft_entry(*n.sw, rogue_lid);
  std::optional<uint8_t> any;
  for (const sim::SimPort& p : n.ports) {
    if (p.num == 0 || p.num == to_rogue || !p.link_up() || p.state != mad::PortState::active) continue;
    if (f.node(p.peer).is_switch()) return p.num;
    if (!any) any = p.num;
  }
  return any;
}

// The CA LIDs but the rogue's own: the entries worth black-holing.
std::set<uint32_t> victim_lids(const sim::SimFabric& f, sim::NodeIdx rogue) {
  std::set<uint32_t> out;
  for (sim::NodeIdx i = 0; i < f.nodes().size(); ++i) {
    const sim::SimNode& n = f.node(i);
    if (n.is_switch() || i == rogue) continue;
    for (const sim::SimPort& p : n.ports)
      if (p.num != 0 && p.lid != 0)
        for (uint32_t l = p.lid; l < p.lid + (1u << p.lmc); ++l) out.insert(l);
  }
  return out;
}

std::string key_text(const mad::Smp* answer) {
  if (!answer || answer->status != mad::status::ok) return "the Get was refused: no key read, 0 used";
  auto pi = mad::decode_attr<mad::PortInfo>(*answer);
  if (!pi) return "the Get's answer does not decode: 0 used";
  if (pi->m_key != 0) return fmt::format("shown (protect level {}): the switch's key used", pi->m_key_protect_bits);
  if (pi->m_key_protect_bits != 0) return fmt::format("hidden (read as 0, protect level {}): 0 used", pi->m_key_protect_bits);
  return "none (0, no protection): 0 used";
}

// The tag a line of the code named `name` carries, as the Logger writes it ("fabricsm[E0610]:
// ..."). Looked up by name in the table: the SM's call site is the only use of each code.
std::string code_tag(std::string_view name) {
  for (const sm::LogCode& c : sm::kLogCodes)
    if (c.name == name) return fmt::format("[{}{:04d}]", c.level == sm::Level::error ? 'E' : 'W', c.number);
  return "[no such code]";
}

}  // namespace

mad::Result<RogueResult> rogue_attack(Cluster& c, size_t master, const RogueOptions& o) {
  sim::SimFabric& f = c.fabric();
  const sim::NodeIdx mnode = c.node_of(master);
  const auto rogue = pick_rogue(c, mnode);
  if (!rogue) return mad::fail(mad::Errc::invalid, "drill event rogue: no CA without an SM to attack from");
  const auto target = pick_target(f, mnode);
  if (!target) return mad::fail(mad::Errc::invalid, "drill event rogue: the master's port is not cabled to a switch");
  const uint16_t rogue_lid = f.node(*rogue).ports[1].lid;
  const uint16_t target_lid = f.node(*target).ports[0].lid;
  if (target_lid == 0) return mad::fail(mad::Errc::invalid, "drill event rogue: the switch to attack has no LID yet");
  const auto down_port = pick_port(f, *target, rogue_lid);
  if (!down_port) return mad::fail(mad::Errc::invalid, "drill event rogue: the switch to attack has no active port to take down");
  auto ep = f.attach(*rogue, 1);
  if (!ep) return std::unexpected(ep.error());

  RogueResult r;
  r.host = fmt::format("{} (LID {})", f.node(*rogue).name, rogue_lid);
  r.target = fmt::format("{} (LID {}), port {} set Down", f.node(*target).name, target_lid, *down_port);
  RogueHost host(f, *ep);
  c.add_reactor(*ep, host);
  // Trap 256 (E0610) or the violation counter (W0609), whichever an SM logs first.
  const std::string tags[] = {code_tag("bad_mkey"), code_tag("mkey_violations")};
  const mad::Nanos t0 = c.now();
  c.on_log = [&](size_t sm_index, sm::Level, const std::string& line) {
    if (r.reported_ms) return;
    for (const std::string& tag : tags)
      if (line.find(tag) != std::string::npos) {
        r.reported_ms = rogue_ms(t0, c.now());
        r.reported_by = fmt::format("{} {}", c.name(sm_index), tag.substr(1, tag.size() - 2));
        return;
      }
  };
  const RouteFigures before = route_figures(f);

  // Look first: the PortInfo of port 0 (the switch's M_Key) and of the port to take down.
  auto get_port_info = [&](uint8_t port) {
    mad::Smp s = mad::make_lid_smp(mad::method::get, mad::attr::port_info, port);
    s.mkey = 0;
    return host.send(s, target_lid);
  };
  const std::vector<uint64_t> looks{get_port_info(0), get_port_info(*down_port)};
  c.run_until([&] { return host.answered_all(looks); }, o.timeout);
  r.key_read = key_text(host.answer(looks[0]));
  uint64_t key = 0;
  if (const mad::Smp* a = host.answer(looks[0]); a && a->status == mad::status::ok)
    if (auto pi = mad::decode_attr<mad::PortInfo>(*a)) key = pi->m_key;

  // Then write: the LFT blocks holding CA LIDs, each of those entries at port 0 (the switch's
  // own management port: a black hole for data), the rogue's own route left alone so that the
  // answers come back; then the port Down, from the PortInfo it read.
  const sim::SimSwitch& sw = *f.node(*target).sw;
  const std::set<uint32_t> victims = victim_lids(f, *rogue);
  std::set<uint32_t> blocks;
  for (uint32_t l : victims)
    if (blocks.size() < o.max_lft_blocks) blocks.insert(l / 64);
  std::vector<uint64_t> sets;
  for (uint32_t b : blocks) {
    mad::LinearForwardingTable t;
    for (uint32_t k = 0; k < 64; ++k) {
      const uint32_t lid = b * 64 + k;
      t.ports[k] = mad::PortNum(victims.contains(lid) ? 0 : lft_entry(sw, lid));
    }
    mad::Smp s = mad::make_lid_smp(mad::method::set, mad::attr::linear_fwd_table, b);
    s.mkey = key;
    s.data = mad::encode_attr(t);
    sets.push_back(host.send(s, target_lid));
  }
  {
    mad::PortInfo pi;
    if (const mad::Smp* a = host.answer(looks[1]); a && a->status == mad::status::ok)
      pi = mad::decode_attr<mad::PortInfo>(*a).value_or(mad::PortInfo{});
    pi.port_state = mad::PortState::down;
    pi.phys_state = mad::PhysState::no_change;
    pi.link_width_enabled = 0;  // no change
    pi.link_speed_enabled = 0;
    mad::Smp s = mad::make_lid_smp(mad::method::set, mad::attr::port_info, *down_port);
    s.mkey = key;
    s.data = mad::encode_attr(pi);
    sets.push_back(host.send(s, target_lid));
  }
  c.run_until([&] { return host.answered_all(sets); }, o.timeout);
  r.attempts = sets.size();
  for (uint64_t tid : sets) {
    const mad::Smp* a = host.answer(tid);
    if (!a) ++r.refused;
    else if (a->status == mad::status::ok) ++r.taken;
  }
  const RouteFigures hit = route_figures(f);
  r.routes_changed = hit != before;
  c.remove_reactor(*ep);
  f.detach(*ep);

  // Watch: until an SM reported the violation (when there was one: a refused SMP) and the
  // routes are as before (when they changed), or the limits pass. The verifier runs only when
  // something that could repair them moved: LFT blocks written, the attacked switch's ports.
  const bool violated = r.refused > 0 || !host.answer(looks[0]) || !host.answer(looks[1]);
  auto signature = [&] {
    uint64_t s = 0;
    for (const sim::SimNode& n : f.nodes())
      if (n.is_switch()) s += n.sw->lft_blocks_written;
    for (const sim::SimPort& p : f.node(*target).ports) {
      s = s * 31 + static_cast<uint64_t>(p.state);
      if (p.num != 0 && p.link_up()) s = s * 31 + static_cast<uint64_t>(f.node(p.peer).ports[p.peer_port].state);
    }
    return s;
  };
  uint64_t seen = signature();
  bool repaired = !r.routes_changed;
  const mad::Nanos report_by = t0 + o.report_limit;
  c.run_until(
      [&] {
        if (!repaired) {
          const uint64_t now_sig = signature();
          if (now_sig != seen) {
            seen = now_sig;
            if (route_figures(f) == before) {
              repaired = true;
              r.repaired_ms = rogue_ms(t0, c.now());
            }
          }
        }
        const bool report_done = r.reported_ms || !violated || c.now() >= report_by;
        return repaired && report_done;
      },
      std::max(o.report_limit, o.repair_limit));
  c.on_log = nullptr;
  return r;
}

}  // namespace cli
