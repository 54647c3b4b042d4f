#!/usr/bin/env bash
# ha_sa_state.sh FABRICSM SA_CLIENT MCAST_JOIN NETFILE: what SA clients created survives a
# takeover when the SMs share their database. Two `fabricsm run` on one ibsim, priorities 10
# and 5, both with the same --db; a CA registers a ServiceRecord (SA_CLIENT) and another joins
# the IPoIB broadcast group (MCAST_JOIN) at the master; after kill -9 of the master, the new
# master reads them back from the store: `saquery SR` from a third CA shows the service, and
# its log says it took the group (with the member) and the service over. A control run with a
# database of its own shows the service is then gone (clients would re-register on
# ClientReregister), so the check can fail.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"

FABRICSM=$(realpath "$1")
CLIENT=$(realpath "$2")
JOIN=$(realpath "$3")
NET=$4
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
command -v saquery > /dev/null || { echo "SKIP: saquery missing"; exit 77; }
ha_init ha-sa-$$
name="HA SA state $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
A=${cas[0]}
B=${cas[$((${#cas[@]} / 2))]}
C=${cas[$((${#cas[@]} - 1))]}
D=${cas[1]}

# run DB_A DB_B: one master and one standby, a service and a join, kill -9; what `saquery SR`
# from C shows afterwards (the service name, or nothing) goes to $work/got.
run() {
  local db_a=$1 db_b=$2 n
  ibsim_start "$NET" || exit 1
  for n in a b; do
    local db=$db_a host=$A prio=10
    [ $n = b ] && db=$db_b host=$B prio=5
    (cd "$work/cwd" && SIM_HOST=$host LD_PRELOAD=$SHIM exec "$FABRICSM" run --db "$db" \
       --control_socket "$work/$n.sock" --log-level info --priority $prio 2> "$work/$n.log") &
    ha_pids[$n]=$!
    if [ $n = a ]; then wait_log a 'SUBNET UP' 60 || exit 1; else wait_log b 'entering Standby' 30 || exit 1; fi
  done
  SIM_HOST=$D shim "$CLIENT" set-service 0x100000000000abcd ha-kept > "$work/client.out" 2>&1 ||
    fail "ServiceRecord Set: $(cat "$work/client.out")"
  SIM_HOST=$C shim "$JOIN" "$(lid_of "$A")" join > "$work/join.out" 2>&1 || fail "join: $(cat "$work/join.out")"
  sleep 2.5  # the master writes SA objects with its next flush (every 2 s)
  stop_sm a KILL
  wait_log b 'SUBNET UP' 30 || fail "the standby did not take over"
  for _ in $(seq 40); do
    SIM_HOST=$C shim timeout 10 saquery SR 2>&1 | grep -q 'ServiceName.*ha-kept' && break
    sleep 0.1
  done
  SIM_HOST=$C shim timeout 10 saquery SR 2>&1 | grep -o 'ha-kept' | head -1 > "$work/got"
  stop_sm b TERM
  ibsim_stop
}

run "$work/shared.db" "$work/shared.db"
got=$(cat "$work/got")
line=$(grep 'I0705' "$work/b.log" | tail -1)
if [ "$got" = ha-kept ] && grep -q '1 multicast group(s), 1 service record(s)' <<< "$line"; then
  log "shared database: the new master answers the service and holds the group: ${line#*: }"
else
  fail "shared database: saquery SR after the takeover: '$got'; $line"
fi
grep -q 'W0[0-9]*.*store\|E07' "$work/b.log" && fail "store errors: $(grep 'E07\|W07' "$work/b.log" | head -3)"

run "$work/a.db" "$work/b.db"
got=$(cat "$work/got")
if [ -z "$got" ]; then
  log "own databases (control): the service is not there after the takeover, as expected"
else
  fail "own databases: the new master answers a service it never had"
fi
exit $failed
