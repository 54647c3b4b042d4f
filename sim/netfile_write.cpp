// Net-file writer: the layout of the shared topology files (records in spec order, every cable
// on both ends, "# lid 0 4xHDR" tails), which ibsim and parse_netfile load alike.
#include <array>
#include <utility>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "mad/format.h"
#include "sim/netfile.h"
#include "sim/netfile_text.h"

namespace sim {
namespace {

constexpr uint32_t kNoLink = UINT32_MAX;

template <class... A>
void put(fmt::memory_buffer& out, fmt::format_string<A...> f, A&&... a) {
  mad::append_format(out, f, std::forward<A>(a)...);
}

std::string_view header_word(mad::NodeType t) {
  switch (t) {
    case mad::NodeType::sw: return "Switch";
    case mad::NodeType::router: return "Rt";
    case mad::NodeType::ca: break;
  }
  return "Hca";
}

std::string_view guid_word(mad::NodeType t) {
  switch (t) {
    case mad::NodeType::sw: return "switchguid";
    case mad::NodeType::router: return "rtguid";
    case mad::NodeType::ca: break;
  }
  return "caguid";
}

// Text that must sit between quotes on one line. Parsed names and descriptions never hold
// '"' or '\n'; anything else (a '\r' inside, say) is written as it came.
std::string quotable(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c == '"') c = '\'';
    else if (c == '\n') c = ' ';
  return out;
}

// "# lid 0 4xHDR" when a tail on both ends gives this link's width and speed in ibsim and in
// the parser. ibsim ignores tails on router lines and a few combinations have no tail (SDR with
// an extended speed): there ibsim's w=/s=/e= options set the enabled sets to the very values.
void append_link_attrs(fmt::memory_buffer& out, const SpecLink& l, bool router) {
  const auto* w = netfile_text::width_by_active(l.width);
  const auto* s = netfile_text::speed_by_active(l.speed, l.speed_ext);
  if (router || !w || !s) put(out, "\tw={} s={} e={}", l.width, l.speed, l.speed_ext);
  if (w && s) put(out, "\t# lid 0 {}x{}", w->lanes, s->name);
}

}  // namespace

std::string write_netfile(const FabricSpec& spec) {
  // Where each port's cable goes: link index per (node, port).
  std::vector<uint32_t> base(spec.nodes.size() + 1, 0);
  for (size_t i = 0; i < spec.nodes.size(); ++i) base[i + 1] = base[i] + spec.nodes[i].num_ports;
  std::vector<uint32_t> link_at(base.back(), kNoLink);
  auto slot = [&](uint32_t node, uint8_t port) -> uint32_t* {
    const SpecNode& n = spec.nodes[node];
    if (port == 0 || port > n.num_ports) return nullptr;
    return &link_at[base[node] + port - 1u];
  };
  for (uint32_t li = 0; li < spec.links.size(); ++li) {
    const SpecLink& l = spec.links[li];
    if (l.a >= spec.nodes.size() || l.b >= spec.nodes.size()) continue;  // not a valid spec
    if (uint32_t* s = slot(l.a, l.port_a)) *s = li;
    if (uint32_t* s = slot(l.b, l.port_b)) *s = li;
  }

  fmt::memory_buffer out;
  out.reserve(spec.links.size() * 64 + spec.nodes.size() * 32);

  // ibsim's GUID counters and sticky device ID, to write directives only where they differ.
  std::array<uint64_t, 4> next_guid = {~0ULL, 0x100000, 0x200000, 0};
  uint16_t devid = 0;
  for (uint32_t i = 0; i < spec.nodes.size(); ++i) {
    const SpecNode& n = spec.nodes[i];
    uint64_t& next = next_guid[static_cast<size_t>(n.type)];
    if (!n.node_guid.is_zero() && n.node_guid.value() != next) {
      put(out, "{}=0x{:x}\n", guid_word(n.type), n.node_guid.value());
      next = n.node_guid.value();
    }
    uint64_t guid = next;
    next += n.type == mad::NodeType::sw ? 1u : n.num_ports + 1u;
    if (!n.system_guid.is_zero() && n.system_guid.value() != guid)
      put(out, "sysimgguid=0x{:x}\n", n.system_guid.value());
    if (n.vendor_id != 0) put(out, "vendid=0x{:x}\n", n.vendor_id);
    if (n.device_id != devid) {
      put(out, "devid=0x{:x}\n", n.device_id);
      devid = n.device_id;
    }
    put(out, "{}\t{} \"{}\"", header_word(n.type), n.num_ports, quotable(n.name));
    if (!n.description.empty()) put(out, "\t# \"{}\"", quotable(n.description));
    put(out, "\n");
    for (unsigned pn = 1; pn <= n.num_ports; ++pn) {
      auto p = static_cast<uint8_t>(pn);
      uint32_t li = link_at[base[i] + pn - 1u];
      if (li == kNoLink) continue;
      const SpecLink& l = spec.links[li];
      bool here_a = l.a == i && l.port_a == p;
      uint32_t rn = here_a ? l.b : l.a;
      uint8_t rp = here_a ? l.port_b : l.port_a;
      put(out, "[{}]\t\"{}\"[{}]", p, quotable(spec.nodes[rn].name), rp);
      append_link_attrs(out, l, n.type == mad::NodeType::router);
      put(out, "\n");
    }
    put(out, "\n");
  }
  return fmt::to_string(out);
}

}  // namespace sim
