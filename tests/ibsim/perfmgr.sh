#!/usr/bin/env bash
# perfmgr.sh FABRICSM NETFILE: the PerfMgr on ibsim, checked with perfquery. fabricsm runs with
# a counter sweep a second; ibsim's console sets counters (PerformanceSet) and:
# - a SymbolErrorCounter on a leaf's uplink becomes a finding (show health, the W1010 log line)
#   that names both ends of the cable; perfquery and `show counters` agree on the count;
# - a 16-bit counter (PortRcvErrors) and a 32-bit one (PortXmitWait) past half their range are
#   cleared by the PerfMgr (perfquery reads 0 afterwards) and their totals keep the count;
# - a counter that goes down (as after a switch reboot) gives no negative delta.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
command -v perfquery > /dev/null || { echo "SKIP: perfquery missing (infiniband-diags)"; exit 77; }
ibsim_init perfmgr-$$
name="PerfMgr $(basename "$NET")"
ibsim_start "$NET" console || exit 1
sm_daemon fabricsm --routing_engine minhop --perfmgr TRUE --perfmgr_sweep_time_s 1 || exit 1
show() { "$FABRICSM" show --db "$work/fabricsm.db" "$@"; }
# total NODE:PORT COUNTER: the PerfMgr's total of a counter for one port, from the store.
total() {
  show counters --port "$1" --json | python3 -c "import json,sys; r=json.load(sys.stdin); print(r[0]['$2_total'] if r else '')"
}
# wait_for SECONDS CMD...: until CMD succeeds.
wait_for() {
  local until=$(($(date +%s) + $1)); shift
  until "$@"; do [ "$(date +%s)" -gt $until ] && return 1; sleep 0.25; done
}
swept() { [ -n "$(total "$1" symbol_error)" ]; }
wait_for 20 swept S1_000:5 || { fail "no counters stored for S1_000:5"; exit 1; }
rows=$(show counters --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
log "a counter sweep stored $rows ports"
lid_of_node() { grep -m1 -F "\"$1\"" <<< "$(shim ibnetdiscover 2>/dev/null)" | grep -o 'lid [0-9]*' | head -1 | awk '{print $2}'; }
leaf=$(lid_of_node S1_000)
[ -n "$leaf" ] || { fail "no LID for S1_000"; exit 1; }
pq() { shim perfquery "$@" 2>/dev/null; }
field() { awk -F. -v f="$1" '$1 ~ "^"f":" { print $NF + 0 }' <<< "$2"; }

# 1. A finding with both ends of the cable named, and perfquery agreeing.
ibsim_cmd 'PerformanceSet "S1_000"[5] PortCounters.SymbolErrorCounter=1234'
has_finding() { show health | grep -q "^symbol_error .*S1_000\[5\].*S2_000\[1\].*SymbolErrorCounter +1,234"; }
wait_for 10 has_finding && log "finding: $(show health | grep '^symbol_error' | tr -s ' ')" ||
  fail "no symbol_error finding at S1_000[5] facing S2_000[1]: $(show health)"
line=$(grep W1010 "$work/daemon.log" | grep symbol_error | head -1)
grep -q "S1_000.*\[5\].*<->.*S2_000.*\[1\].*SymbolErrorCounter +1,234" <<< "$line" &&
  log "log: ${line#*]: }" || fail "no W1010 line naming both ends: $line"
pq_val=$(field SymbolErrorCounter "$(pq "$leaf" 5)")
fsm_val=$(total S1_000:5 symbol_error)
[ "$pq_val" = 1234 ] && [ "$fsm_val" = 1234 ] && log "perfquery $leaf 5: SymbolErrorCounter $pq_val, fabricsm total $fsm_val" ||
  fail "perfquery says $pq_val, fabricsm $fsm_val (want 1234)"

# `show counters --top` orders by a rate; `health clear` (the control socket) closes the finding.
top=$(show counters --top 3 --by port_xmit_packets --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(len(r), all(r[i]["port_xmit_packets_per_s"] >= r[i + 1]["port_xmit_packets_per_s"] for i in range(len(r) - 1)))')
[ "$top" = "3 True" ] || fail "show counters --top 3 --by port_xmit_packets: $top"
show counters --top 3 --by nonsense > /dev/null 2>&1; [ $? = 2 ] || fail "show counters --by nonsense did not exit 2"
out=$("$FABRICSM" health clear --socket "$work/sm.sock" --port S2_000:1)
[ "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1]))' "$out")" = "{'cleared': 1}" ] && log "health clear --port S2_000:1 (the cable's far end): $out" || fail "health clear: $out"
cleared_finding() { ! show health | grep -q '^symbol_error'; }
wait_for 10 cleared_finding || fail "the finding is still in show health after health clear"
out=$("$FABRICSM" health clear --socket "$work/sm.sock" --port S9_999:1)
grep -q '"error": "no port S9_999:1' <<< "$out" || fail "health clear of an unknown port: $out"

# 2. Counters past half their range are cleared before they stick; the totals keep the count.
ibsim_cmd 'PerformanceSet "S1_000"[6] PortCounters.PortRcvErrors=40000'
ibsim_cmd 'PerformanceSet "S1_000"[7] PortCounters.PortXmitWait=4294967295'
cleared() { [ "$(field PortRcvErrors "$(pq "$leaf" 6)")" = 0 ] && [ "$(field PortXmitWait "$(pq "$leaf" 7)")" = 0 ]; }
wait_for 10 cleared && log "PortRcvErrors 40000 and PortXmitWait 0xffffffff cleared by the PerfMgr (perfquery reads 0)" ||
  fail "not cleared: PortRcvErrors $(field PortRcvErrors "$(pq "$leaf" 6)"), PortXmitWait $(field PortXmitWait "$(pq "$leaf" 7)")"
rcv=$(total S1_000:6 port_rcv_errors); wait=$(total S1_000:7 port_xmit_wait)
[ "$rcv" = 40000 ] && [ "$wait" = 4294967295 ] && log "totals kept: PortRcvErrors $rcv, PortXmitWait $wait" ||
  fail "totals after the clear: PortRcvErrors $rcv (want 40000), PortXmitWait $wait (want 4294967295)"

# 3. A counter that went down (a reboot) starts a new baseline: no negative delta, no wrap.
ibsim_cmd 'PerformanceSet "S1_000"[5] PortCounters.SymbolErrorCounter=0'
sleep 2.5
ibsim_cmd 'PerformanceSet "S1_000"[5] PortCounters.SymbolErrorCounter=6'
grew() { [ "$(total S1_000:5 symbol_error)" = 1240 ]; }
wait_for 10 grew && log "after a reset: total 1234 + 6 = $(total S1_000:5 symbol_error)" ||
  fail "after a reset the total is $(total S1_000:5 symbol_error) (want 1240)"
grep -q "E1016" "$work/daemon.log" && fail "store errors: $(grep E1016 "$work/daemon.log" | head -2)"
sm_stop TERM || fail "the daemon did not stop cleanly"
exit $failed
