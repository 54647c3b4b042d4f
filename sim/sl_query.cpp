#include "sim/sl_query.h"

#include <chrono>

#include "mad/sa_path_record.h"
#include "sim/multi_driver.h"
#include "sim/sa_client.h"

namespace sim {

mad::Result<SlQuery> ask_sls(SimFabric& f, EndpointId sm_ep, mad::Reactor& sm, uint64_t max_records) {
  SlQuery out;
  const auto nodes = f.nodes();
  // One source per switch with CAs: its first live CA port with a LID.
  std::vector<std::pair<NodeIdx, uint16_t>> sources;  // (ingress switch, SLID)
  uint64_t endports = 0;
  NodeIdx client_at = kNoNode;
  for (NodeIdx i = 0; i < nodes.size(); ++i) {
    const SimNode& n = nodes[i];
    if (!n.present) continue;
    if (n.is_switch()) {
      ++endports;
      continue;
    }
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      const SimPort& sp = n.ports[p];
      if (!sp.link_up() || sp.lid == 0) continue;
      ++endports;
      if (client_at == kNoNode && p == 1 && sp.endpoint == kNoEndpoint) client_at = i;
    }
  }
  for (NodeIdx s = 0; s < nodes.size(); ++s) {
    const SimNode& n = nodes[s];
    if (!n.present || !n.is_switch()) continue;
    for (uint8_t p = 1; p <= n.num_ports; ++p) {
      const SimPort& sp = n.ports[p];
      if (!sp.link_up() || nodes[sp.peer].is_switch()) continue;
      const uint16_t lid = nodes[sp.peer].ports[sp.peer_port].lid;
      if (lid == 0) continue;
      sources.emplace_back(s, lid);
      break;
    }
  }
  if (max_records && sources.size() * endports > max_records) return out;
  if (client_at == kNoNode) return mad::fail(mad::Errc::not_found, "no free CA port for an SA client");
  auto ep = f.attach(client_at, 1);
  if (!ep) return std::unexpected(ep.error());
  SaClient client(f, *ep);
  MultiDriver driver(f);
  driver.add(sm_ep, sm);
  driver.add(*ep, client);
  const mad::Lid sm_lid(f.node(client_at).ports[1].sm_lid);
  out.sls.by_switch.resize(nodes.size());
  for (const auto& [sw, slid] : sources) {
    mad::SaMad m;
    m.header.method = mad::sa_method::get_table;
    m.header.attr_id = mad::PathRecord::kAttrId;
    m.comp_mask = mad::PathRecord::c_slid;
    mad::PathRecord q;
    q.slid = mad::Lid(slid);
    q.encode(std::span(m.data).first(mad::PathRecord::kSize));
    const uint64_t tid = client.send(m, sm_lid);
    ++out.queries;
    driver.run_until(f.now() + std::chrono::seconds(5), [&] { return client.answer(tid) != nullptr; });
    const SaClient::Answer* a = client.answer(tid);
    if (!a) {
      ++out.unanswered;
      continue;
    }
    std::vector<uint8_t>& row = out.sls.by_switch[sw];
    for (const mad::PathRecord& p : records_of<mad::PathRecord>(*a)) {
      ++out.records;
      const uint16_t dlid = p.dlid.value();
      if (row.size() <= dlid) row.resize(dlid + size_t{1}, 0);
      row[dlid] = p.sl;
      out.any_nonzero = out.any_nonzero || p.sl != 0;
    }
  }
  driver.remove(*ep);
  f.detach(*ep);
  return out;
}

}  // namespace sim
