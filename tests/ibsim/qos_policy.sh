#!/usr/bin/env bash
# qos_policy.sh FABRICSM NETFILE: a QoS policy file (OpenSM's qos-policy.conf syntax) on ibsim,
# fabricsm against OpenSM with the same file on the same fabric (a fresh ibsim each): the SL of
# `saquery PR` between a few CA pairs, with and without a Service ID, must be the same under
# both SMs, and the policy's (not all 0). Then, on fabricsm: a bad policy on SIGHUP is refused
# with its file and line and the SLs stay; a good one changes them; a bad one at start: exit 2.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
command -v saquery > /dev/null || { echo "SKIP: saquery missing"; exit 77; }
ibsim_init qos-policy-$$
name="QoS policy $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
n=${#cas[@]}
client=${cas[$((n - 1))]}
target=${cas[2]}
guid_of() { shim_at "$1" smpquery -D nodeinfo 0 2>/dev/null | awk -F. '/^PortGuid:/ { print $NF }'; }
sa() { SIM_HOST=$client shim timeout 10 saquery "$@" 2>&1; }

# policy SL_GOLD: storage traffic (SDP's Service IDs) to $target at SL_GOLD, Service ID 0x6234
# anywhere at SL 6 (qos-ulps), the rest at SL 0.
policy() {
  cat <<POLICY
port-groups
    port-group
        name: Storage
        port-guid: $target_guid
    end-port-group
end-port-groups
qos-levels
    qos-level
        name: DEFAULT
        sl: 0
    end-qos-level
    qos-level
        name: gold
        sl: $1
    end-qos-level
end-qos-levels
qos-match-rules
    qos-match-rule
        destination: Storage
        service-id: 0x10000-0x1ffff
        qos-level-name: gold
    end-qos-match-rule
end-qos-match-rules
qos-ulps
    default : 0
    any, service-id 0x6234 : 6
end-qos-ulps
POLICY
}

# sls SM: the SL of each question, into $work/SM.sls
sls() {
  local out=$work/$1.sls a b sid la lb sl
  : > "$out"
  for q in "${cas[1]} $target 0x10001" "${cas[1]} ${cas[3]} 0x10001" "${cas[1]} ${cas[3]} 0x6234" \
           "${cas[4]} $target -" "${cas[3]} $target 0x1ffff"; do
    read -r a b sid <<< "$q"
    la=$(lid_of "$a"); lb=$(lid_of "$b")
    if [ "$sid" = - ]; then sl=$(sa PR --slid "$la" --dlid "$lb")
    else sl=$(sa PR --slid "$la" --dlid "$lb" --service_id "$sid"); fi
    echo "$a -> $b sid $sid: sl $(awk -F. '/^[[:space:]]*sl\./ { print $NF; exit }' <<< "$sl")" >> "$out"
  done
}

policy_sm() {
  rm -f "$work/daemon.log"
  case $1 in
    fabricsm) (cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --config "$work/sm.conf" --db "$work/fabricsm.db" \
                 --control_socket "$work/sm.sock" --routing minhop --log-level debug 2> "$work/daemon.log") & ;;
    opensm) (cd "$work/cwd" && LD_PRELOAD=$SHIM OSM_TMP_DIR=$work OSM_CACHE_DIR=$work \
               exec opensm -F "$work/sm.conf" -d 2 -R minhop -f "$work/daemon.log" > /dev/null 2>&1) & ;;
  esac
  sm_pid=$!
  local i=0
  until grep -q 'SUBNET UP' "$work/daemon.log" 2>/dev/null || [ $i -gt 300 ]; do i=$((i + 1)); sleep 0.1; done
  grep -q 'SUBNET UP' "$work/daemon.log" || { fail "$1: no SUBNET UP"; tail -5 "$work/daemon.log"; exit 1; }
  sleep 0.5
}
wait_log() {
  local i=0
  until [ "$(grep -c -E "$1" "$work/daemon.log")" -ge "$2" ] || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
}

# Both SMs read the same options file (OpenSM's form).
printf 'qos TRUE\nqos_policy_file %s\n' "$work/qos-policy.conf" > "$work/sm.conf"
for sm in opensm fabricsm; do
  ibsim_start "$NET" || exit 1
  target_guid=$(guid_of "$target")
  [ -n "$target_guid" ] || { fail "no GUID for $target"; exit 1; }
  policy 3 > "$work/qos-policy.conf"
  policy_sm $sm
  sls $sm
  if [ $sm = fabricsm ]; then
    grep -q 'QoS policy: 1 port groups' "$work/daemon.log" || fail "no QoS policy logged: $(grep -i 'qos' "$work/daemon.log" | head -3)"
    # A bad file on SIGHUP: refused with its line, the SLs stay.
    policy 3 | sed 's/^        sl: 3$/        sl: 16/' > "$work/qos-policy.conf"
    kill -HUP $sm_pid
    wait_log 'SIGHUP: configuration refused' 1
    grep -q "SIGHUP: configuration refused.*qos_policy_file: $work/qos-policy.conf:[0-9]*: sl" "$work/daemon.log" ||
      fail "bad policy on SIGHUP: $(grep -E 'SIGHUP' "$work/daemon.log" | tail -1)"
    cp "$work/fabricsm.sls" "$work/before-reload"
    sls fabricsm
    cmp -s "$work/before-reload" "$work/fabricsm.sls" || fail "a refused policy changed SLs: $(cat "$work/fabricsm.sls")"
    # A good one: the gold SL changes at once.
    policy 5 > "$work/qos-policy.conf"
    kill -HUP $sm_pid
    wait_log 'SIGHUP: configuration .* re-read' 1
    sls fabricsm
    sed 's/sl 0x3$/sl 0x5/' "$work/before-reload" | diff - "$work/fabricsm.sls" > /dev/null ||
      fail "after a reload with SL 5: $(cat "$work/fabricsm.sls")"
    log "SIGHUP: bad policy refused ($(grep -o 'qos-policy.conf:[0-9]*: [^:]*' "$work/daemon.log" | head -1)), gold SL 3 -> 5"
    cp "$work/before-reload" "$work/fabricsm.sls"
  fi
  sm_stop TERM
  ibsim_stop
done

if diff -u "$work/opensm.sls" "$work/fabricsm.sls" > "$work/diff"; then
  log "saquery PR: the same SLs under fabricsm and OpenSM with the same policy"
  sed "s/^/[$name]   /" "$work/fabricsm.sls"
else
  fail "SLs differ from OpenSM's:"; cat "$work/diff"
fi
grep -q 'sl 0x3' "$work/fabricsm.sls" && grep -q 'sl 0x6' "$work/fabricsm.sls" ||
  fail "the policy's SLs are not answered: $(cat "$work/fabricsm.sls")"

# A bad file at start: exit 2, with the file and line.
printf 'qos-levels\n  qos-level\n    name: DEFAULT\n    colour: red\n' > "$work/bad.conf"
out=$("$FABRICSM" run --once --qos TRUE --qos_policy_file "$work/bad.conf" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "bad.conf:4: qos-level: unknown keyword 'colour'" <<< "$out" ||
  fail "bad policy file at start: exit $rc: $out"
exit $failed
