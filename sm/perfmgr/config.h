// The PerfMgr's settings: OpenSM's option names where they exist (perfmgr_*), and the health
// rules' thresholds and actions.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "mad/transport.h"

namespace sm::perfmgr {

enum class Action : uint8_t { report, isolate };

struct Config {
  bool enabled = false;                                    // perfmgr
  mad::Nanos sweep_time = std::chrono::seconds(60);        // perfmgr_sweep_time_s
  int max_outstanding = 64;                                // perfmgr_max_outstanding_queries
  bool ignore_cas = false;                                 // perfmgr_ignore_cas
  bool rm_nodes = true;                                    // perfmgr_rm_nodes: forget ports that left
  bool log_errors = true;                                  // perfmgr_log_errors
  bool xmit_wait_log = false;                              // perfmgr_xmit_wait_log
  uint32_t xmit_wait_threshold = 0x10000;                  // perfmgr_xmit_wait_threshold (per sweep)
  bool on_standby = false;                                 // perfmgr_on_standby: sweep as a standby too
  mad::Nanos query_timeout = std::chrono::milliseconds(200);
  int query_retries = 2;
  // Per rule (kCounterInfo names, "flapping", "degraded_link"): the increase within one
  // counter sweep that makes a finding. Rules not listed keep their defaults (health.cpp).
  std::map<std::string, uint64_t> thresholds;
  // The rules whose findings isolate the cable (the SM routes around it); others report.
  std::set<std::string> isolate;
  // A finding closes (and an isolated cable comes back) after this long without firing; 0: an
  // isolated cable stays out until `fabricsm health clear`.
  mad::Nanos clean_time = std::chrono::seconds(3600);
  // What the store keeps: one sample per port at most this often, for this long.
  mad::Nanos sample_interval = std::chrono::seconds(600);
  mad::Nanos retention = std::chrono::hours(24);
};

}  // namespace sm::perfmgr
