#!/usr/bin/env bash
# ha_opensm.sh FABRICSM NETFILE: fabricsm and OpenSM on one ibsim elect one master between them
# (both with SM_Key 1, OpenSM's default), each scenario on a fresh ibsim:
#   1. fabricsm (priority 10) is master; OpenSM (priority 5) joins and stands by under it;
#   2. OpenSM (10) is master; fabricsm (5) joins and stands by; kill -9 of OpenSM: fabricsm
#      takes over (timed), every port keeps the LID OpenSM gave it;
#   3. OpenSM (5) is master; fabricsm (10) joins, stands by and tells it (trap 144); OpenSM
#      hands the subnet over; fabricsm master, OpenSM standby.
# After each: sminfo from a third CA names one master, and the other SM answers STANDBY.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ha_init ha-opensm-$$

mapfile -t cas < <(ca_names "$NET")
F=${cas[0]}                        # fabricsm's CA
O=${cas[$((${#cas[@]} / 2))]}      # OpenSM's
C=${cas[$((${#cas[@]} - 1))]}      # the third CA, for sminfo
short() { printf '0x%x' "$1"; }

# one_master MASTER_GUID OTHER_LID: sminfo from C shows MASTER_GUID as master, OTHER_LID answers STANDBY.
one_master() {
  local out
  out=$(sminfo_at "$C")
  grep -q "sm guid $(short "$1"),.*state 3 SMINFO_MASTER" <<< "$out" || { fail "sminfo from $C: $out"; return 1; }
  out=$(sminfo_at "$C" "$2")
  grep -q 'state 2 SMINFO_STANDBY' <<< "$out" || { fail "sminfo $2 from $C: $out"; return 1; }
}

fabricsm_guid() { grep -m1 -o 'port GUID 0x[0-9a-f]*' "$work/$1.log" | awk '{ print $3 }'; }
opensm_guid() { SIM_HOST=$1 shim smpquery -D nodeinfo 0 2>/dev/null | awk -F. '/^PortGuid:/ { print $NF }'; }

# 1 ----------------------------------------------------------------------------------------
name="fabricsm master, OpenSM standby"
ibsim_start "$NET" || exit 1
start_fabricsm f1 "$F" --priority 10
wait_log f1 'SUBNET UP' 60 || exit 1
start_opensm o1 "$O" -p 5
if wait_log o1 'Entering STANDBY state' 30; then
  sleep 1.5  # fabricsm re-reads other SMs' SMInfo every second
  one_master "$(fabricsm_guid f1)" "$(lid_of "$O")" && log "OpenSM (priority 5) stands by under fabricsm (10): one master"
  grep -q 'Entering MASTER' "$work/o1.log" && fail "OpenSM entered MASTER"
fi
stop_sm o1 KILL
stop_sm f1 TERM
ibsim_stop

# 2 ----------------------------------------------------------------------------------------
name="OpenSM master, fabricsm standby, OpenSM killed"
ibsim_start "$NET" || exit 1
start_opensm o2 "$O" -p 10
wait_log o2 'SUBNET UP' 60 || exit 1
start_fabricsm f2 "$F" --priority 5
if wait_log f2 'entering Standby' 30; then
  guid_o=$(opensm_guid "$O")
  lid_f=$(lid_of "$F")
  one_master "$guid_o" "$lid_f" && log "fabricsm (priority 5) stands by under OpenSM (10): one master"
  port_lids "$C" > "$work/lids.before"
  t0=$(now)
  stop_sm o2 KILL
  t1=""
  for _ in $(seq 400); do
    grep -q 'state 3 SMINFO_MASTER' <<< "$(sminfo_at "$C" "$lid_f")" && { t1=$(now); break; }
    sleep 0.02
  done
  if [ -n "$t1" ]; then
    log "kill -9 of OpenSM -> fabricsm answers as MASTER: $(elapsed "$t0" "$t1") s"
  else
    fail "fabricsm never took over"
  fi
  wait_log f2 'SUBNET UP' 30 || fail "fabricsm did not bring the subnet up"
  grep 'I0503' "$work/f2.log" | tail -1 | sed "s/^/[$name]   /"
  port_lids "$C" > "$work/lids.after"
  if diff -q "$work/lids.before" "$work/lids.after" > /dev/null; then
    log "every port keeps the LID OpenSM gave it ($(wc -l < "$work/lids.after") ports)"
  else
    fail "LIDs changed:"; diff "$work/lids.before" "$work/lids.after" | head -5
  fi
fi
stop_sm f2 TERM
ibsim_stop

# 3 ----------------------------------------------------------------------------------------
name="OpenSM hands over to fabricsm"
ibsim_start "$NET" || exit 1
start_opensm o3 "$O" -p 5
wait_log o3 'SUBNET UP' 60 || exit 1
start_fabricsm f3 "$F" --priority 10
# fabricsm may still be discovering, or (on a loaded machine) already master of what it has
# seen when OpenSM's HANDOVER comes: "handed the subnet over", "... while this SM discovers",
# or "split brain over: ... handed its part of the subnet over". Each is OpenSM handing over.
if wait_log f3 'handed .*subnet over' 30 && wait_log o3 'Entering STANDBY state' 10; then
  wait_log f3 'SUBNET UP' 30 || fail "fabricsm did not bring the subnet up"
  one_master "$(fabricsm_guid f3)" "$(lid_of "$O")" && log "OpenSM (priority 5) handed over to fabricsm (10): one master"
else
  grep 'HA' "$work/f3.log" | tail -5 | sed "s/^/[$name]   /"
  fail "no handover"
fi
stop_sm o3 KILL
stop_sm f3 TERM
ibsim_stop
exit $failed
