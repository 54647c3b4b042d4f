// What an SM's high-availability behaviour is tuned by. The defaults are much stricter than
// OpenSM's (poll every 10 s, fail over after 4 misses: about 55 s): a standby polls the master
// every 100 ms and declares it dead after 3 unanswered polls, or when 3 answers in a row carry
// the same ActCount (the master answers but no longer works).
#pragma once

#include <chrono>
#include <cstdint>

#include "mad/transport.h"

namespace ha {

using mad::Nanos;

struct Config {
  uint8_t priority = 0;   // SMInfo priority, 0..15: the highest wins, ties to the lower port GUID
  // Peers whose SMInfo carries another key are not believed. 1 is OpenSM's default: the two
  // elect one master between them out of the box.
  uint64_t sm_key = 1;
  // Keep mastership when a higher-priority SM shows up (no handover): a preferred SM that
  // comes back does not make the subnet change hands twice. Split brain ignores it.
  bool sticky = false;
  Nanos poll_interval = std::chrono::milliseconds(100);  // standby -> master SMInfo Get
  Nanos poll_timeout = std::chrono::milliseconds(100);   // one attempt; then it is a miss
  int max_misses = 3;     // unanswered polls in a row: the master may be dead ...
  // ... and is taken for dead only when one more SMInfo Get, with this long to answer, goes
  // unanswered too (a busy master is not a dead one); 0: no such confirmation. It adds this
  // much to a real failover.
  Nanos confirm_timeout = std::chrono::milliseconds(250);
  int stall_polls = 3;    // answers in a row with an unchanged ActCount: the master is hung
  // The master's ActCount moves at least this often, and at least four times per poll
  // interval whatever this says (a standby watching it must see it move between two polls).
  Nanos heartbeat = std::chrono::milliseconds(25);
  // A standby waiting for a higher SM that is not master yet (it is still discovering, or is a
  // standby itself) re-runs the election after this many polls.
  int settle_polls = 20;
  // The master re-reads every other SM's SMInfo this often (a standby with a higher priority
  // gets the subnet handed over; one that vanished is forgotten). SMs in Discovering or in
  // Master state (split brain) are re-read every poll interval until they settle.
  Nanos peer_check = std::chrono::seconds(1);
  // An SMInfo DISCOVER (even with the right SM_Key, which a Get hands to anyone while the
  // M_Key is 0) makes this SM walk the whole subnet: at most once per this long; the others
  // in between are refused (busy) and reported once.
  Nanos discover_holdoff = std::chrono::seconds(5);
};

}  // namespace ha
