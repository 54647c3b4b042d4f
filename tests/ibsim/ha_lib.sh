# tests/ibsim/ha_lib.sh: sourced after lib.sh by the HA tests. Several SM daemons (fabricsm
# and OpenSM) on one ibsim, each at its own CA (SIM_HOST), each stopped by PID on exit.
#
#   ha_init NAME             ibsim_init, and a cleanup that also stops every daemon started here
#   start_fabricsm NAME HOST [ARGS...]   `fabricsm run` in the background, log in $work/NAME.log
#   start_opensm NAME HOST [ARGS...]     OpenSM in the background, log in $work/NAME.log
#   stop_sm NAME [SIGNAL]    stops one daemon (default TERM); KILL is kill -9
#   wait_log NAME PATTERN [SECONDS]      until the daemon's log matches
#   sminfo_at HOST [LID]     `sminfo` run from CA HOST (to LID, else to HOST's SM LID)
#   (lid_of, port_lids, ca_names and fail are in lib.sh)
declare -A ha_pids=()

ha_init() {
  ibsim_init "$1"
  trap ha_cleanup EXIT
}

ha_cleanup() {
  local rc=$? n
  for n in "${!ha_pids[@]}"; do
    kill -9 "${ha_pids[$n]}" 2>/dev/null
    wait "${ha_pids[$n]}" 2>/dev/null
  done
  ha_pids=()
  (exit $rc)
  ibsim_cleanup
}


start_fabricsm() {
  local n=$1 host=$2; shift 2
  (cd "$work/cwd" && SIM_HOST=$host LD_PRELOAD=$SHIM exec "$FABRICSM" run --db "$work/$n.db" --control_socket "$work/$n.sock" \
     --log-level info "$@" 2> "$work/$n.log") &
  ha_pids[$n]=$!
}

start_opensm() {
  local n=$1 host=$2; shift 2
  # Before OpenSM starts: made beside it, it raced OpenSM's own stat-then-mkdir, which then
  # failed with EEXIST ("Failed to create the db directory") and never came up.
  mkdir -p "$work/$n.tmp"
  (cd "$work/cwd" && SIM_HOST=$host LD_PRELOAD=$SHIM OSM_TMP_DIR=$work/$n.tmp OSM_CACHE_DIR=$work/$n.tmp \
     exec opensm -d 2 -f "$work/$n.log" "$@" > /dev/null 2>&1) &
  ha_pids[$n]=$!
}

stop_sm() {
  local n=$1 p=${ha_pids[$1]:-}
  [ -n "$p" ] || return 0
  kill -"${2:-TERM}" "$p" 2>/dev/null
  wait "$p" 2>/dev/null
  unset "ha_pids[$n]"
}

wait_log() {
  local n=$1 pattern=$2 limit=${3:-30} i=0
  until grep -q -e "$pattern" "$work/$n.log" 2>/dev/null; do
    i=$((i + 1))
    [ $i -gt $((limit * 20)) ] && { log "FAIL: $n: no '$pattern' after $limit s"; tail -5 "$work/$n.log" | sed 's/^/    /'; return 1; }
    sleep 0.05
  done
}

sminfo_at() { local host=$1; shift; SIM_HOST=$host shim sminfo "$@" 2>&1; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
