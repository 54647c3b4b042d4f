#include "routing/hints.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "mad/text.h"

namespace routing {

mad::Result<std::vector<LinkHint>> parse_hints(std::string_view text) {
  std::vector<LinkHint> out;
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (const size_t hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    const auto tok = mad::words(line);
    if (tok.empty()) continue;
    std::optional<uint64_t> guid, port_n, weight_n;
    if (tok.size() == 3) {
      guid = mad::parse_number(tok[0]);
      port_n = mad::parse_number(tok[1]);
      weight_n = mad::parse_number(tok[2]);
    }
    if (!guid || !port_n || *port_n > UINT32_MAX || !weight_n || *weight_n > UINT32_MAX)
      return mad::fail(
          mad::Errc::parse,
          fmt::format("hints line {}: expected '<switch-guid> <port> <weight>'", line_no));
    const auto port = static_cast<unsigned>(*port_n);
    const auto weight = static_cast<uint32_t>(*weight_n);
    if (port < 1 || port > 254)
      return mad::fail(mad::Errc::parse,
                       fmt::format("hints line {}: port {} out of 1..254", line_no, port));
    if (weight < 1 || weight > 1000)
      return mad::fail(mad::Errc::parse,
                       fmt::format("hints line {}: weight {} out of 1..1000", line_no, weight));
    out.push_back(LinkHint{mad::Guid(*guid), mad::PortNum(static_cast<uint8_t>(port)), weight});
  }
  return out;
}

mad::Result<std::vector<LinkHint>> load_hints(const std::string& path) {
  auto text = mad::read_text_file(path, "the hints file");
  if (!text) return std::unexpected(text.error());
  auto hints = parse_hints(*text);
  if (!hints)
    return mad::fail(hints.error().code, fmt::format("{}: {}", path, hints.error().message));
  return hints;
}

PortWeights PortWeights::build(const FabricView& fv, const std::vector<LinkHint>& hints,
                               std::vector<std::string>& notes) {
  PortWeights w;
  if (hints.empty()) return w;
  w.w_.assign(fv.port_slots(), 1);
  const fabric::Topology& topo = fv.topo();
  for (const LinkHint& h : hints) {
    const auto node = topo.find(h.sw);
    const SwIdx s = node ? fv.index_of(*node) : kNoSw;
    const SwIdx peer = s == kNoSw ? kNoSw : fv.peer(s, h.port.value());
    if (peer == kNoSw) {
      notes.push_back(
          fmt::format("hint {} port {}: no usable switch link there, skipped", h.sw, h.port));
      continue;
    }
    const uint8_t back = topo.port(*node, h.port).peer_port.value();
    w.w_[fv.port_slot(s, h.port.value())] = h.weight;
    w.w_[fv.port_slot(peer, back)] = h.weight;
  }
  return w;
}

}  // namespace routing
