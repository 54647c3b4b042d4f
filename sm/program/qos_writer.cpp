#include "sm/program/qos_writer.h"

#include <fmt/format.h>

#include <algorithm>

#include "mad/attributes.h"

namespace sm {

namespace {

std::string_view table_name(const QosTable& t) {
  return t.attr == mad::attr::sl2vl_table ? "SLtoVLMappingTable" : "VLArbitrationTable";
}

}  // namespace

void QosWriter::start(std::shared_ptr<const Topology> topo, const QosOptions& options,
                      const std::optional<VlLayers>& layers, std::function<void()> done) {
  topo_ = std::move(topo);
  // Resolved once per class: the option texts are parsed here, not for every port.
  for (QosClass c : {QosClass::ca, QosClass::sw0, QosClass::swe}) {
    QosTables& t = classes_[static_cast<size_t>(c)];
    t = resolve_qos(options, c);
    if (layers) t = with_layers(std::move(t), *layers, options.enabled);
  }
  done_ = std::move(done);
  stats_ = {};
  failed_.clear();
  plan_ = plan_qos(*topo_, model_);
  stats_.ports = plan_.ports.size();
  sender_.run(plan_.ports.size(), [this](size_t i) { issue(i); }, [this] {
    if (fail_log_.suppressed())
      log_.error(code::qos_failures_suppressed, "QoS: {} more failures not logged", fail_log_.suppressed());
    auto d = std::move(done_);
    d();
  });
}

mad::DrPath QosWriter::path(NodeId node, const QosPort& p) const {
  const Node& n = topo_->node(node);
  return n.is_switch() ? n.path : topo_->path_to_port(node, p.port);
}

// All of a port's SMPs at once: at most 4 arbitration blocks and one SL2VL table per input port.
void QosWriter::issue(size_t i) {
  const QosPort& p = plan_.ports[i];
  const mad::DrPath via = path(p.node, p);
  const auto known = memory_.find(topo_->node(p.node).guid);
  for (const QosTable& t : qos_tables(*topo_, model_, p, classes_[static_cast<size_t>(p.cls)])) {
    if (known != memory_.end()) {
      const auto it = known->second.tables.find(qos_key(t));
      if (it != known->second.tables.end()) {
        if (it->second != qos_value(t, t.want)) write(p.node, via, t);
        continue;
      }
    }
    read(p.node, via, t);
  }
}

void QosWriter::remember(NodeId node, const QosTable& t, std::span<const uint8_t> held) {
  memory_[topo_->node(node).guid].tables[qos_key(t)] = qos_value(t, held);
}

void QosWriter::forget(NodeId node, const QosTable& t) {
  if (auto it = memory_.find(topo_->node(node).guid); it != memory_.end()) it->second.tables.erase(qos_key(t));
}

void QosWriter::read(NodeId node, const mad::DrPath& via, const QosTable& t) {
  sender_.begin();
  client_.get(via, t.attr, t.mod, [this, node, via, t](mad::Result<mad::Smp> r) {
    ++stats_.tables_read;
    const std::span<const uint8_t> want(t.want.data(), t.size());
    if (!r) {
      write(node, via, t);  // unknown: written (a Set answers with what the port then holds)
    } else {
      const std::span<const uint8_t> held(r->data.data(), t.size());
      remember(node, t, held);
      if (!std::ranges::equal(held, want)) write(node, via, t);
    }
    sender_.end();
  });
}

void QosWriter::write(NodeId node, const mad::DrPath& via, const QosTable& t) {
  mad::SmpData data{};
  std::copy_n(t.want.begin(), t.size(), data.begin());
  sender_.begin();
  client_.set(via, t.attr, t.mod, data, [this, node, t](mad::Result<mad::Smp> r) {
    const std::span<const uint8_t> want(t.want.data(), t.size());
    if (r && std::ranges::equal(std::span<const uint8_t>(r->data.data(), t.size()), want)) {
      remember(node, t, want);
      ++(t.attr == mad::attr::sl2vl_table ? stats_.sl2vl_written : stats_.vlarb_written);
    } else {
      forget(node, t);
      fail(node, t, r ? "the port did not keep it" : r.error().message);
    }
    sender_.end();
  });
}

void QosWriter::fail(NodeId node, const QosTable& t, const std::string& why) {
  ++stats_.failures;
  const Node& n = topo_->node(node);
  failed_.insert(n.guid);
  if (fail_log_.allow())
    log_.error(code::qos_failed, "QoS: {} (modifier {:#x}) on {} ({}): {}", table_name(t), t.mod, n.guid, n.description, why);
}

}  // namespace sm
