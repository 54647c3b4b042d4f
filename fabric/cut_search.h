// The cuts fabric/bounds.h tries: sets of switches whose channels out are few for the CAs they
// hold. Deterministic (the same fabric gives the same cuts, in the same order):
//  - leaf cuts: every switch with CAs on its own;
//  - tier cuts: with the switches `t` hops or more from the nearest CA removed, the connected
//    groups left (for a tree: its pods when t is the top tier, smaller subtrees below);
//  - grown cuts: from a few seed switches (a centre and the two ends of a long path), switches
//    added in order of a key (the distance from the seed; the distance to the seed less the
//    distance to a far switch or to one of the seed's neighbours, whose halves are the
//    coordinate half-cuts of a torus or a mesh), the most cables into the set first among
//    equals; of each order the prefix with the best all-to-all bound and the first that holds
//    half the CAs, the best of them then refined by Fiduccia-Mattheyses passes that move one
//    switch at a time to raise n (N - n) / c.
// A set and its complement are one cut (the same bounds); each is kept once, the first name.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fabric/wiring.h"

namespace fabric::cuts {

// The switches (Wiring's numbering), the up cables between them with multiplicity, and each
// switch's CAs, which are a range of the leaf order.
struct SwitchGraph {
  std::vector<uint32_t> adj_begin;  // CSR, size switches + 1
  std::vector<uint32_t> adj;        // neighbour switch
  std::vector<uint32_t> cables;     // cables to it (each a directed channel either way)
  std::vector<uint32_t> cas;        // CAs per switch
  std::vector<uint32_t> first_ca;   // leaf-order index of its first CA
  std::vector<std::string> name;    // node description
  uint64_t total_cas = 0;

  size_t size() const { return cas.size(); }
};
SwitchGraph switch_graph(const Topology& topo, const Wiring& w);

struct Cut {
  std::vector<uint32_t> members;  // switches, ascending
  std::string what;
};

std::vector<Cut> candidate_cuts(const SwitchGraph& g);

}  // namespace fabric::cuts
