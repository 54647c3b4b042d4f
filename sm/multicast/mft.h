// Multicast forwarding tables: every switch's wanted MFT for all groups (one tree each,
// tree.h), diffed against what this SM wrote (MftMemory, like the LFTs' LftMemory), so only
// blocks that differ go out. A block is 32 MLIDs x one position of 16 ports (SMP attribute
// 0x001B). A switch holds nothing the SM does not know about when its LinearFDBTop read 0
// (new or rebooted); one whose tables are unknown (another SM's, or this one's before a
// restart) gets every block of the range in use written. MLIDs beyond a switch's
// MulticastFDBCap are not programmed there (logged). Where port 0 says
// IsMulticastFDBTopSupported, SwitchInfo.MulticastFDBTop is set to the end of the last
// block in use (0xBFFF: none), as OpenSM does.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "sm/fabric_model.h"
#include "sm/log.h"
#include "sm/memory.h"
#include "sm/multicast/groups.h"
#include "sm/multicast/tree.h"
#include "sm/program/sender.h"
#include "sm/smp_client.h"
#include "sm/types.h"

namespace sm::multicast {

struct MftStats {
  size_t groups = 0;             // groups with a tree
  size_t tree_switches = 0;      // (group, switch) pairs on trees
  size_t over_cap = 0;           // (group, switch) pairs left out: MLID beyond MulticastFDBCap
  size_t members_missing = 0;    // members whose port the topology does not have
  uint64_t blocks_written = 0;
  uint64_t top_sets = 0;         // SwitchInfo Sets for MulticastFDBTop
  uint64_t failures = 0;
  std::set<Guid> failed;         // the switches a Set failed on
};

// Everything to send, self-contained (paths, not topology references), so it can run while
// the next sweep replaces the topology.
struct MftPlan {
  struct Write {
    Guid guid;
    DrPath path;
    uint32_t key;  // block << 4 | position
    MftBlock masks;
  };
  struct TopSet {
    Guid guid;
    DrPath path;
    mad::SwitchInfo si;
  };
  std::vector<Write> writes;
  std::vector<TopSet> tops;
  MftStats stats;
};

// The plan for `topo` and `groups` against `memory`. Forgets the memory of switches no
// longer in the topology and, when `fresh` (the topology was just read by a sweep), of
// switches that hold nothing (LinearFDBTop read 0). Trees come from `trees` (built for
// groups that changed).
MftPlan plan_mfts(const Topology& topo, const FabricModel& model, const Registry& groups, MftMemory& memory,
                  TreeCache& trees, bool fresh, Logger& log);

// Sends a plan through the shared windowed sender; `memory` and `model` learn what was
// written as answers come. `done` runs when every SMP has been answered or given up.
class MftWriter {
 public:
  MftWriter(SmpClient& client, Logger& log, MftMemory& memory, FabricModel& model)
      : client_(client), log_(log), memory_(memory), model_(model), sender_(client.transactions()) {}
  void start(MftPlan plan, std::function<void(const MftStats&)> done);
  bool busy() const { return sender_.busy(); }

 private:
  void write(const MftPlan::Write& w);
  void set_top(const MftPlan::TopSet& s);
  SmpClient& client_;
  Logger& log_;
  MftMemory& memory_;
  FabricModel& model_;
  Sender sender_;
  MftPlan plan_;
  MftStats stats_;
  std::function<void(const MftStats&)> done_;
};

}  // namespace sm::multicast
