#!/usr/bin/env bash
# qos.sh FABRICSM NETFILE: QoS tables on ibsim, fabricsm against OpenSM with the same qos_*
# options on the same fabric (a fresh ibsim each; qos_max_vls left out: OpenSM reads it and
# does not use it, fabricsm caps OperationalVLs with it, tests/sm/qos): for a few CA ports and the switch ports
# facing them, the SL-to-VL tables and VL arbitration tables the ports hold (smpquery sl2vl and
# vlarb, by directed route, so LIDs do not matter) must be the same under both SMs. Then, on
# fabricsm: a restart writes no table (it reads them and finds them right), and a bad table
# text at start is refused with the option (exit 2).
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ibsim_init qos-$$
name="QoS $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
n=${#cas[@]}
probe=("${cas[1]}" "${cas[$((n / 2))]}" "${cas[$((n - 2))]}")
peer_port() { shim_at "$1" smpquery -D nodeinfo 0,1 2>/dev/null | awk -F. '/^LocalPort:/ { print $NF }'; }

# The options, in OpenSM's form (both SMs read it).
cat > "$work/qos.conf" <<'CONF'
qos TRUE
qos_high_limit 5
qos_vlarb_high 0:8,1:4
qos_vlarb_low 1:8,2:16,3:32,0:2
qos_sl2vl 0,1,2,3,3,2,1,0,0,1,2,3,3,2,1,15
qos_swe_high_limit 9
qos_swe_sl2vl 3,2,1,0,0,1,2,3,3,2,1,0,0,1,2,15
CONF

# state SM: every probed CA's tables and those of the switch port facing it.
state() {
  local out=$work/$1.qos c p
  : > "$out"
  for c in "${probe[@]}"; do
    p=$(peer_port "$c")
    {
      echo "== $c"
      shim_at "$c" smpquery -D sl2vl 0 2>&1 | grep -vi '^#'
      shim_at "$c" smpquery -D vlarb 0 2>&1 | grep -vi '^#'
      echo "== $c switch port $p"
      shim_at "$c" smpquery -D sl2vl 0,1 "$p" 2>&1 | grep -vi '^#'
      shim_at "$c" smpquery -D vlarb 0,1 "$p" 2>&1 | grep -vi '^#'
      shim_at "$c" smpquery -D portinfo 0,1 "$p" 2>&1 | grep -E '^(VLHighLimit|OperVLs)'
    } >> "$out"
  done
}

qos_sm() {
  rm -f "$work/daemon.log"
  case $1 in
    fabricsm) (cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --config "$work/qos.conf" --db "$work/fabricsm.db" \
                 --control_socket "$work/sm.sock" --routing minhop --log-level debug 2> "$work/daemon.log") & ;;
    opensm) (cd "$work/cwd" && LD_PRELOAD=$SHIM OSM_TMP_DIR=$work OSM_CACHE_DIR=$work \
               exec opensm -F "$work/qos.conf" -d 2 -R minhop -f "$work/daemon.log" > /dev/null 2>&1) & ;;
  esac
  sm_pid=$!
  local i=0
  until grep -q 'SUBNET UP' "$work/daemon.log" 2>/dev/null || [ $i -gt 300 ]; do i=$((i + 1)); sleep 0.1; done
  grep -q 'SUBNET UP' "$work/daemon.log" || { fail "$1: no SUBNET UP"; tail -5 "$work/daemon.log"; exit 1; }
  sleep 0.5  # OpenSM logs SUBNET UP before its last Sets are answered
}

for sm in opensm fabricsm; do
  ibsim_start "$NET" || exit 1
  qos_sm $sm
  state $sm
  if [ $sm = fabricsm ]; then
    line=$(grep 'QoS: ' "$work/daemon.log" | tail -1)
    grep -q ' 0 failures' <<< "$line" || fail "fabricsm QoS: $line"
    log "first sweep: ${line#*QoS: }"
    # A restart reads every table and writes none.
    sm_stop TERM
    qos_sm fabricsm
    line=$(grep 'QoS: ' "$work/daemon.log" | tail -1)
    grep -q '0 SLtoVL table(s) and 0 VLArbitration block(s) written' <<< "$line" || fail "restart rewrote tables: $line"
    log "restart: ${line#*QoS: }"
  fi
  sm_stop TERM
  ibsim_stop
done

if diff -u "$work/opensm.qos" "$work/fabricsm.qos" > "$work/diff"; then
  log "smpquery sl2vl/vlarb: ${#probe[@]} CA ports and their switch ports hold the same tables under fabricsm and OpenSM"
  grep -c . "$work/fabricsm.qos" | sed "s/^/[$name]   lines compared: /"
else
  fail "QoS tables differ from OpenSM's:"; cat "$work/diff"
fi
grep -q 'SL2VL\|VL' "$work/fabricsm.qos" || fail "smpquery printed no tables: $(head -5 "$work/fabricsm.qos")"

# A bad table text at start: exit 2, naming the option.
out=$("$FABRICSM" run --once --qos TRUE --qos_sl2vl 0,1,2 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "qos_sl2vl.*3 VLs; one per SL is 16" <<< "$out" || fail "bad qos_sl2vl at start: exit $rc: $out"
exit $failed
