#include "sim/traffic/patterns.h"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <numeric>

#include "sim/rng.h"

namespace sim::traffic {

namespace {

// Fisher-Yates with splitmix64: the same order for a seed everywhere.
std::vector<uint32_t> shuffled(size_t n, uint64_t seed) {
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  SplitMix64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
  return v;
}

std::optional<uint32_t> number(std::string_view s) {
  uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

mad::Error bad(std::string_view text, std::string_view why) {
  return mad::Error{mad::Errc::invalid, fmt::format("traffic pattern '{}': {}", text, why)};
}

}  // namespace

mad::Result<Pattern> parse_pattern(std::string_view text) {
  Pattern p;
  p.text = std::string(text);
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const std::string_view arg = colon == std::string_view::npos ? std::string_view() : text.substr(colon + 1);
  const bool has_arg = colon != std::string_view::npos;
  auto no_arg = [&](PatternKind k) -> mad::Result<Pattern> {
    if (has_arg) return std::unexpected(bad(text, "takes no argument"));
    p.kind = k;
    return p;
  };
  if (name == "all-to-all") return no_arg(PatternKind::all_to_all);
  if (name == "random-permutation") return no_arg(PatternKind::random_permutation);
  if (name == "random-bisection") return no_arg(PatternKind::random_bisection);
  if (name == "shift" || name == "incast") {
    auto k = number(arg);
    if (!has_arg || !k || *k == 0)
      return std::unexpected(bad(text, fmt::format("wants {}:N with N a positive number", name)));
    p.kind = name == "shift" ? PatternKind::shift : PatternKind::incast;
    p.k = *k;
    return p;
  }
  if (name == "allreduce-ring" || name == "allreduce-rd") {
    if (has_arg && arg != "random") return std::unexpected(bad(text, "the only placement is ':random'"));
    p.kind = name == "allreduce-ring" ? PatternKind::allreduce_ring : PatternKind::allreduce_rd;
    p.random_placement = has_arg;
    return p;
  }
  if (name == "file") {
    if (arg.empty()) return std::unexpected(bad(text, "wants file:PATH"));
    p.kind = PatternKind::file;
    p.path = std::string(arg);
    return p;
  }
  return std::unexpected(bad(text, "unknown; one of all-to-all, shift:K, random-permutation, random-bisection, "
                                   "allreduce-ring, allreduce-rd, incast:N, file:PATH"));
}

std::vector<Flow> random_bisection(size_t n, uint64_t seed) {
  const std::vector<uint32_t> v = shuffled(n, seed);
  const size_t half = n / 2;
  std::vector<Flow> flows;
  flows.reserve(2 * half);
  for (size_t i = 0; i < half; ++i) {
    flows.push_back(Flow{v[i], v[half + i]});
    flows.push_back(Flow{v[half + i], v[i]});
  }
  return flows;
}

mad::Result<std::vector<Phase>> make_phases(const Pattern& p, size_t n, uint64_t seed) {
  if (n < 2) return std::unexpected(bad(p.text, fmt::format("needs two CAs or more, the fabric has {}", n)));
  std::vector<uint32_t> rank(n);  // rank -> CA
  std::iota(rank.begin(), rank.end(), 0u);
  if (p.random_placement) rank = shuffled(n, seed);
  std::vector<Phase> phases(1);
  std::vector<Flow>& flows = phases[0].flows;
  switch (p.kind) {
    case PatternKind::all_to_all:
      flows.reserve(n * (n - 1));
      for (uint32_t i = 0; i < n; ++i)
        for (uint32_t j = 0; j < n; ++j)
          if (i != j) flows.push_back(Flow{i, j});
      break;
    case PatternKind::shift:
      if (p.k % n == 0) return std::unexpected(bad(p.text, fmt::format("a shift by a multiple of {} CAs sends nothing", n)));
      for (uint32_t i = 0; i < n; ++i) flows.push_back(Flow{i, static_cast<uint32_t>((i + p.k) % n)});
      break;
    case PatternKind::random_permutation: {
      const std::vector<uint32_t> to = shuffled(n, seed);
      for (uint32_t i = 0; i < n; ++i)
        if (to[i] != i) flows.push_back(Flow{i, to[i]});
      break;
    }
    case PatternKind::random_bisection:
      flows = random_bisection(n, seed);
      break;
    case PatternKind::incast:
      if (p.k >= n) return std::unexpected(bad(p.text, fmt::format("{} senders need {} CAs, the fabric has {}", p.k, p.k + 1, n)));
      for (uint32_t i = 1; i <= p.k; ++i) flows.push_back(Flow{rank[i], rank[0]});
      break;
    case PatternKind::allreduce_ring:
      for (uint32_t r = 0; r < n; ++r) flows.push_back(Flow{rank[r], rank[(r + 1) % n]});
      phases[0].repeat = 2.0 * static_cast<double>(n - 1);  // reduce-scatter, then allgather
      phases[0].bytes = 1.0 / static_cast<double>(n);
      break;
    case PatternKind::allreduce_rd: {
      size_t pow2 = 1;
      while (pow2 * 2 <= n) pow2 *= 2;
      phases.clear();
      Phase fold;  // the ranks above pow2 hand their data to a partner first, and get it back last
      for (size_t r = pow2; r < n; ++r) fold.flows.push_back(Flow{rank[r], rank[r - pow2]});
      if (!fold.flows.empty()) phases.push_back(fold);
      for (size_t d = 1; d < pow2; d *= 2) {
        Phase ph;
        for (size_t r = 0; r < pow2; ++r) ph.flows.push_back(Flow{rank[r], rank[r ^ d]});
        phases.push_back(std::move(ph));
      }
      if (!fold.flows.empty()) {
        for (Flow& f : fold.flows) std::swap(f.src, f.dst);
        phases.push_back(std::move(fold));
      }
      break;
    }
    case PatternKind::file:
      return std::unexpected(bad(p.text, "a flows file is read by load_flows_file"));
  }
  return phases;
}

}  // namespace sim::traffic
