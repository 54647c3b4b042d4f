// The one explicit table of routing engines, and chains of them. Adding an engine: its own
// file (class and factory), its factory's declaration and its line in the table here, its
// meson line and its own tests; what it can do, repair and the generic tests ask the Engine.
#include <fmt/format.h>

#include <functional>

#include "routing/engine.h"

namespace routing {

// Each defined in the engine's own file.
std::unique_ptr<Engine> make_minhop_engine();
std::unique_ptr<Engine> make_updn_engine();
std::unique_ptr<Engine> make_ftree_engine();
std::unique_ptr<Engine> make_adaptive_hint_engine();
std::unique_ptr<Engine> make_cdg_engine();
std::unique_ptr<Engine> make_lash_engine();
std::unique_ptr<Engine> make_dfsssp_engine();
std::unique_ptr<Engine> make_dor_engine();

Result<std::vector<uint32_t>> Engine::orientation(const FabricView&, const RoutingOptions&) const {
  return mad::fail(mad::Errc::unsupported, fmt::format("engine '{}' routes over no up/down orientation", name()));
}

namespace {
struct Entry {
  std::string_view name;
  std::function<std::unique_ptr<Engine>()> make;
};

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = {
      {"minhop", make_minhop_engine},
      {"updn", make_updn_engine},
      {"ftree", make_ftree_engine},
      {"adaptive-hint", make_adaptive_hint_engine},
      {"cdg", make_cdg_engine},
      {"lash", make_lash_engine},
      {"dfsssp", make_dfsssp_engine},
      {"dor", make_dor_engine},
  };
  return t;
}
}  // namespace

std::vector<std::string_view> engine_names() {
  std::vector<std::string_view> out;
  for (const Entry& e : table()) out.push_back(e.name);
  return out;
}

namespace {
// "yes, one VL", "yes, its VLs" (deadlock-free over the VLs it spreads routes on), "no".
std::string listing_deadlock_free(const Engine& e) {
  if (!e.deadlock_free()) return "no";
  return e.vls() > 1 ? "yes, its VLs" : "yes, one VL";
}
std::string listing_vls(const Engine& e) { return e.vls() > 1 ? fmt::format("<={}", e.vls()) : "1"; }
}  // namespace

std::string engine_listing() {
  std::string out = fmt::format("{:<14} {:<13} {:<4} {:<32} {}\n", "engine", "deadlock-free", "VLs", "fabrics", "what it does");
  for (const Entry& e : table()) {
    const auto engine = e.make();
    out += fmt::format("{:<14} {:<13} {:<4} {:<32} {}\n", e.name, listing_deadlock_free(*engine),
                       listing_vls(*engine), engine->topologies(), engine->description());
  }
  return out;
}

Result<std::unique_ptr<Engine>> make_engine(std::string_view name) {
  for (const Entry& e : table())
    if (e.name == name) return e.make();
  return mad::fail(mad::Errc::not_found,
                   fmt::format("unknown routing engine '{}' (known: {})", name,
                               fmt::join(engine_names(), ", ")));
}

Result<std::vector<std::string>> parse_chain(std::string_view chain) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= chain.size()) {
    size_t comma = chain.find(',', pos);
    if (comma == std::string_view::npos) comma = chain.size();
    std::string_view name = chain.substr(pos, comma - pos);
    if (name.empty()) return mad::fail(mad::Errc::invalid, fmt::format("empty engine name in '{}'", chain));
    if (auto e = make_engine(name); !e) return std::unexpected(e.error());
    out.emplace_back(name);
    pos = comma + 1;
  }
  return out;
}

Result<ChainResult> compute_chain(std::string_view chain, const Topology& topo,
                                  const RoutingOptions& opts) {
  auto names = parse_chain(chain);
  if (!names) return std::unexpected(names.error());
  ChainResult out;
  for (const std::string& name : *names) {
    auto engine = make_engine(name);
    auto tables = (*engine)->compute(topo, opts);
    if (tables) {
      out.tables = std::move(*tables);
      out.used = name;
      return out;
    }
    out.passed_over.push_back(fmt::format("{}: {}", name, tables.error().message));
  }
  return mad::fail(mad::Errc::unsupported,
                   fmt::format("no engine of '{}' could route: {}", chain,
                               fmt::join(out.passed_over, "; ")));
}

}  // namespace routing
