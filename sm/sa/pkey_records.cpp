// P_KeyTableRecords, and each end port's P_Key set, from the P_Key tables the subnet's sweep
// knew each port to hold.
#include "mad/pkey_table.h"
#include "sm/partitions/pkey_match.h"
#include "sm/sa/index.h"

namespace sm::sa {

void Index::add_pkey_tables() {
  pkey_records_ = Records{};
  pkey_records_.size = mad::PKeyTableRecord::kSize;
  endport_pkeys_.assign(endports_.size(), std::nullopt);
  const Topology& t = *topo_;
  std::vector<uint8_t> buf(mad::PKeyTableRecord::kSize);
  for (NodeId id = 0; id < t.node_count(); ++id) {  // by node GUID, then port
    const NodePKeys* ports = subnet_->pkeys_of(id);
    if (!ports) continue;
    for (const auto& [port, m] : *ports) {
      if (port > t.node(id).num_ports || m.table.empty()) continue;
      const bool sw = t.node(id).is_switch();
      if (!sw && port == 0) continue;
      // A switch's ports answer at its port-0 LID, with the port in the record.
      const Lid lid = t.port(id, PortNum(sw ? 0 : port)).lid;
      if (!lid.is_unicast()) continue;
      if (sw == (port == 0)) {  // an end port: CA port, or switch port 0
        auto e = by_lid_.find(lid.value());
        if (e != by_lid_.end()) endport_pkeys_[e->second] = pkey_set(m.table);
      }
      add_pkey_records(lid, PortNum(port), m.table, buf);
    }
  }
}

void Index::add_pkey_records(Lid lid, PortNum port, const std::vector<uint16_t>& table, std::vector<uint8_t>& buf) {
  for (size_t from = 0; from < table.size(); from += mad::PKeyTable::kEntries) {
    mad::PKeyTableRecord r;
    r.lid = lid;
    r.block = static_cast<uint16_t>(from / mad::PKeyTable::kEntries);
    r.port = port;
    std::copy_n(table.begin() + static_cast<ptrdiff_t>(from), std::min(mad::PKeyTable::kEntries, table.size() - from),
                r.table.pkeys.begin());
    std::fill(buf.begin(), buf.end(), uint8_t{0});
    r.encode(buf);
    pkey_records_.add(lid, buf);
  }
}

std::span<const uint16_t> Index::pkeys(const Endport& e) const {
  static constexpr uint16_t kDefaultOnly[] = {kDefaultPKey | kPKeyFull};
  const size_t i = static_cast<size_t>(&e - endports_.data());
  if (i < endport_pkeys_.size() && endport_pkeys_[i]) return *endport_pkeys_[i];
  return kDefaultOnly;
}

}  // namespace sm::sa
