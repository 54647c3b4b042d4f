#!/usr/bin/env bash
# ha_figures.sh FABRICSM NETFILE...: the failover figures, fabricsm beside OpenSM, on ibsim.
# Skipped unless FABRICSM_FIGURES=1 (OpenSM's defaults alone take a minute per run). For
# each fabric, RUNS (default 3) times: two SMs of a kind at different CAs (priorities 10 and
# 5), kill -9 of the master, and the time until the standby answers SMInfo as MASTER (sminfo
# from a third CA, every 20 ms). fabricsm with its defaults; OpenSM with its defaults
# (10 s x 4) and tuned to 1000 ms x 3. Prints figures, fails only when a takeover never came.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ha_lib.sh"

[ "${FABRICSM_FIGURES:-}" = 1 ] || { echo "SKIP: set FABRICSM_FIGURES=1 to measure"; exit 77; }
FABRICSM=$(realpath "$1")
shift
RUNS=${RUNS:-3}
ha_init ha-figures-$$
failed=0

# failover KIND NET [SM ARGS...]: one run; prints "seconds blocks" (blocks: fabricsm only).
failover() {
  local kind=$1 net=$2 a b c lid_b t0 t1="" i; shift 2
  mapfile -t cas < <(ca_names "$net")
  a=${cas[0]} b=${cas[$((${#cas[@]} / 2))]} c=${cas[$((${#cas[@]} - 1))]}
  ibsim_start "$net" || return 1
  if [ "$kind" = fabricsm ]; then
    start_fabricsm m "$a" --priority 10 "$@"; wait_log m 'SUBNET UP' 120 || return 1
    start_fabricsm s "$b" --priority 5 "$@"; wait_log s 'entering Standby' 60 || return 1
  else
    start_opensm m "$a" -p 10 "$@"; wait_log m 'SUBNET UP' 120 || return 1
    start_opensm s "$b" -p 5 "$@"; wait_log s 'Entering STANDBY' 60 || return 1
  fi
  sleep 2
  lid_b=$(lid_of "$b")
  t0=$(now)
  stop_sm m KILL
  for i in $(seq 6000); do
    grep -q 'state 3 SMINFO_MASTER' <<< "$(sminfo_at "$c" "$lid_b")" && { t1=$(now); break; }
    sleep 0.02
  done
  local blocks=-
  if [ "$kind" = fabricsm ]; then
    wait_log s 'SUBNET UP' 60 > /dev/null
    blocks=$(grep 'I0503' "$work/s.log" | tail -1 | sed -E 's/.*programming: ([0-9]+) LFT blocks written.*/\1/')
  fi
  stop_sm s KILL
  ibsim_stop
  [ -n "$t1" ] || return 1
  echo "$(elapsed "$t0" "$t1") $blocks"
}

summary() {  # summary LABEL TIMES...: min / median / max
  local label=$1; shift
  printf '%s\n' "$@" | sort -n | awk -v l="$label" '{ v[NR] = $1 } END {
    printf "%-44s min %6.2f s  median %6.2f s  max %6.2f s  (%d runs)\n", l, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
}

tuned=$work/opensm-tuned.conf
opensm -c "$tuned" > /dev/null 2>&1
sed -i 's/^sminfo_polling_timeout .*/sminfo_polling_timeout 1000/; s/^polling_retry_number .*/polling_retry_number 3/' "$tuned"

for net in "$@"; do
  [ -f "$net" ] || { echo "note: $net not found, skipped"; continue; }
  name="figures $(basename "$net")"
  for kind in fabricsm opensm opensm-tuned; do
    times=() blocks=()
    for _ in $(seq "$RUNS"); do
      case $kind in
        fabricsm) r=$(failover fabricsm "$net") ;;
        opensm) r=$(failover opensm "$net") ;;
        opensm-tuned) r=$(failover opensm "$net" -F "$tuned") ;;
      esac || { log "FAIL: $kind: no takeover"; failed=$((failed + 1)); continue; }
      times+=("${r% *}") blocks+=("${r#* }")
    done
    [ ${#times[@]} -gt 0 ] || continue
    log "$(summary "$kind: kill -9 of the master -> standby MASTER" "${times[@]}")"
    [ "$kind" = fabricsm ] && log "fabricsm: LFT blocks written by the takeovers: ${blocks[*]}"
  done
done
exit $failed
