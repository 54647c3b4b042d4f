#!/usr/bin/env bash
# ha_failover.sh FABRICSM NETFILE: two `fabricsm run` on one ibsim, at different CAs (SIM_HOST),
# priorities 10 and 5, each with its own --db; each sets IsSM itself (the issm device, which the
# shim handles). sminfo from a third CA shows the first as MASTER and the second answers
# STANDBY; kill -9 of the master; the time until sminfo from the third CA shows the second as
# MASTER (target: under 1 s; OpenSM's defaults: about 55 s); the LIDs every port holds
# (ibnetdiscover) are the same before and after, and the takeover wrote no LFT block.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ha_init ha-failover-$$
name="HA failover $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
A=${cas[0]}
B=${cas[$((${#cas[@]} / 2))]}
C=${cas[$((${#cas[@]} - 1))]}
ibsim_start "$NET" || exit 1

start_fabricsm a "$A" --priority 10
wait_log a 'SUBNET UP' 60 || exit 1
start_fabricsm b "$B" --priority 5
wait_log b 'entering Standby' 30 || exit 1
guid_a=$(grep -m1 -o 'port GUID 0x[0-9a-f]*' "$work/a.log" | awk '{ print $3 }')
guid_b=$(grep -m1 -o 'port GUID 0x[0-9a-f]*' "$work/b.log" | awk '{ print $3 }')
short() { printf '0x%x' "$1"; }  # sminfo prints GUIDs without leading zeros
lid_b=$(lid_of "$B")

out=$(sminfo_at "$C")
grep -q "sm guid $(short "$guid_a"),.*state 3 SMINFO_MASTER" <<< "$out" || fail "sminfo from $C: $out"
out=$(sminfo_at "$C" "$lid_b")
grep -q "sm guid $(short "$guid_b"),.*priority 5 state 2 SMINFO_STANDBY" <<< "$out" || fail "sminfo $lid_b from $C: $out"
[ $failed -eq 0 ] && log "sminfo: $A (priority 10) MASTER, $B (priority 5, LID $lid_b) STANDBY"
port_lids "$C" > "$work/lids.before"
[ -s "$work/lids.before" ] || fail "ibnetdiscover -p found no port"

# kill -9 of the master: the time until the standby answers as MASTER, and until sminfo from
# the third CA (to the SM LID its port holds, which the new master sets) shows it.
t0=$(now)
stop_sm a KILL
t_answer="" t_port=""
for _ in $(seq 400); do
  t=$(now)
  [ -z "$t_answer" ] && grep -q 'state 3 SMINFO_MASTER' <<< "$(sminfo_at "$C" "$lid_b")" && t_answer=$t
  [ -z "$t_port" ] && grep -q "sm guid $(short "$guid_b"),.*state 3 SMINFO_MASTER" <<< "$(sminfo_at "$C")" && t_port=$t
  [ -n "$t_answer" ] && [ -n "$t_port" ] && break
  sleep 0.02
done
if [ -z "$t_answer" ] || [ -z "$t_port" ]; then
  fail "the standby never answered as MASTER"; grep -e 'HA' "$work/b.log" | tail -5
else
  log "kill -9 of the master -> the standby answers as MASTER: $(elapsed "$t0" "$t_answer") s; sminfo from $C" \
      "(its port's SM LID) shows it: $(elapsed "$t0" "$t_port") s"
  awk -v a="$t0" -v b="$t_port" 'BEGIN { exit !(b - a < 3) }' || fail "takeover took more than 3 s"
fi
wait_log b 'SUBNET UP' 30 || fail "the new master did not bring the subnet up"
grep 'HA: \|I0503\|I0104' "$work/b.log" | grep -v '^$' | tail -6 | sed "s/^/[$name]   /"
blocks=$(grep 'I0503' "$work/b.log" | tail -1 | sed -E 's/.*programming: ([0-9]+) LFT blocks written.*/\1/')
[ "$blocks" = 0 ] || fail "the takeover wrote $blocks LFT blocks on an unchanged fabric"
port_lids "$C" > "$work/lids.after"
if diff -q "$work/lids.before" "$work/lids.after" > /dev/null; then
  log "ibnetdiscover: all $(wc -l < "$work/lids.after") ports hold the LIDs they held before; 0 LFT blocks written"
else
  fail "LIDs changed:"; diff "$work/lids.before" "$work/lids.after" | head -5
fi
out=$(sminfo_at "$C")
grep -q "sm guid $(short "$guid_b"),.*state 3 SMINFO_MASTER" <<< "$out" || fail "sminfo after the takeover: $out"
# The new master's store: the SM peers it heard (the dead master, last heard as Master).
peers=$("$FABRICSM" show sms --db "$work/b.db")
if grep -q "$guid_a .* Master" <<< "$peers"; then
  log "show sms (the new master's store): $(grep "$guid_a" <<< "$peers" | tr -s ' ')"
else
  fail "show sms does not list the old master: $peers"
fi

# SIGTERM of a master that has a standby: it hands the subnet over (SMInfo HANDOVER) before it
# exits, so the standby is master at once, not after its heartbeat timeout.
start_fabricsm a "$A" --priority 10  # back: b (priority 5) hands the subnet over to it
wait_log a 'SUBNET UP' 60 || fail "the returning master did not bring the subnet up"
for _ in $(seq 100); do grep -q "sm guid $(short "$guid_a"),.*SMINFO_MASTER" <<< "$(sminfo_at "$C")" && break; sleep 0.05; done
t0=$(now)
stop_sm a TERM
t1=""
for _ in $(seq 200); do
  grep -q 'state 3 SMINFO_MASTER' <<< "$(sminfo_at "$C" "$lid_b")" && { t1=$(now); break; }
  sleep 0.01
done
if [ -n "$t1" ] && grep -q 'stopping: handing the subnet over' "$work/a.log"; then
  log "SIGTERM of the master: it handed the subnet over; the standby answers as MASTER $(elapsed "$t0" "$t1") s after the signal"
else
  fail "no handover on SIGTERM"; grep 'HA\|I0118\|I0113' "$work/a.log" | tail -4
fi
grep -q 'entering NotActive: stopping' "$work/a.log" || fail "the stopping master did not go NotActive"
stop_sm b TERM
exit $failed
