#!/usr/bin/env bash
# partitions_opensm.sh FABRICSM NETFILE: a partitions.conf in the syntax OpenSM reads beyond the
# basics (no Default statement, a P_Key over two statements, indx0, mgid= groups with their
# flags, a decimal GUID, ALL_ROUTERS, NONE) under OpenSM and under fabricsm, each on a fresh
# ibsim of the same fabric. The P_Keys of a few CA ports (smpquery pkeys, by directed route),
# index 0 exactly and the rest as a set, and the groups `saquery --mgid M MCMR` finds (one query
# per MGID: ibsim has no RMPP, and saquery -g ignores --mgid) must be the same; the default partition's broadcast group must be
# absent under both (OpenSM makes Default without one when the file does not name it).
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
NET=$2
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
command -v saquery > /dev/null || { echo "SKIP: saquery missing"; exit 77; }
ibsim_init parts-$$
name="partitions.conf as OpenSM $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
n=${#cas[@]}
probe=("${cas[1]}" "${cas[2]}" "${cas[3]}" "${cas[$((n - 2))]}")
guid_of() { shim_at "$1" smpquery -D nodeinfo 0 2>/dev/null | awk -F. '/^PortGuid:/ { print $NF }'; }
# index0 HOST: the P_Key at index 0; pkeys HOST: the others (non-zero), sorted, on one line.
table() { shim_at "$1" smpquery -D pkeys 0 2>/dev/null | grep -oE '0x[0-9a-f]{4}'; }
index0() { table "$1" | head -1; }
pkeys() { table "$1" | tail -n +2 | grep -v '^0x0000$' | sort | tr '\n' ' '; }

ibsim_start "$NET" || exit 1
g1=$(guid_of "${probe[0]}"); g2=$(guid_of "${probe[1]}"); g3=$(guid_of "${probe[2]}")
ibsim_stop
[ -n "$g1" ] && [ -n "$g2" ] && [ -n "$g3" ] || { fail "no port GUIDs read"; exit 1; }
cat > "$work/partitions.conf" <<CONF
# no Default statement: every port a limited member of 0x7fff, the SM's port full, no group
storage=0x000a, ipoib, indx0, sl=0 :
    mgid=ff12:401b::0707, sl=1                 # an IPv4 group: the P_Key filled in
    mgid=ff12::1, Q_Key=0xDEADBEEF, mtu=2      # not IP: its own MTU
    mgid=ff15::2, scope=5, TClass=3, FlowLabel=0x77
    $g1=full
    $((g2)) ;                                  # decimal, limited
storage2=0x0a : $g3=full ;                     # the same P_Key: one partition
compute=0x000b, defmember=full : ALL_CAS, ALL_ROUTERS, NONE ;
mgmt=0x000c, indx0 : $g3=full, SELF=full ;
both=0x000d : $g2=both ;                       # the full entry only (allow_both_pkeys FALSE)
CONF
mgids=(ff12:401b:800a::ffff:ffff ff12:401b:800a::707 ff12::1 ff15::2 ff12:401b:ffff::ffff:ffff)

state() {  # state SM: each probe's index 0 and other P_Keys, then each MGID's group
  local out=$work/$1.state c m rec raw
  : > "$out"
  for c in "${probe[@]}"; do echo "$c: [0] $(index0 "$c") others $(pkeys "$c")" >> "$out"; done
  for m in "${mgids[@]}"; do
    # The first record with a non-zero MGID, and how many records came (exactly the real
    # ones: a one-MAD answer goes at its real length).
    raw=$(SIM_HOST=${probe[0]} shim timeout 10 saquery --mgid "$m" MCMR 2>&1)
    rec=$(awk '/MCMember Record dump/ { n++; keep = 0 } /MGID\.+/ && $0 !~ /\.::$/ && !done { keep = 1; done = 1 } keep' <<< "$raw" |
      grep -E '^\s*(MGID|mlid|mtu|pkey|qkey|rate|SL|Scope|TClass|FlowLabel|HopLimit|JoinState)\.' |
      sed 's/^[[:space:]]*//; s/\.\.*/=/' | tr '\n' ' ')
    echo "$m: ${rec:-none} ($(grep -c 'MCMember Record dump' <<< "$raw") records)" >> "$out"
  done
}

for sm in opensm fabricsm; do
  ibsim_start "$NET" || exit 1
  partitions_sm $sm
  sleep 0.5  # OpenSM logs SUBNET UP before its last P_Key Sets are answered
  state $sm
  sm_stop TERM
  ibsim_stop
done

if diff -u "$work/opensm.state" "$work/fabricsm.state" > "$work/diff"; then
  log "smpquery pkeys (index 0 and the rest) of ${#probe[@]} CA ports and saquery MCMR of ${#mgids[@]} MGIDs: the same under fabricsm and OpenSM"
  sed "s/^/[$name]   /" "$work/fabricsm.state"
else
  fail "fabricsm differs from OpenSM:"; cat "$work/diff"
fi
# The file's groups must be there (a comparison of two empty answers proves nothing).
for m in "${mgids[@]:0:4}"; do
  grep -q "^$m: none" "$work/fabricsm.state" && fail "fabricsm: no group $m"
done
grep -q "^${mgids[4]}: none" "$work/fabricsm.state" || fail "fabricsm: the default partition has a broadcast group"
grep -q "^${probe[0]}: \[0\] 0x800a " "$work/fabricsm.state" || fail "fabricsm: ${probe[0]}: 0x800a not at index 0"
exit $failed
