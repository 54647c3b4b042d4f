#!/usr/bin/env bash
# sa_load.sh FABRICSM SA_LOAD NETFILE SM_PROBE: a smoke test of bench/sa-load's client and of
# bench/ha-scale's per-MAD probe, so that they cannot rot: fabricsm as a daemon on a small
# fabric, each client for one second from the last CA of the file. sa_load must get answers,
# all with status 0 and the records asked for, and no timeouts; sm_probe the SMInfo of a MASTER
# and the PathRecord asked for, every round. No figure is judged (the benches print those).
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
SA_LOAD=$(realpath "$2")
NET=$3
SM_PROBE=$(realpath "$4")
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ibsim_init sa-load-$$
name="SA load $(basename "$NET")"
client=$(awk -F'"' '/^(Hca|Ca)[ \t]/ { c = $2 } END { print c }' "$NET")

ibsim_start "$NET" || exit 1
sm_daemon fabricsm || exit 1
ca_lids "$client" > "$work/lids"
out=$(SIM_HOST=$client shim timeout 30 "$SA_LOAD" --lids-file "$work/lids" --window 8 --seconds 1)
rc=$?
echo "$out" | sed "s/^/[$name]   /"
failed=0
[ $rc -eq 0 ] || { log "FAIL: sa_load exit status $rc"; failed=1; }
read -r ok errors timeouts < <(awk '/^sent / { print $6, $8, $10 }' <<< "$out")
[ "${ok:-0}" -gt 0 ] || { log "FAIL: no answer with status 0"; failed=1; }
[ "${errors:-1}" -eq 0 ] && [ "${timeouts:-1}" -eq 0 ] || { log "FAIL: errors ${errors:-?}, timeouts ${timeouts:-?}"; failed=1; }
read -r slid dlid < <(head -2 "$work/lids" | tr '\n' ' ')
out=$(SIM_HOST=$client shim timeout 30 "$SM_PROBE" --pr "$slid:$dlid" --sminfo-log "$work/smi.lat" \
        --pr-log "$work/pr.lat" --sminfo-failures "$work/smi.fail" --pr-failures "$work/pr.fail" --seconds 1)
rc=$?
echo "$out" | sed "s/^/[$name]   /"
[ $rc -eq 0 ] || { log "FAIL: sm_probe exit status $rc"; failed=1; }
for k in smi pr; do
  rounds=$(wc -l < "$work/$k.lat") good=$(awk '$3 == 0 && $4 == 1' "$work/$k.lat" | wc -l)
  [ "$rounds" -gt 10 ] && [ "$good" = "$rounds" ] ||
    { log "FAIL: sm_probe $k: $good of $rounds as asked: $(head -2 "$work/$k.fail" | tr '\n' ' ')"; failed=1; }
done
kill -0 "$sm_pid" 2> /dev/null || { log "FAIL: fabricsm died under the load"; failed=1; }
sm_stop TERM || { log "FAIL: fabricsm did not stop cleanly"; failed=1; }
[ $failed -eq 0 ] && log "sa_load: $ok PathRecord Gets answered in 1 s, no error, no timeout; sm_probe: $rounds rounds, each answered as asked OK"
exit $failed
