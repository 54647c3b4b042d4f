#!/usr/bin/env bash
# rogue_sm.sh FABRICSM NETFILE: an OpenSM with another SM_Key and priority 15 on another host
# takes the ports of a subnet fabricsm is master of (it is rightly not believed, but it writes
# MasterSMLID, and LFTs). fabricsm must log it as a security event (E0810), put the ports back
# on its light sweeps while the rogue runs, and, once the rogue is killed, leave the fabric
# whole within one light sweep (1 s here): every sampled port's SMLid is fabricsm's, sminfo
# from a host names fabricsm, the LFTs are fabricsm's entry for entry (dump_fts), W0811 logged.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ha_init rogue-$$
name="rogue SM $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
F=${cas[0]}                        # fabricsm's CA
R=${cas[$((${#cas[@]} / 2))]}      # the rogue OpenSM's
C=${cas[$((${#cas[@]} - 1))]}      # a host that runs sminfo

ibsim_start "$NET" || exit 1
printf 'sm_key = 0x600d\nsm_priority = 10\nsweep_interval = 1\nrouting_engine = ftree\n' > "$work/f.conf"
start_fabricsm f "$F" --config "$work/f.conf"
wait_log f 'SUBNET UP' 60 || exit 1
ours=$(lid_of "$F")
guid=$(grep -m1 -o 'port GUID 0x[0-9a-f]*' "$work/f.log" | awk '{ print $3 }')

# Every sampled port (CAs and switch port 0) holds LID $1 as its SM LID.
points_at() {
  local lid port sm
  discover > /dev/null 2>&1 || return 1
  while read -r lid port; do
    sm=$(shim smpquery portinfo "$lid" "$port" 2>/dev/null | awk -F. '/^SMLid:/ { print $NF }')
    [ "$sm" = "$1" ] || return 1
  done < <($CHECK lids "$work/ibnet.txt" 8)
}
points_at "$ours" || fail "before the rogue: ports do not point at fabricsm (LID $ours)"
cp "$work/fts.txt" "$work/fts.before"

start_opensm r "$R" -p 15 -k 0xbad
wait_log r 'SUBNET UP\|Entering MASTER' 60 || fail "the rogue OpenSM never acted as master"
if wait_log f 'E0810' 30; then
  log "noticed: $(grep -m1 E0810 "$work/f.log" | sed 's/^fabricsm\[E0810\]: //')"
else
  fail "fabricsm did not notice the rogue master"
fi
sleep 3  # the rogue and the light sweeps fight over the ports for a while

stop_sm r KILL
t0=$(now)
i=0
until points_at "$ours"; do
  i=$((i + 1)); [ $i -gt 60 ] && break
  sleep 0.1
done
t1=$(now)
if points_at "$ours"; then
  log "rogue killed: every sampled port points at fabricsm again after $(elapsed "$t0" "$t1") s (a light sweep a second)"
else
  fail "ports still point elsewhere $(elapsed "$t0" "$t1") s after the rogue died"
fi
out=$(sminfo_at "$C")
grep -q "sm guid $(printf '0x%x' "$guid"),.*SMINFO_MASTER" <<< "$out" && log "sminfo from $C: $out" || fail "sminfo from $C: $out"
discover && $CHECK routes "$work/ibnet.txt" "$work/fts.txt" > "$work/routes.txt" &&
  log "LFT walk: $(tail -1 "$work/routes.txt")" || fail "routes after the rogue: $(tail -3 "$work/routes.txt")"
diff -q "$work/fts.before" "$work/fts.txt" > /dev/null && log "dump_fts: the LFTs are fabricsm's again, entry for entry" ||
  fail "LFTs differ from fabricsm's: $(diff "$work/fts.before" "$work/fts.txt" | grep -c '^>') lines"
wait_log f 'W0811' 10 || fail "no W0811 (rogue gone)"
"$FABRICSM" status --socket "$work/f.sock" | head -1 | grep -q 'Master, subnet up' || fail "status after the rogue"
exit $failed
