// Every code a log line can carry, in one table: its number (searchable, "fabricsm[E0301]"
// greps like OpenSM's "ERR 0301"), its level, whether the daemon keeps the line as an event in
// the store, and what it means. A code names one message at one place in the source (a lint
// test checks that) and is logged at its level only (the Logger's methods check that when they
// compile); the README's table is this one (a test compares them).
// Numbers by area: 1xx the SM's control flow and the daemon, 2xx discovery, 3xx LIDs, 4xx
// routing, 5xx programming, 6xx traps and SMPs, 7xx the store, 8xx HA, 9xx the SA (90x-93x)
// and multicast (96x-97x), 10xx the PerfMgr and health (100x-104x) and metrics (105x-106x).
#pragma once

#include <cstdint>
#include <string_view>

namespace sm {

enum class Level { error = 0, warn = 1, info = 2, debug = 3 };

struct LogCode {
  uint16_t number;
  Level level;
  bool event;  // kept in the store's event log (`fabricsm show events`)
  std::string_view name;
  std::string_view meaning;
};

// X(name, number, level, event|quiet, meaning)
#define FABRICSM_LOG_CODES(X)                                                                          \
  X(starting, 101, info, event, "the SM starts: routing engine, SMPs in flight, SMInfo priority")      \
  X(sweep_requested, 102, info, event, "a heavy sweep was asked for, and why")                         \
  X(sweep_not_run, 103, debug, quiet, "a heavy sweep was asked for but this SM does not configure")    \
  X(subnet_up, 104, info, event, "the first sweep that left every port Active: SUBNET UP")             \
  X(sweep_done, 105, info, event, "a later sweep finished: SMPs, LFT blocks, time")                    \
  X(sweep_failed, 106, error, event, "a sweep did not bring the subnet up, and why")                   \
  X(transport_failed, 107, error, event, "the MAD transport failed: the daemon stops")                 \
  X(light_sweep, 109, debug, quiet, "a light sweep: switches asked, changed, silent")                  \
  X(light_sweep_changes, 110, info, event, "a light sweep found switches with port state changes")     \
  X(lid_of_port, 111, debug, quiet, "after a sweep, the LID of each port")                             \
  X(umad_stats, 112, info, event, "at exit: MADs sent, received and dropped by the transport")         \
  X(stopping, 113, info, event, "the daemon stops on SIGTERM or SIGINT")                               \
  X(port_opened, 114, info, event, "the daemon runs on this port (CA, port, GUID, LID, SM LID)")       \
  X(control_socket_failed, 115, warn, event, "the control socket could not be opened")                 \
  X(reload_refused, 116, error, event, "SIGHUP: the configuration was refused, the running one stays") \
  X(reload_done, 117, info, event, "SIGHUP: the configuration was re-read, and what changed")          \
  X(handover_wait, 118, info, event, "stopping: waiting for the standby to take the subnet over")      \
  X(reload_restart_only, 119, warn, event, "SIGHUP: settings that take effect at the next start only") \
  X(port_open_failed, 120, error, event, "the daemon could not open its port")                         \
  X(once_standing_by, 121, info, event, "--once: another SM is master, this one stands by")             \
  X(once_not_up, 122, error, event, "--once: the subnet did not come up within its sweeps")            \
  X(once_store_failed, 123, error, event, "--once: the subnet is up but the store did not take it")     \
  X(config_notes, 124, warn, event, "the configuration: OpenSM options not implemented, a missing partitions file") \
  X(is_sm_retaken, 130, warn, event, "the SM's own port had lost IsSM: taken again (or why not)")          \
  X(log_file_reopened, 131, info, quiet, "SIGUSR1: the log file reopened (logrotate)")                    \
  X(log_file_failed, 132, error, event, "the log file could not be reopened")                           \
  X(loop_turn_long, 133, warn, quiet, "a turn of the event loop took over 50 ms, and what it was doing") \
  X(wedged_exit, 134, error, event, "the daemon exits: a job of its worker hung and the SM stepped down") \
  X(test_hook, 135, warn, event, "a drill's test-only hook is on (FABRICSM_TEST_* in the environment)") \
  X(discovery_problem, 201, warn, event, "discovery met something wrong (a duplicate GUID, ...)")      \
  X(no_node_info, 202, warn, event, "discovery: no NodeInfo answer at a path")                         \
  X(no_switch_info, 203, warn, event, "discovery: no SwitchInfo answer from a switch")                 \
  X(no_port_info, 204, warn, event, "discovery: no PortInfo answer from a port")                       \
  X(unanswered_suppressed, 205, warn, event, "discovery: more unanswered SMPs, not logged one by one") \
  X(refresh_lost_node, 206, info, quiet, "a partial sweep lost a node at its known path: a full sweep follows") \
  X(refreshed, 207, info, quiet, "an incremental sweep re-read the switches a trap or light sweep named") \
  X(node_unreachable, 208, warn, event, "a node left the fabric (its description and GUID)")           \
  X(discovered, 209, info, quiet, "a heavy sweep's discovery: switches, CAs, links, SMPs")             \
  X(holes_kept, 210, warn, event, "a walk's unanswered parts: kept as known before, retried")          \
  X(hole_left_out, 211, warn, event, "a part that never answered, sweep after sweep, is left out")      \
  X(node_appeared, 212, info, event, "a node joined the fabric (its description and GUID)")            \
  X(link_down, 213, warn, event, "a cable went down: both ends (GUID, port, description), its rate")  \
  X(link_up, 214, info, event, "a cable came up: both ends, its rate (4xHDR)")                        \
  X(link_rate_changed, 215, warn, event, "a cable's rate changed (4xHDR to 4xEDR): both ends")         \
  X(topology_changes_suppressed, 216, info, event, "more topology changes in one sweep, not logged one by one") \
  X(lids_exhausted, 301, error, event, "the unicast LID space cannot hold every port")                 \
  X(lid_note, 302, warn, event, "LIDs: a conflict resolved or a reservation reclaimed")                \
  X(lids_assigned, 303, info, quiet, "LIDs kept, restored, new and changed")                           \
  X(lids_imported, 304, info, event, "LIDs read from OpenSM's guid2lid file for ports the store does not know") \
  X(routing_failed, 401, error, event, "no engine of the chain could route the fabric")                \
  X(engine_passed_over, 402, warn, event, "an engine of the chain could not route, and why")           \
  X(routed, 403, info, quiet, "routing in full: the engine, the switches, the LID range")              \
  X(repaired, 404, info, quiet, "routes repaired after a removal: destinations re-routed")             \
  X(routing_in_full, 405, debug, quiet, "an incremental sweep routes in full, and why")                \
  X(no_repair, 406, debug, quiet, "a repair was refused by the engine's rules: routing in full")      \
  X(routes_moved, 407, info, event, "traffic hints: destinations moved off hot channels, or given back") \
  X(hot_channel_kept, 408, debug, quiet, "traffic hints: a hot channel none of whose destinations can move") \
  X(no_alternatives, 409, info, event, "traffic hints: the tables offer no other equally good ports: nothing moves") \
  X(worker_hung, 410, error, event, "routing or planning did not end within worker_timeout: abandoned, this SM steps down") \
  X(program_failed, 501, error, event, "an SMP of the programming phase failed")                       \
  X(program_failures_suppressed, 502, error, event, "more programming failures, not logged one by one") \
  X(programmed, 503, info, quiet, "programming: LFT blocks, SwitchInfo, port Sets, activations")       \
  X(port_ignores_fields, 504, debug, quiet, "a port does not keep some PortInfo fields: not sent again") \
  X(pkey_failed, 520, error, event, "a P_Key table block or enforcement Set failed")                   \
  X(pkey_over_capacity, 521, warn, event, "a port holds fewer P_Keys than its partitions need")        \
  X(pkey_no_enforcement, 522, warn, event, "a switch port cannot hold the table to enforce: no enforcement") \
  X(pkey_enforcement_not_kept, 523, debug, quiet, "a port does not keep the enforcement bits: not sent again") \
  X(pkeys_programmed, 524, info, quiet, "P_Keys: blocks written and read, enforcement Sets")           \
  X(pkey_failures_suppressed, 525, error, event, "more P_Key failures, not logged one by one")         \
  X(pkey_warnings_suppressed, 526, warn, event, "more P_Key warnings, not logged one by one")          \
  X(lft_tampered, 527, error, event, "security: LFT blocks unlike what this SM wrote, found and rewritten") \
  X(lft_verified, 528, debug, quiet, "a light sweep's share of LFT blocks read back")                   \
  X(qos_programmed, 530, info, quiet, "QoS: SLtoVL tables and VLArbitration blocks written and read")   \
  X(qos_failed, 531, error, event, "a SLtoVL table or VLArbitration block Set failed")                  \
  X(qos_failures_suppressed, 532, error, event, "more QoS failures, not logged one by one")             \
  X(sl2vl_from_routing, 533, info, event, "QoS: the SL-to-VL tables are the routing's VL layers, not qos_sl2vl") \
  X(malformed_smp, 601, warn, event, "an SMP that does not decode was dropped")                        \
  X(malformed_trap, 602, warn, event, "a trap whose Notice does not decode")                           \
  X(trap, 603, info, quiet, "a trap arrived: its number and issuer")                                   \
  X(flapping, 604, warn, event, "a port changes state too often")                                      \
  X(trap_144, 605, debug, quiet, "trap 144 (capabilities changed) and the port it names")              \
  X(mkey_foreign, 606, warn, event, "a port carried another SM's M_Key, which it showed: this SM's goes on it") \
  X(mkey_refused, 607, error, event, "ports hold an M_Key this SM does not know: left alone until their lease runs out") \
  X(mkey_retry, 608, info, event, "the M_Key lease of ports left alone has run out: they are tried again") \
  X(mkey_violations, 609, warn, event, "a port's M_KeyViolations counter rose since the last sweep")    \
  X(bad_mkey, 610, error, event, "security: trap 256, a port refused an SMP with a wrong M_Key, and who sent it") \
  X(own_mkey_refused, 611, debug, quiet, "trap 256 for this SM's own SMP (a port it does not hold the key of)") \
  X(store_open_failed, 700, error, event, "the store could not be opened or read")                     \
  X(store_committed, 701, info, quiet, "a sweep's commit: rows written, time")                         \
  X(store_commit_failed, 702, error, event, "a sweep's commit failed (the next one writes everything)") \
  X(store_set_aside, 703, error, event, "the database was corrupt: kept aside, starting from the fabric") \
  X(store_opened, 704, info, quiet, "the store at start: schema, LIDs and tables known")               \
  X(sa_state_restored, 705, info, event, "SA state read back: groups, services, subscriptions")        \
  X(sa_state_not_restored, 706, error, event, "SA state could not be read back on taking over")        \
  X(store_flush_failed, 707, error, event, "events, peers or SA state could not be written")           \
  X(ha_state, 801, info, event, "HA: this SM's state changed")                                         \
  X(ha_master_lost, 802, warn, event, "HA: the master stopped answering or hung")                      \
  X(ha_handover, 803, info, event, "HA: mastership handed over or taken")                              \
  X(ha_security, 804, error, event, "HA: an SM with another SM_Key, or a forged request")              \
  X(ha_peer, 805, info, event, "HA: another SM appeared, changed or left")                             \
  X(ha_warning, 806, warn, event, "HA: something unusual in the election")                             \
  X(configuring, 807, info, event, "this SM configures the subnet from now on")                        \
  X(standing_by, 808, info, event, "another SM configures the subnet: this one stands by")             \
  X(walked, 809, info, event, "a sweep walked the fabric but configured nothing (not master)")         \
  X(rogue_master, 810, error, event, "security: another SM acts as master (another SM_Key, ports pointed at it)") \
  X(rogue_gone, 811, warn, event, "security: the other SM acting as master is gone")                  \
  X(ha_route, 812, warn, event, "HA: the master answers only by another route than the walk's")       \
  X(sa_answer, 904, debug, quiet, "the SA answered a request: method, attribute, status, size")        \
  X(sa_send_failed, 905, debug, quiet, "the SA could not send an answer")                              \
  X(sa_rmpp_send_failed, 906, debug, quiet, "the SA could not hand an RMPP answer to the transport")   \
  X(qos_policy_loaded, 907, info, event, "the QoS policy PathRecords answer SLs from: port groups, levels, rules") \
  X(qos_policy_sls_unused, 908, warn, event, "the routing engine gives SLs of its own (VL layers): the QoS policy's SLs are not used") \
  X(trap_65_sent, 930, info, quiet, "an end port left service: trap 65 to the subscribers")            \
  X(subscriptions_dropped, 931, info, quiet, "an end port left service: its subscriptions dropped")    \
  X(reports_unanswered, 932, warn, event, "too many Reports unanswered: a notice not reported")        \
  X(report_send_failed, 933, debug, quiet, "a Report could not be sent")                               \
  X(report_given_up, 934, info, quiet, "no ReportResp after every resend: the Report is given up")     \
  X(trap_64_sent, 935, info, quiet, "an end port came into service: trap 64 to the subscribers")       \
  X(multicast_programmed, 961, info, quiet, "multicast: groups, switch tables, MFT blocks written")    \
  X(mlid_over_cap, 962, warn, event, "a group's MLID is beyond a switch's MulticastFDBCap")            \
  X(mft_block_failed, 963, error, event, "an MFT block Set failed")                                    \
  X(stored_group_bad, 964, error, event, "a stored multicast group record does not decode")            \
  X(group_restored, 965, debug, quiet, "a multicast group came back from the store")                   \
  X(broadcast_group, 966, info, quiet, "a group of a partition (IPoIB broadcast, mgid=), with its MLID")      \
  X(partition_group_deleted, 967, info, quiet, "a group deleted: its partition is gone, no full member") \
  X(member_left_fabric, 968, info, quiet, "a port left the fabric and its multicast groups")           \
  X(mft_top_failed, 969, error, event, "a SwitchInfo Set of MulticastFDBTop failed")                   \
  X(stored_group_refused, 970, error, event, "a stored multicast group could not be restored")        \
  X(broadcast_group_failed, 971, error, event, "a group of a partition (IPoIB broadcast, mgid=) could not be created") \
  X(group_deleted, 972, info, quiet, "a group deleted: no full member left")                            \
  X(perfmgr_started, 1001, info, event, "the PerfMgr starts: counter sweep interval, queries in flight") \
  X(counter_sweep_started, 1002, debug, quiet, "a counter sweep starts: ports and nodes to read")     \
  X(counter_sweep_done, 1003, info, quiet, "a counter sweep ended (logged for the first and when ports did not answer)") \
  X(pma_no_class_port_info, 1004, debug, quiet, "a node answered no PMA ClassPortInfo: basic counters only") \
  X(port_unanswered, 1005, debug, quiet, "a port did not answer its counter query")                 \
  X(counters_reset, 1006, debug, quiet, "a port's counters went down (reset, reboot): a new baseline") \
  X(counters_not_cleared, 1007, debug, quiet, "a PortCounters Set to clear saturating counters failed") \
  X(health_finding, 1010, warn, event, "a health rule fired on a cable: both ends and what was seen") \
  X(cable_isolated, 1011, warn, event, "a cable is taken out of the routes for a health finding")  \
  X(cable_not_isolated, 1012, warn, event, "a finding would isolate a CA's link: reported only")    \
  X(cable_not_isolated_only_path, 1013, warn, event, "a finding would isolate the only path: reported only") \
  X(cable_restored, 1014, info, event, "an isolated cable is back in the routes")                  \
  X(health_cleared, 1015, info, event, "an operator cleared health findings")                      \
  X(counters_not_stored, 1016, error, event, "a counter sweep's samples could not be written to the store") \
  X(traffic_round, 1020, info, event, "traffic hints: a round starts, with the hot channels and why") \
  X(traffic_released, 1021, info, event, "traffic hints given back: the traffic that caused them eased") \
  X(traffic_round_done, 1022, info, event, "traffic hints in place: destinations moved, LFT blocks written") \
  X(traffic_stopped, 1023, info, event, "traffic hints: a round did not raise throughput: no more until the traffic changes") \
  X(metrics_listening, 1050, info, event, "the metrics endpoint listens (metrics_listen)")              \
  X(metrics_not_loopback, 1051, warn, event, "metrics_listen is not loopback: reachable from the network") \
  X(metrics_bind_failed, 1052, error, event, "the metrics endpoint cannot listen: the daemon stops (exit 2)") \
  X(web_listening, 1070, info, event, "the web view listens (web_listen), and whether it asks for a token")    \
  X(web_bind_failed, 1071, error, event, "the web view cannot listen: the daemon stops (exit 2)") \
  X(web_no_store, 1072, warn, event, "the web view cannot read the store: no counter history")

namespace code {
inline constexpr bool event = true, quiet = false;
#define FABRICSM_LOG_CODE_CONSTANT(id, n, lvl, keep, text) \
  inline constexpr LogCode id{n, Level::lvl, keep, #id, text};
FABRICSM_LOG_CODES(FABRICSM_LOG_CODE_CONSTANT)
#undef FABRICSM_LOG_CODE_CONSTANT
}  // namespace code

// The table, in number order.
inline constexpr LogCode kLogCodes[] = {
#define FABRICSM_LOG_CODE_ENTRY(id, n, lvl, keep, text) code::id,
    FABRICSM_LOG_CODES(FABRICSM_LOG_CODE_ENTRY)
#undef FABRICSM_LOG_CODE_ENTRY
};

consteval bool log_codes_sorted_and_unique() {
  for (size_t i = 1; i < std::size(kLogCodes); ++i)
    if (kLogCodes[i - 1].number >= kLogCodes[i].number) return false;
  return true;
}
static_assert(log_codes_sorted_and_unique(), "log codes must be unique and listed in number order");

}  // namespace sm
