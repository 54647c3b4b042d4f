#!/usr/bin/env bash
# lft_verify.sh FABRICSM LFT_POKE NETFILE: LFT blocks changed behind the SM's back (a host that
# is not an SM Sets a whole block to 255, black-holing 64 LIDs on a leaf) are put back, each
# time with a security event (E0527) naming the switch and block:
# - by the light sweeps' rolling share (lft_verify_pass 8, a light sweep a second): the figures
#   are the time to repair and the SMPs a light sweep sends;
# - by `fabricsm status --resweep` (a heavy sweep that reads every block back);
# - by the first sweep after a restart on the same database.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
POKE=$(realpath "$2")
NET=$3
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ibsim_init lft-verify-$$
name="LFT verify $(basename "$NET")"
ibsim_start "$NET" || exit 1
args=(--log-level debug --sweep_interval 1)
SM_UP_WAIT=60 sm_daemon fabricsm "${args[@]}" --lft_verify_pass 8 || exit 1
discover || exit 1
read -r path lid _ _ _ < <($CHECK corrupt "$work/ibnet.txt" "$work/fts.txt")
[ -n "${lid:-}" ] || { fail "found no LFT entry to break"; exit 1; }
# The port LID leaves the switch at PATH by, as the switch holds it now (none when 255).
port_of() { shim ibroute -D "$path" "$lid" "$lid" 2>/dev/null | awk -v l="$(printf '0x%04x' "$lid")" '$1 == l { print $2 + 0 }'; }
good=$(port_of)
[ -n "$good" ] && [ "$good" != 255 ] || { fail "ibroute -D $path $lid: no port ($good)"; exit 1; }

# break: the whole block of LID on that switch to 255; then wait (up to SECONDS) for it to come back.
break_block() { shim "$POKE" "$path" "$lid" 255 block > /dev/null || fail "lft_poke failed"; [ "$(port_of)" != "$good" ] || fail "the poke did not take"; }
repaired_within() {
  local until=$(($(date +%s) + $1))
  while [ "$(date +%s)" -le $until ]; do
    [ "$(port_of)" = "$good" ] && return 0
    sleep 0.2
  done
  return 1
}
block=$((lid / 64))

# 1. Light sweeps: a full pass is 8 of them, so within about 9 s whichever share holds the block.
before=$(wc -l < "$work/daemon.log")
break_block
t0=$(date +%s.%N)
if repaired_within 20; then
  t1=$(date +%s.%N)
  log "light sweeps: LID $lid at $path back to port $good in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}') s (a pass of 8 light sweeps, 1 s apart)"
else
  fail "light sweeps did not put LID $lid at $path back within 20 s (port $(port_of))"
fi
sleep 0.5
since() { tail -n +$((before + 1)) "$work/daemon.log"; }
line=$(since | grep E0527 | head -1)
grep -q "a light sweep found the LFT of switch 0x[0-9a-f]* (.*) changed .* in 1 block(s): $block;" <<< "$line" &&
  log "security event: ${line#*]: }" || fail "no E0527 naming block $block after the light sweeps: $line"
grep -q 'heavy sweep requested' <<< "$(since)" && fail "the light sweeps' repair asked for a heavy sweep"
# SMPs per light sweep: SwitchInfo of every switch, and the share of LFT blocks.
switches=$(grep 'D0109' "$work/daemon.log" | tail -1 | sed -E 's/.*light sweep: ([0-9]+) switches.*/\1/')
reads=$(grep 'D0528' "$work/daemon.log" | tail -1 | sed -E 's/.*: ([0-9]+) LFT block.*/\1/')
log "a light sweep: $switches SwitchInfo + $reads LFT block reads = $((switches + reads)) SMPs"

# 2. A restart on the same database reads every block back in its first sweep (light-sweep
# share off from here on, so only the heavy sweeps can put it back).
sm_stop TERM || fail "the daemon did not stop cleanly"
break_block
SM_UP_WAIT=60 sm_daemon fabricsm "${args[@]}" --lft_verify_pass 0 || exit 1
[ "$(port_of)" = "$good" ] && grep -q 'E0527.*heavy sweep' "$work/daemon.log" &&
  log "restart: put back at SUBNET UP, $(grep 'I0503' "$work/daemon.log" | head -1 | sed -E 's/.*programming: ([0-9]+ LFT blocks written \([0-9]+ read back\)).*/\1/')" ||
  fail "restart did not put LID $lid back (port $(port_of)): $(grep E0527 "$work/daemon.log")"

# 3. status --resweep: one heavy sweep reads every block back.
before=$(wc -l < "$work/daemon.log")
break_block
"$FABRICSM" status --socket "$work/sm.sock" --resweep > /dev/null || fail "status --resweep failed"
repaired_within 20 || fail "status --resweep did not put LID $lid back (port $(port_of))"
sleep 0.5
grep -q 'E0527.*heavy sweep (asked for on the control socket)' <<< "$(since)" &&
  log "status --resweep: put back, $(since | grep 'I0503' | tail -1 | sed -E 's/.*programming: ([0-9]+ LFT blocks written \([0-9]+ read back\)).*/\1/')" ||
  fail "no E0527 from the heavy sweep: $(since | grep -E 'E0527|I0503')"
discover && $CHECK routes "$work/ibnet.txt" "$work/fts.txt" > /dev/null || fail "routes at the end"
exit $failed
