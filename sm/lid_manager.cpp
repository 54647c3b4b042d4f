#include "sm/lid_manager.h"

#include <fmt/format.h>

#include <algorithm>

namespace sm {

namespace {

struct Owner {
  NodeId node;
  PortNum port;
  Guid guid;
  Lid current;
  uint8_t lmc;  // the LMC this port must have
  Lid lid;      // the answer
};

constexpr uint32_t kSpace = static_cast<uint32_t>(mad::Lid::kMaxUnicast) + 1;

class Space {
 public:
  Space() : owner_(kSpace, kFree) {}
  static constexpr uint32_t kFree = UINT32_MAX, kReserved = UINT32_MAX - 1;
  bool free_range(uint32_t base, uint8_t lmc, uint32_t for_owner) const {
    const uint32_t n = 1u << lmc;
    if (base == 0 || base % n != 0 || base + n - 1 > mad::Lid::kMaxUnicast) return false;
    for (uint32_t l = base; l < base + n; ++l)
      if (owner_[l] != kFree && owner_[l] != for_owner) return false;
    return true;
  }
  void take(uint32_t base, uint8_t lmc, uint32_t who) {
    for (uint32_t l = base; l < base + (1u << lmc); ++l) owner_[l] = who;
  }
  uint32_t at(uint32_t l) const { return owner_[l]; }
  void set(uint32_t l, uint32_t v) { owner_[l] = v; }

 private:
  std::vector<uint32_t> owner_;
};

}  // namespace

mad::Result<LidAssignment> LidManager::assign(const Topology& topo, LidAssignment* partial) {
  std::vector<Owner> owners;
  for (NodeId id = 0; id < topo.node_count(); ++id) {
    const Node& n = topo.node(id);
    if (n.is_switch()) {
      const Port& p0 = topo.port(id, PortNum(0));
      owners.push_back(Owner{id, PortNum(0), n.guid, p0.lid, 0, Lid()});
      continue;
    }
    for (const Port& p : topo.ports(id)) {
      if (p.num.value() == 0 || p.guid.is_zero()) continue;  // not seen by discovery
      const bool sm_port = id == topo.sm_node() && p.num == topo.sm_port();
      if (!p.linked() && !sm_port) continue;
      owners.push_back(Owner{id, p.num, p.guid, p.lid, lmc_, Lid()});
    }
  }
  std::sort(owners.begin(), owners.end(), [](const Owner& a, const Owner& b) { return a.guid < b.guid; });

  LidAssignment out;
  Space space;
  // Reservations: remembered LIDs of GUIDs not in this fabric.
  std::unordered_map<Guid, bool> present;
  present.reserve(owners.size());
  for (const Owner& o : owners) present.emplace(o.guid, true);
  const LidMap& map = *map_;
  for (const auto& [guid, e] : map)
    if (!present.contains(guid) && e.lid.is_unicast())
      for (uint32_t l = e.lid.value(); l < e.lid.value() + (1u << e.lmc) && l < kSpace; ++l)
        if (space.at(l) == Space::kFree) space.set(l, Space::kReserved);

  auto claim = [&](uint32_t i, Lid lid) {
    owners[i].lid = lid;
    space.take(lid.value(), owners[i].lmc, i);
  };
  // 1. Ports that hold the LID we remember for them, then ports that hold any valid LID
  //    (a LID remembered for an absent GUID yields to a port using it now).
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < owners.size(); ++i) {
      Owner& o = owners[i];
      if (o.lid.value() != 0 || !o.current.is_unicast()) continue;
      auto m = map.find(o.guid);
      const bool remembered = m != map.end() && m->second.lid == o.current;
      if (pass == 0 && !remembered) continue;
      bool ok = space.free_range(o.current.value(), o.lmc, i);
      if (!ok && space.at(o.current.value()) == Space::kReserved) {
        for (uint32_t l = o.current.value(); l < o.current.value() + (1u << o.lmc) && l < kSpace; ++l)
          if (space.at(l) == Space::kReserved) space.set(l, Space::kFree);
        ok = space.free_range(o.current.value(), o.lmc, i);
        if (ok) out.notes.push_back(fmt::format("LID {} was remembered for an absent port; {} holds it now",
                                                o.current.value(), o.guid));
      }
      if (ok) {
        claim(i, o.current);
        ++out.kept;
      } else if (pass == 1) {
        out.notes.push_back(fmt::format("port {} holds LID {}, which is taken or misaligned: reassigned",
                                        o.guid, o.current.value()));
      }
    }
  }
  // 2. Remembered LIDs for ports that hold none (or a bad one).
  for (uint32_t i = 0; i < owners.size(); ++i) {
    Owner& o = owners[i];
    if (o.lid.value() != 0) continue;
    auto m = map.find(o.guid);
    if (m == map.end() || !m->second.lid.is_unicast()) continue;
    if (space.free_range(m->second.lid.value(), o.lmc, i)) {
      claim(i, m->second.lid);
      ++out.restored;
    }
  }
  // 3. Fresh LIDs, lowest free first; reservations of absent GUIDs are reclaimed only when
  //    nothing else is left.
  uint32_t next = 1;
  bool reclaiming = false;
  for (uint32_t i = 0; i < owners.size(); ++i) {
    Owner& o = owners[i];
    if (o.lid.value() != 0) continue;
    const uint32_t step = 1u << o.lmc;
    uint32_t base = (next + step - 1) / step * step;
    while (base + step - 1 <= mad::Lid::kMaxUnicast && !space.free_range(base, o.lmc, i)) base += step;
    if (base + step - 1 > mad::Lid::kMaxUnicast && !reclaiming) {
      reclaiming = true;
      size_t n = 0;
      for (uint32_t l = 1; l < kSpace; ++l)
        if (space.at(l) == Space::kReserved) {
          space.set(l, Space::kFree);
          ++n;
        }
      if (n) out.notes.push_back(fmt::format("LID space short: {} LIDs remembered for absent ports reclaimed", n));
      next = 1;
      base = step;
      while (base + step - 1 <= mad::Lid::kMaxUnicast && !space.free_range(base, o.lmc, i)) base += step;
    }
    if (base + step - 1 > mad::Lid::kMaxUnicast) {
      ++out.unassigned;
      continue;
    }
    claim(i, Lid(static_cast<uint16_t>(base)));
    ++out.fresh;
    next = base + step;
  }

  std::vector<std::pair<Guid, LidEntry>> remember;
  for (const Owner& o : owners) {
    if (o.lid.value() == 0) continue;
    if (o.lid != o.current) ++out.changed;
    out.lids.push_back(Topology::LidSet{o.node, o.port, o.lid, o.lmc});
    auto m = map.find(o.guid);
    if (m == map.end() || m->second.lid != o.lid || m->second.lmc != o.lmc)
      remember.emplace_back(o.guid, LidEntry{o.lid, o.lmc});
  }
  if (!remember.empty()) {
    auto updated = std::make_shared<LidMap>(map);
    for (const auto& [g, e] : remember) (*updated)[g] = e;
    map_ = std::move(updated);
  }
  if (out.unassigned) {
    auto msg = fmt::format("LID space exhausted: {} of {} ports got no LID (unicast LIDs 1..{}, LMC {})",
                           out.unassigned, owners.size(), mad::Lid::kMaxUnicast, lmc_);
    if (partial) *partial = std::move(out);
    return mad::fail(mad::Errc::exhausted, std::move(msg));
  }
  return out;
}

}  // namespace sm
