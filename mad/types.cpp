#include "mad/types.h"

#include <fmt/format.h>

namespace mad {

std::string DrPath::str() const {
  std::string s = "0";
  for (int i = 1; i <= n_; ++i) s += fmt::format(",{}", p_[static_cast<size_t>(i)]);
  return s;
}

std::string_view node_type_name(NodeType t) {
  switch (t) {
    case NodeType::ca: return "CA";
    case NodeType::sw: return "Switch";
    case NodeType::router: return "Router";
  }
  return "?";
}

std::string_view port_state_name(PortState s) {
  switch (s) {
    case PortState::no_change: return "NoChange";
    case PortState::down: return "Down";
    case PortState::init: return "Init";
    case PortState::armed: return "Armed";
    case PortState::active: return "Active";
  }
  return "?";
}

std::string_view phys_state_name(PhysState s) {
  switch (s) {
    case PhysState::no_change: return "NoChange";
    case PhysState::sleep: return "Sleep";
    case PhysState::polling: return "Polling";
    case PhysState::disabled: return "Disabled";
    case PhysState::training: return "PortConfigurationTraining";
    case PhysState::link_up: return "LinkUp";
    case PhysState::error_recovery: return "LinkErrorRecovery";
    case PhysState::phy_test: return "PhyTest";
  }
  return "?";
}

}  // namespace mad

fmt::format_context::iterator fmt::formatter<mad::Guid>::format(mad::Guid g, fmt::format_context& ctx) const {
  const std::string s = g.str();
  return fmt::formatter<fmt::string_view>::format(fmt::string_view(s), ctx);
}

fmt::format_context::iterator fmt::formatter<mad::Lid>::format(mad::Lid l, fmt::format_context& ctx) const {
  return fmt::formatter<unsigned>::format(l.value(), ctx);
}

fmt::format_context::iterator fmt::formatter<mad::PortNum>::format(mad::PortNum p, fmt::format_context& ctx) const {
  return fmt::formatter<unsigned>::format(p.value(), ctx);
}

fmt::format_context::iterator fmt::formatter<mad::DrPath>::format(const mad::DrPath& p,
                                                                  fmt::format_context& ctx) const {
  const std::string s = p.str();
  return fmt::formatter<fmt::string_view>::format(fmt::string_view(s), ctx);
}
