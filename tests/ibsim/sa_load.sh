#!/usr/bin/env bash
# sa_load.sh FABRICSM SA_LOAD NETFILE: a smoke test of bench/sa-load's client, so that it cannot
# rot: fabricsm as a daemon on a small fabric, the client for one second from the last CA of
# the file. It must get answers, all with status 0 and the records asked for, and no timeouts.
# No figure is judged (bench/sa-load.sh prints those).
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
SA_LOAD=$(realpath "$2")
NET=$3
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
kill -0 "$sm_pid" 2> /dev/null || { log "FAIL: fabricsm died under the load"; failed=1; }
sm_stop TERM || { log "FAIL: fabricsm did not stop cleanly"; failed=1; }
[ $failed -eq 0 ] && log "sa_load: $ok PathRecord Gets answered in 1 s, no error, no timeout OK"
exit $failed
