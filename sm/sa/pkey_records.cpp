// P_KeyTableRecords, and each end port's P_Key set, from what the P_Key programmer knows each
// port holds.
#include "mad/pkey_table.h"
#include "sm/partitions/pkey_match.h"
#include "sm/sa/index.h"
#include "sm/subnet_manager.h"

namespace sm::sa {

Index Index::of(const SubnetManager& sm, uint8_t packet_life) {
  Index ix = build(sm.topology(), sm.model(), sm.tables(), sm.ha_role().self_info(false), packet_life);
  ix.add_pkey_tables(sm.pkey_memory());
  return ix;
}

void Index::add_pkey_tables(const PKeyMemory& memory) {
  pkey_records_ = Records{};
  pkey_records_.size = mad::PKeyTableRecord::kSize;
  endport_pkeys_.assign(endports_.size(), std::nullopt);
  if (!topo_) return;
  const Topology& t = *topo_;
  std::vector<uint8_t> buf(mad::PKeyTableRecord::kSize);
  for (const auto& [key, m] : memory) {  // by node GUID, then port
    const auto id = t.find(key.first);
    if (!id || key.second > t.node(*id).num_ports || m.table.empty()) continue;
    const bool sw = t.node(*id).is_switch();
    if (!sw && key.second == 0) continue;
    // A switch's ports answer at its port-0 LID, with the port in the record.
    const Lid lid = t.port(*id, PortNum(sw ? 0 : key.second)).lid;
    if (!lid.is_unicast()) continue;
    if (sw == (key.second == 0)) {  // an end port: CA port, or switch port 0
      auto e = by_lid_.find(lid.value());
      if (e != by_lid_.end()) endport_pkeys_[e->second] = pkey_set(m.table);
    }
    for (size_t from = 0; from < m.table.size(); from += mad::PKeyTable::kEntries) {
      mad::PKeyTableRecord r;
      r.lid = lid;
      r.block = static_cast<uint16_t>(from / mad::PKeyTable::kEntries);
      r.port = PortNum(key.second);
      std::copy_n(m.table.begin() + static_cast<ptrdiff_t>(from),
                  std::min(mad::PKeyTable::kEntries, m.table.size() - from), r.table.pkeys.begin());
      std::fill(buf.begin(), buf.end(), uint8_t{0});
      r.encode(buf);
      pkey_records_.add(lid, buf);
    }
  }
}

std::span<const uint16_t> Index::pkeys(const Endport& e) const {
  static constexpr uint16_t kDefaultOnly[] = {kDefaultPKey | kPKeyFull};
  const size_t i = static_cast<size_t>(&e - endports_.data());
  if (i < endport_pkeys_.size() && endport_pkeys_[i]) return *endport_pkeys_[i];
  return kDefaultOnly;
}

}  // namespace sm::sa
