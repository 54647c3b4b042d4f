// The channel dependency graph (CDG) of the cdg engine, kept acyclic as it grows: channels are
// the directed switch-to-switch arcs of a FabricView (arc ids), a dependency c -> d says a
// route enters d from c (d leaves the switch c enters). Dependencies are added one at a time,
// and one that would close a cycle is refused, so the graph stays acyclic and the routes that
// use only its dependencies are deadlock-free on one VL.
//
// Acyclicity is kept by an incremental topological order (Pearce and Kelly, "A dynamic
// topological sort algorithm for directed acyclic graphs", JEA 2006): every channel has a
// position; a dependency from a lower to a higher position costs nothing; otherwise only the
// channels between the two positions are searched and reordered. Dependencies are flags in
// one flat array (a channel entering v can only depend on the arcs leaving v), so there is no
// allocation after construction.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "routing/fabric_view.h"

namespace routing {

class ChannelOrder {
 public:
  explicit ChannelOrder(const FabricView& fv);

  // The arc going the other way over the same cable.
  uint32_t reverse(uint32_t arc) const { return rev_[arc]; }
  SwIdx head(uint32_t arc) const { return head_[arc]; }  // the switch the arc enters
  SwIdx tail(uint32_t arc) const { return tail_[arc]; }  // the switch it leaves

  // Starts from this topological order (every channel once), before any dependency is added:
  // dependencies that follow it then cost no search.
  void set_order(std::span<const uint32_t> channels);

  bool has(uint32_t c, uint32_t d) const { return flag_[slot(c, d)] != 0; }
  // Adds c -> d (d must leave head(c)); false, and nothing changes, when that closes a cycle.
  // True also when it was there already; `added` then says whether it is new.
  bool add(uint32_t c, uint32_t d, bool* added = nullptr);
  // Removes c -> d (removing never breaks the order).
  void remove(uint32_t c, uint32_t d) {
    uint8_t& f = flag_[slot(c, d)];
    if (f && ++epoch_ == 0) {  // what was refused may fit now
      std::fill(refused_.begin(), refused_.end(), 0);
      epoch_ = 1;
    }
    count_ -= f;
    f = 0;
  }
  size_t dependencies() const { return count_; }
  // Routes that use c -> d (a rerouting pass drops a dependency when its last route goes);
  // kept apart from the flags so that add() stays as it is.
  void hold(uint32_t c, uint32_t d) { ++ref_[slot(c, d)]; }
  // One route fewer on c -> d; the dependency goes when none is left (true then).
  bool release(uint32_t c, uint32_t d) {
    uint32_t& r = ref_[slot(c, d)];
    if (r == 0 || --r != 0) return false;
    remove(c, d);
    return true;
  }

 private:
  uint32_t slot(uint32_t c, uint32_t d) const { return dep_off_[c] + (d - fv_->arc_base(head_[c])); }
  template <class Fn>
  void successors(uint32_t c, Fn&& fn) const;
  template <class Fn>
  void predecessors(uint32_t d, Fn&& fn) const;
  bool forward(uint32_t from, uint32_t upper, uint32_t target);
  void backward(uint32_t from, uint32_t lower);

  const FabricView* fv_;
  std::vector<uint32_t> rev_, dep_off_;
  std::vector<SwIdx> head_, tail_;
  std::vector<uint8_t> flag_;
  std::vector<uint32_t> ref_;
  std::vector<uint32_t> refused_;  // the epoch_ in which the dependency was refused
  uint32_t epoch_ = 1;             // advanced by every removal
  std::vector<uint32_t> ord_, at_;  // position of each channel, and the channel at each position
  std::vector<uint32_t> mark_;      // visit stamps of the current search
  uint32_t stamp_ = 0;
  size_t count_ = 0;
  std::vector<uint32_t> stack_, fwd_, bwd_, pos_;
};

}  // namespace routing
