#!/usr/bin/env bash
# A living fabric on ibsim: fabricsm runs as a daemon on ft3-r16; ibsim's console (a fifo)
# unlinks a leaf uplink. Measured: from the Unlink to the end of fabricsm's reaction (traps,
# partial re-read, re-route, changed blocks written). Checked with infiniband-diags: no LFT entry
# on the leaf points into the dead link, every pair is delivered; then ReLink, and the tables
# come back exactly as they were (the balanced routes return).
# Usage: reroute.sh FABRICSM [NETFILE]
set -uo pipefail
FABRICSM=$(readlink -f "$1")
. "$(dirname "$0")/lib.sh"
ibsim_init reroute
net=$(readlink -f "${2:-$(dirname "$0")/../../../shared/topologies/ft3-r16.net}")
[ -f "$net" ] || { echo "SKIP: $net missing"; exit 77; }

# ibsim with its console on a fifo (no -n), so the test can unlink and relink cables.
sw=$(grep -c '^Switch' "$net"); ca=$(grep -c -E '^(Hca|Ca)' "$net")
ports=$(awk '/^(Switch|Hca|Ca)/{n+=$2+1} END{print n+16}' "$net")
export IBSIM_SOCKNAME="fsm_rr_$$_$RANDOM"
mkfifo "$work/console"
(cd "$work" && exec setsid ibsim -s -N $((sw + ca + 16)) -S $((sw + 16)) -P "$ports" -L 49152 "$net" \
   0<>"$work/console" > ibsim.log 2>&1) &
ibsim_pid=$!
i=0
until ss -xl 2>/dev/null | grep -q "@$IBSIM_SOCKNAME:ctl"; do
  i=$((i + 1)); [ $i -gt 1200 ] && { log "ibsim never came up"; exit 1; }
  sleep 0.05
done

(cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --db "$work/fabricsm.db" --control_socket "$work/sm.sock" \
   2> "$work/daemon.log") &
sm_pid=$!
wait_for() {  # wait_for PATTERN COUNT: until the daemon log has COUNT lines matching
  local i=0 n
  while n=$(grep -c -- "$1" "$work/daemon.log" 2>/dev/null); [ "${n:-0}" -lt "$2" ]; do
    i=$((i + 1))
    if [ $i -gt 3000 ] || ! kill -0 "$sm_pid" 2>/dev/null; then
      log "FAIL: waiting for '$1' x$2"; tail -5 "$work/daemon.log"; return 1
    fi
    sleep 0.005
  done
}
wait_for 'SUBNET UP' 1 || exit 1
sleep 1  # let the sweep the SM's own IsSM trap causes finish
discover || exit 1
cp "$work/fts.txt" "$work/fts-before.txt"
$CHECK routes "$work/ibnet.txt" "$work/fts.txt" | sed "s/^/[$name] /" || exit 1

# The first leaf and its first uplink (ft3-r16: CAs on ports 1-8, uplinks 9-16).
leaf=$(awk '/^Switch/ { gsub(/"/, "", $3); print $3; exit }' "$net")
port=$(awk -v l="\"$leaf\"" '$1 == "Switch" { on = ($3 == l) } on && /S2_/ { gsub(/[\[\]]/, " ", $1); print $1; exit }' "$net")
done_before=$(grep -c 'done (incremental)\|done (heavy)' "$work/daemon.log" || true)
t0=$(date +%s.%N)
echo "Unlink \"$leaf\"[$port]" > "$work/console"
wait_for 'done (incremental)\|done (heavy)' $((done_before + 1)) || exit 1
t1=$(date +%s.%N)
sleep 0.3  # both ends' traps may cause two reactions; let them finish
react=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
log "Unlink $leaf[$port]: fabricsm re-routed in ${react} s (OpenSM on this fabric: about 1.8 s)"
grep -E 'sweep [0-9]+ \(trap|programming:|done \(' "$work/daemon.log" | tail -6 | sed "s/^/[$name]   /"

bad=0
discover || exit 1
leaf_lid=$($CHECK lid-of "$work/ibnet.txt" "$leaf")
if [ -n "$leaf_lid" ]; then
  shim ibroute "$leaf_lid" > "$work/leaf-lft.txt" 2>&1
  if awk -v p="$port" '$1 ~ /^0x/ && $2 + 0 == p { found = 1 } END { exit !found }' "$work/leaf-lft.txt"; then
    log "FAIL: the leaf's LFT still points into the dead link (port $port)"; bad=1
  else
    log "ibroute: no entry of $leaf points into port $port OK"
  fi
fi
$CHECK routes "$work/ibnet.txt" "$work/fts.txt" | sed "s/^/[$name] /"
[ "${PIPESTATUS[0]}" -eq 0 ] || bad=1
check_tracert 6 || bad=1

done_before=$(grep -c 'done (incremental)\|done (heavy)' "$work/daemon.log" || true)
echo "Link \"$leaf\"[$port] $($CHECK peer "$net" "$leaf" "$port")" > "$work/console"
wait_for 'done (incremental)\|done (heavy)' $((done_before + 1)) || exit 1
sleep 0.5
discover || exit 1
if diff -q "$work/fts-before.txt" "$work/fts.txt" > /dev/null; then
  log "after the cable came back, every switch's LFT is as before the failure OK"
else
  log "FAIL: the tables differ from before the failure"; diff "$work/fts-before.txt" "$work/fts.txt" | head -5; bad=1
fi
sm_stop TERM || { log "FAIL: the daemon did not exit 0 on SIGTERM"; bad=1; }
exit $bad
