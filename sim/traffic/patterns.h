// Traffic patterns: which CA sends to which, as flows between CA indices (the Net's CA ports
// in leaf order). Named on the command line as
//   all-to-all, shift:K, random-permutation, random-bisection,
//   allreduce-ring[:random], allreduce-rd[:random], incast:N, file:PATH
// A collective runs in phases one after another (ring: 2(n-1) steps of the same shift by one
// in rank order, each a 1/n chunk; recursive doubling: an exchange with the partner 2^k ranks
// away for each k, full size, the ranks above the largest power of two folded in before and
// out after). Ranks are in leaf order, or placed at random (":random", by the seed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mad/error.h"

namespace sim::traffic {

struct Flow {
  uint32_t src, dst;  // CA indices
  double weight = 1;  // its share of bandwidth and of the message size, relative to others
};

// Flows that run at the same time; the pattern is its phases one after another, each
// `repeat` times with `bytes` x the message size per unit of weight.
struct Phase {
  std::vector<Flow> flows;
  double repeat = 1;
  double bytes = 1;
};

enum class PatternKind : uint8_t {
  all_to_all, shift, random_permutation, random_bisection, allreduce_ring, allreduce_rd, incast, file
};

struct Pattern {
  PatternKind kind = PatternKind::all_to_all;
  uint32_t k = 0;                 // shift:K, incast:N
  bool random_placement = false;  // allreduce-*:random
  std::string path;               // file:PATH
  std::string text;               // as named
};

mad::Result<Pattern> parse_pattern(std::string_view text);

// The phases of a pattern over `n` CAs; `seed` for random ones. Not for file: patterns
// (sim/traffic/flows_file.h reads those).
mad::Result<std::vector<Phase>> make_phases(const Pattern& p, size_t n, uint64_t seed);

// One random bisection (the EBB's definition): the CAs shuffled and split into halves, the
// i-th of one half paired with the i-th of the other, each pair sending both ways (an odd CA
// out sits idle).
std::vector<Flow> random_bisection(size_t n, uint64_t seed);

}  // namespace sim::traffic
