#!/usr/bin/env bash
# multicast.sh FABRICSM MCAST_JOIN NETFILE: multicast under fabricsm and under OpenSM, each on
# a fresh ibsim of the same fabric. `saquery -g` must list the IPoIB broadcast group with the
# same MGID, Q_Key, P_Key, MTU and rate (first record only: ibsim has no RMPP). Then CAs on
# different leaf switches join it through the SA (mcast_join: what IPoIB sends; ibsim has no
# IPoIB), and the MFTs `dump_fts -M` reads from the switches must deliver a packet from every
# member to every other member exactly once (check_mft below). A leave must shrink the tree.
. "$(dirname "$0")/lib.sh"

FABRICSM=$(realpath "$1")
JOIN=$(realpath "$2")
NET=$3
[ -f "$NET" ] || { echo "SKIP: $NET not found"; exit 77; }
command -v saquery > /dev/null || { echo "SKIP: saquery missing"; exit 77; }
ibsim_init mcast-$$
name="multicast $(basename "$NET")"

mapfile -t cas < <(ca_names "$NET")
n=${#cas[@]}
client=${cas[$((n - 1))]}
members=("${cas[1]}" "${cas[2]}" "${cas[$((n / 2))]}" "${cas[$((n - 2))]}")
sa() { SIM_HOST=$client shim timeout 10 saquery "$@" 2>&1; }

# check_mft MLID HOST...: walks dump_fts -M's MFTs from every member HOST's switch port.
check_mft() {
  local mlid=$1; shift
  shim dump_fts -M > "$work/mft.txt" 2>/dev/null
  shim ibnetdiscover > "$work/topo.txt" 2>/dev/null
  python3 - "$mlid" "$work/mft.txt" "$work/topo.txt" "$@" <<'PY'
import re, sys
mlid = int(sys.argv[1], 0)
mft_text, topo_text, members = open(sys.argv[2]).read(), open(sys.argv[3]).read(), sys.argv[4:]
# Switch GUID -> ports for the MLID (dump_fts -M: a "Multicast mlids [...] of switch Lid N guid G"
# header, a "Ports: 0 1 2 ..." line, then "0xc000      x   x" rows with an x under each port).
mft, sw, ports = {}, None, []
for line in mft_text.splitlines():
    m = re.search(r"guid (0x[0-9a-f]+)", line)
    if m and "switch" in line.lower():
        sw, ports = int(m.group(1), 16), []
        continue
    if re.match(r"^\s*Ports:", line):  # each port's column: where its number stands
        ports = [(m.start(), int(m.group())) for m in re.finditer(r"\d+", line)]
        continue
    m = re.match(r"^(0x[0-9a-fA-F]+)\s+(.*)$", line)
    if m and sw is not None and int(m.group(1), 16) == mlid:
        mft[sw] = {p for col, p in ports if line[col:col + 1] == "x"}
# Links from ibnetdiscover: (switch guid, port) -> (guid, port, is_switch); CA name -> (sw, port).
links, ca_at, cur, cur_sw = {}, {}, None, False
for line in topo_text.splitlines():
    m = re.match(r'^(Switch|Ca|Hca)\s+\d+\s+"[SH]-([0-9a-f]+)"\s+#\s+"([^"]+)"', line)
    if m:
        cur, cur_sw, cur_name = int(m.group(2), 16), m.group(1) == "Switch", m.group(3)
        continue
    m = re.match(r'^\[(\d+)\].*?"([SH])-([0-9a-f]+)"\[(\d+)\]', line)
    if m and cur is not None:
        port, peer, pport = int(m.group(1)), int(m.group(3), 16), int(m.group(4))
        links[(cur, port)] = (peer, pport, m.group(2) == "S")
        if not cur_sw:
            ca_at[cur_name] = (peer, pport)
where = {}
for h in members:
    if h not in ca_at:
        print(f"member {h} not found by ibnetdiscover"); sys.exit(1)
    where[ca_at[h]] = h
bad = 0
for h in members:
    sw, inp = ca_at[h]
    got, seen, todo = {}, set(), [(sw, inp)]
    while todo:
        s, i = todo.pop()
        if s in seen:
            print(f"from {h}: switch {s:#x} reached twice (a loop or a second path)"); bad += 1; continue
        seen.add(s)
        for p in sorted(mft.get(s, set())):
            if p == i or p == 0 or (s, p) not in links: continue
            peer, pp, is_sw = links[(s, p)]
            if is_sw: todo.append((peer, pp))
            else: got[(s, p)] = got.get((s, p), 0) + 1
    for at, other in where.items():
        if other == h: continue
        if got.get(at, 0) != 1:
            print(f"from {h}: {other} got {got.get(at, 0)} copies"); bad += 1
    for at in got:
        if at not in where: print(f"from {h}: a non-member port {at} gets copies"); bad += 1
print(f"{len(members)} members, {sum(1 for s in mft if mft[s])} switches with MFT entries for {mlid:#x}")
sys.exit(1 if bad else 0)
PY
}

for sm in opensm fabricsm; do
  ibsim_start "$NET" || exit 1
  rm -f "$work/daemon.log"
  case $sm in
    fabricsm) (cd "$work/cwd" && LD_PRELOAD=$SHIM exec "$FABRICSM" run --db "$work/fabricsm.db" \
                 --control_socket "$work/sm.sock" --log-level debug 2> "$work/daemon.log") & ;;
    opensm) (cd "$work/cwd" && LD_PRELOAD=$SHIM OSM_TMP_DIR=$work OSM_CACHE_DIR=$work \
               exec opensm -d 2 -f "$work/daemon.log" > /dev/null 2>&1) & ;;
  esac
  sm_pid=$!
  i=0; until grep -q 'SUBNET UP' "$work/daemon.log" 2>/dev/null || [ $i -gt 600 ]; do i=$((i + 1)); sleep 0.1; done
  grep -q 'SUBNET UP' "$work/daemon.log" || { fail "$sm: no SUBNET UP"; exit 1; }
  sm_lid=$(lid_of)
  sa -g | awk '/MCMemberRecord/ { n++ } n == 1' | grep -E '^\s*(MGID|Mtu|pkey|Qkey|Rate|SL|Scope|TClass|FlowLabel|HopLimit)\.' |
    sed 's/[[:space:]]\+/ /g' > "$work/$sm.groups"
  grep -q 'ff12:401b:ffff::ffff:ffff' "$work/$sm.groups" || fail "$sm: saquery -g: no broadcast group: $(sa -g | head -5)"
  mlid=$(sa -g | awk -F. '/Mlid/ { print $NF; exit }')
  for h in "${members[@]}"; do
    out=$(SIM_HOST=$h shim timeout 20 "$JOIN" "$sm_lid" join) || fail "$sm: $h could not join: $out"
  done
  sleep 1  # the SM programs the MFTs after the joins (fabricsm: at its next tick)
  if out=$(check_mft "$mlid" "${members[@]}"); then log "$sm: MLID $mlid: $out"; else fail "$sm: MFTs: $out"; fi
  before=$(grep -o '[0-9]* switches' <<< "$out" | cut -d' ' -f1)
  # The member alone on its leaf switch leaves: the others still reach each other, the
  # leaver gets nothing, and its switch drops off the tree.
  out=$(SIM_HOST=${members[2]} shim timeout 20 "$JOIN" "$sm_lid" leave) || fail "$sm: ${members[2]} could not leave: $out"
  sleep 1
  if out=$(check_mft "$mlid" "${members[0]}" "${members[1]}" "${members[3]}"); then
    log "$sm: after a leave: $out"
  else
    fail "$sm: MFTs after a leave: $out"
  fi
  after=$(grep -o '[0-9]* switches' <<< "$out" | cut -d' ' -f1)
  [ "${after:-0}" -lt "${before:-0}" ] || fail "$sm: the tree did not shrink after a leave ($before -> $after switches)"
  sm_stop TERM
  ibsim_stop
done

if diff -u "$work/opensm.groups" "$work/fabricsm.groups" > "$work/diff"; then
  log "saquery -g: the broadcast group as OpenSM lists it: $(tr '\n' ' ' < "$work/fabricsm.groups")"
else
  fail "saquery -g differs from OpenSM's:"; cat "$work/diff"
fi
exit $failed
