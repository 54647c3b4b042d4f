// What one sweep did: its trigger, what it found, what each phase cost and what it wrote.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sm/lid_manager.h"
#include "sm/program/pkey_writer.h"
#include "sm/program/programmer.h"
#include "sm/program/qos_writer.h"

namespace sm {

// Wall-clock milliseconds (what the sweep cost) and fabric milliseconds (how long it took on
// the transport's clock: virtual in the simulator, the same as wall on real hardware).
struct PhaseTime {
  double wall_ms = 0;
  double fabric_ms = 0;
};

struct SweepReport {
  uint64_t number = 0;
  bool heavy = true;
  std::string trigger;  // what asked for it
  bool up = false;
  std::string failure;  // why it is not up
  size_t nodes = 0, switches = 0, cas = 0, links = 0;
  size_t refreshed = 0, pruned = 0;  // incremental: switches re-read, nodes dropped
  // Reads that stayed unanswered (walk_holes.h): blocking SUBNET UP, and left out for good;
  // nodes kept as known before because of them.
  size_t holes = 0, left_out = 0, kept_nodes = 0;
  uint16_t max_lid = 0;
  LidAssignment lids;
  std::string engine;  // empty: nothing was routed (not master, or it failed before)
  // Routing repaired the previous sweep's routes instead of recomputing them: destination
  // LIDs re-routed somewhere, and LFT entries changed.
  bool repaired = false;
  size_t repaired_destinations = 0, repaired_entries = 0;
  // The traffic hints routing used (sm/adapt/: 0 = none yet), their hot channels, and for a
  // new round, the destination LIDs whose route moved somewhere and the entries.
  uint64_t hints_generation = 0;
  size_t hinted_links = 0;
  size_t moved_destinations = 0, moved_entries = 0;
  ProgramStats program;
  uint64_t mft_blocks = 0;  // multicast forwarding blocks written
  PKeyStats pkeys;
  QosStats qos;
  PhaseTime discovery, lid_assignment, routing, programming, total;
  uint64_t smps_sent = 0, smps_retried = 0, smps_timed_out = 0;
  std::vector<std::string> problems;
};

}  // namespace sm
