#!/usr/bin/env bash
# pkeys.sh FABRICSM NETFILE: partitions on ibsim, fabricsm against OpenSM with the same
# partitions file on the same fabric (a fresh ibsim each). For a few CA ports, the P_Keys the
# port holds and those of the switch port facing it (smpquery pkeys, by directed route, so LIDs
# do not matter), and that switch port's enforcement bits, must be the same under both SMs
# (compared as sets: the IBA leaves the order of a table to the SM). Then, on fabricsm: a bad
# partitions file on SIGHUP is refused with its line and changes nothing, a good one is applied
# by a sweep that rewrites only the ports whose tables change; a bad file at start: exit 2.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
ibsim_init pkeys-$$
name="P_Keys $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
n=${#cas[@]}
probe=("${cas[1]}" "${cas[2]}" "${cas[3]}" "${cas[$((n - 2))]}")
guid_of() { shim_at "$1" smpquery -D nodeinfo 0 2>/dev/null | awk -F. '/^PortGuid:/ { print $NF }'; }
# The switch port a CA's port 1 is cabled to.
peer_port() { shim_at "$1" smpquery -D nodeinfo 0,1 2>/dev/null | awk -F. '/^LocalPort:/ { print $NF }'; }
# pkeys HOST [DRPATH PORT]: the non-zero P_Keys of a port, sorted, on one line.
pkeys() {
  shim_at "$1" smpquery -D pkeys "${2:-0}" ${3:+"$3"} 2>/dev/null | grep -oE '0x[0-9a-f]{4}' | grep -v '^0x0000$' |
    sort | tr '\n' ' '
}
enforce() {
  shim_at "$1" smpquery -D portinfo 0,1 "$2" 2>/dev/null | awk -F. '/^PartEnforce(Inb|Outb):/ { sub(/:$/, "", $1); printf "%s=%s ", $1, $NF }'
}

ibsim_start "$NET" || exit 1
g1=$(guid_of "${probe[0]}"); g2=$(guid_of "${probe[1]}"); g3=$(guid_of "${probe[2]}")
ibsim_stop
[ -n "$g1" ] && [ -n "$g2" ] && [ -n "$g3" ] || { fail "no port GUIDs read"; exit 1; }
cat > "$work/partitions.conf" <<CONF
# the test's partitions
Default=0x7fff, ipoib : ALL=full ;
storage=0x000a, ipoib :
    $g1=full,
    $g2 ;            # limited
compute=0x000b, defmember=full : ALL_CAS ;
CONF

# state SM: every probed CA's table, its switch port's table and enforcement bits.
state() {
  local out=$work/$1.pkeys c p
  : > "$out"
  for c in "${probe[@]}"; do
    p=$(peer_port "$c")
    { echo "$c: $(pkeys "$c")"; echo "$c switch port: $(pkeys "$c" 0,1 "$p") $(enforce "$c" "$p")"; } >> "$out"
  done
}

# wait_log PATTERN COUNT: until the daemon log has COUNT lines matching (10 s at most).
wait_log() {
  local i=0
  until [ "$(grep -c -E "$1" "$work/daemon.log")" -ge "$2" ] || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
}

for sm in opensm fabricsm; do
  ibsim_start "$NET" || exit 1
  partitions_sm $sm
  sleep 0.5  # OpenSM logs SUBNET UP before its last P_Key Sets are answered
  state $sm
  if [ $sm = fabricsm ]; then
    # A bad file on SIGHUP: refused with the line, nothing written.
    cp "$work/partitions.conf" "$work/good.conf"
    printf 'Default=0x7fff : ALL=full ;\nx=0x0c : 0xnot-a-guid ;\n' > "$work/partitions.conf"
    kill -HUP $sm_pid
    wait_log 'SIGHUP: configuration refused' 1
    grep -q "SIGHUP: configuration refused.*partitions.conf:2: partition 'x': bad port GUID" "$work/daemon.log" ||
      fail "bad partitions file on SIGHUP: $(grep -E 'SIGHUP' "$work/daemon.log" | tail -1)"
    cp "$work/fabricsm.pkeys" "$work/before-reload"
    state fabricsm
    cmp -s "$work/before-reload" "$work/fabricsm.pkeys" || fail "a refused reload changed P_Key tables"
    # A good one: only the third CA's port and its switch port change.
    sed "s/^compute=.*/&\nextra=0x000c : $g3=full ;/" "$work/good.conf" > "$work/partitions.conf"
    sweeps=$(grep -c 'P_Keys: ' "$work/daemon.log")
    kill -HUP $sm_pid
    wait_log 'P_Keys: ' $((sweeps + 1))
    line=$(grep 'P_Keys: ' "$work/daemon.log" | tail -1)
    grep -q '2 block(s) written on 2 port(s), 0 read back' <<< "$line" || fail "reload with a new partition: $line"
    state fabricsm
    c3=${probe[2]}
    grep -q "^$c3: 0x800b 0x800c 0xffff $" "$work/fabricsm.pkeys" ||
      fail "after reload, $c3: $(grep "^$c3:" "$work/fabricsm.pkeys")"
    diff <(grep -v "^$c3" "$work/before-reload") <(grep -v "^$c3" "$work/fabricsm.pkeys") > /dev/null ||
      fail "after reload, ports other than $c3 changed"
    grep -m1 -o 'does not keep the partition enforcement bits.*' "$work/daemon.log" | sed "s/^/[$name] ibsim: /"
    log "SIGHUP: bad file refused ($(grep -o 'partitions.conf:2: [^:]*' "$work/daemon.log" | head -1)), new partition: $line"
    cp "$work/before-reload" "$work/fabricsm.pkeys"
  fi
  sm_stop TERM
  ibsim_stop
done

if diff -u "$work/opensm.pkeys" "$work/fabricsm.pkeys" > "$work/diff"; then
  log "smpquery pkeys: ${#probe[@]} CA ports and their switch ports hold the same P_Keys under fabricsm and OpenSM"
  sed "s/^/[$name]   /" "$work/fabricsm.pkeys"
else
  fail "P_Keys differ from OpenSM's:"; cat "$work/diff"
fi

# A bad file at start: exit 2, with the file and line.
printf 'Default=0x7fff : ALL=full ;\nx=0 : ALL ;\n' > "$work/bad.conf"
out=$("$FABRICSM" run --once --partition_config_file "$work/bad.conf" 2>&1); rc=$?
[ $rc -eq 2 ] && grep -q "bad.conf:2: partition 'x': P_Key 0 out of range" <<< "$out" ||
  fail "bad partitions file at start: exit $rc: $out"
exit $failed
